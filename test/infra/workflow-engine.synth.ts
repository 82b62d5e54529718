import { beforeAll, describe, expect, it } from "vitest";
import { workflowEngine } from "../../functions/engine.js";
import type { RouteRow } from "../../functions/routes.js";
import { RUN_FAILED_MESSAGE, type WorkflowEngineStack } from "../../infra/workflow-engine-stack.js";
import { allowStatements, list, methodsOf, resourcesOf, synth, type Json, type Synth } from "./synth.js";

let s: Synth;
let engine: WorkflowEngineStack;
let template: Json;
beforeAll(async () => {
  s = await synth({ validate: false });
  engine = s.api.workflowEngine;
  template = s.template(engine);
});

const idOf = (construct: { node: { defaultChild?: unknown } }) => engine.getLogicalId(construct.node.defaultChild as never);
const fnId = (name: keyof typeof workflowEngine) => idOf(engine.functions[name].fn);
const roleStatements = (t: Json, roleId: string): Json[] =>
  allowStatements(t)
    .filter((entry) => entry.where === roleId)
    .map((entry) => entry.statement);
const actionsOf = (statements: Json[]) => statements.flatMap((st) => list<string>(st.Action));
const envOf = (t: Json, functionId: string): Json => t.Resources[functionId].Properties.Environment.Variables;

describe("the workflow engine", () => {
  it("is a nested stack of the Api stack with one function per row of functions/engine.ts workflowEngine", () => {
    expect(engine.nestedStackParent).toBe(s.api);
    expect(Object.keys(engine.functions).toSorted()).toEqual(Object.keys(workflowEngine).toSorted());
    const functions = resourcesOf(template, "AWS::Lambda::Function");
    expect(functions).toHaveLength(Object.keys(workflowEngine).length);
    for (const [name, row] of Object.entries(workflowEngine)) {
      const fn = template.Resources[fnId(name as keyof typeof workflowEngine)].Properties;
      expect(fn.Timeout).toBe(row.timeoutSeconds);
      expect(fn.Architectures).toEqual(["arm64"]);
    }
  });

  it("runs every workflow machine as one role that may invoke the dispatcher and nothing else", () => {
    const roleId = idOf(engine.machineRole);
    const role = template.Resources[roleId].Properties;
    expect(role.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({ Service: "states.amazonaws.com" });
    expect(role.AssumeRolePolicyDocument.Statement[0].Condition).toEqual({ StringEquals: { "aws:SourceAccount": { Ref: "AWS::AccountId" } } });
    const statements = roleStatements(template, roleId);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatchObject({ Action: "lambda:InvokeFunction", Resource: { "Fn::GetAtt": [fnId("dispatch"), "Arn"] } });
  });

  it("fires timers from its own schedule group through a role that may invoke the timer handler only", () => {
    const [[, group]] = resourcesOf(template, "AWS::Scheduler::ScheduleGroup") as [[string, Json]];
    expect(group.Properties.Name).toBe(engine.refs.timerGroup);
    const roleId = idOf(engine.timerRole);
    expect(template.Resources[roleId].Properties.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({ Service: "scheduler.amazonaws.com" });
    const statements = roleStatements(template, roleId);
    expect(statements).toEqual([expect.objectContaining({ Action: "lambda:InvokeFunction", Resource: engine.resolve(engine.refs.timerTargetArn) })]);
    expect(JSON.stringify(engine.resolve(engine.refs.timerTargetArn))).toContain(`:function:${engine.refs.machinePrefix}timer`);
    expect(template.Resources[fnId("timer")].Properties.FunctionName).toBe(`${engine.refs.machinePrefix}timer`);
  });

  it("feeds the status handler this deployment's workflow runs that ended, and the reconciler every 5 minutes", () => {
    const rules = resourcesOf(template, "AWS::Events::Rule").map(([, r]) => r.Properties);
    const status = rules.find((r) => r.EventPattern)!;
    expect(status.EventPattern.source).toEqual(["aws.states"]);
    expect(status.EventPattern["detail-type"]).toEqual(["Step Functions Execution Status Change"]);
    expect(status.EventPattern.detail.status.toSorted()).toEqual(["ABORTED", "FAILED", "SUCCEEDED", "TIMED_OUT"]);
    expect(JSON.stringify(status.EventPattern.detail.stateMachineArn)).toContain(`:stateMachine:${engine.refs.machinePrefix}`);
    expect(status.Targets[0].Arn).toEqual({ "Fn::GetAtt": [fnId("status"), "Arn"] });
    const reconcile = rules.find((r) => r.ScheduleExpression)!;
    expect(reconcile.ScheduleExpression).toBe("rate(5 minutes)");
    expect(reconcile.Targets[0].Arn).toEqual({ "Fn::GetAtt": [fnId("reconcile"), "Arn"] });
  });

  it("gives the dispatcher the token rights (not scopable), the timers of its group, runs to start (child workflows), and no way to create machines", () => {
    const dispatcher = template.Resources[fnId("dispatch")].Properties;
    const statements = roleStatements(template, dispatcher.Role["Fn::GetAtt"][0]);
    const actions = actionsOf(statements);
    expect(actions).toEqual(expect.arrayContaining(["states:SendTaskSuccess", "states:SendTaskFailure", "states:SendTaskHeartbeat", "scheduler:CreateSchedule", "iam:PassRole"]));
    expect(actions.filter((a) => /CreateStateMachine|UpdateStateMachine/.test(a))).toEqual([]);
    expect(actions).toContain("states:StartExecution");
    const pass = statements.find((st) => st.Action === "iam:PassRole")!;
    expect(pass.Condition).toEqual({ StringEquals: { "iam:PassedToService": "scheduler.amazonaws.com" } });
    expect(JSON.stringify(statements.find((st) => list<string>(st.Action).includes("scheduler:CreateSchedule"))!.Resource)).toContain(`schedule/${engine.refs.timerGroup}/*`);
    expect(envOf(template, fnId("dispatch"))).toMatchObject({ TIMER_GROUP: engine.refs.timerGroup, TIMER_TARGET_ARN: engine.resolve(engine.refs.timerTargetArn) });
    expect(envOf(template, fnId("timer"))).toMatchObject({ TIMER_TARGET_ARN: engine.resolve(engine.refs.timerTargetArn) });
  });

  it("lets the signal and update routes complete the waiting Task's token, and queries and histories no engine call at all", () => {
    const actionsOfRoute = (key: string) => {
      const method = methodsOf(s).find((m) => m.key === key)!;
      const fn = method.scope.template.Resources[method.functionId].Properties;
      return actionsOf(roleStatements(method.scope.template, fn.Role["Fn::GetAtt"][0]));
    };
    for (const key of ["POST /v1/workflows/executions/{execution_id}/signals", "POST /v1/workflows/executions/{execution_id}/updates"]) {
      const actions = actionsOfRoute(key);
      expect(actions, key).toEqual(expect.arrayContaining(["states:SendTaskSuccess"]));
      expect(actions.filter((a) => /StartExecution|StopExecution|CreateSchedule/.test(a)), key).toEqual([]);
    }
    for (const key of ["POST /v1/workflows/executions/{execution_id}/queries", "GET /v1/workflows/executions/{execution_id}/history", "GET /v1/workflows/runs/{run_id}/history"]) {
      expect(actionsOfRoute(key).filter((a) => a.startsWith("states:") || a.startsWith("scheduler:")), key).toEqual([]);
    }
    expect(actionsOfRoute("POST /v1/workflows/executions/{execution_id}/reset")).toEqual(expect.arrayContaining(["states:StartExecution", "states:StopExecution"]));
  });

  it("alarms on failed runs (a metric from the status handler's log); its functions' errors are the deployment's signals", () => {
    const filter = resourcesOf(template, "AWS::Logs::MetricFilter")
      .map(([, f]) => f.Properties)
      .find((f) => f.MetricTransformations[0].MetricName === "FailedRuns")!;
    expect(filter.FilterPattern).toContain(RUN_FAILED_MESSAGE);
    expect(filter.LogGroupName).toEqual({ Ref: idOf(engine.functions.status.logGroup) });
    const alarms = resourcesOf(template, "AWS::CloudWatch::Alarm").map(([, a]) => a.Properties);
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({ MetricName: "FailedRuns", Threshold: 0, ComparisonOperator: "GreaterThanThreshold", TreatMissingData: "notBreaching" });
    // The dispatcher's (and every other function's) failed invocations are the deployment's signals: test/infra/operations.synth.ts.
  });
});

describe("a route granted workflow rights", () => {
  let granted: Synth;
  const row: RouteRow = {
    method: "POST",
    path: "/v1/files",
    handler: "files/upload",
    grants: { tables: { files: "write" }, workflows: { publish: true, runs: "start-stop", timers: "arm" } },
    auth: "key",
    errors: "platform",
    streaming: false,
  };
  beforeAll(async () => {
    granted = await synth({ routes: [row], validate: false });
  });

  it("may create and publish only this deployment's workflow machines, passing only the machines' role", () => {
    const method = methodsOf(granted).find((m) => m.key === "POST /v1/files")!;
    const fn = method.scope.template.Resources[method.functionId].Properties;
    const statements = roleStatements(method.scope.template, fn.Role["Fn::GetAtt"][0]);
    const prefix = granted.api.workflowEngine.refs.machinePrefix;
    const create = statements.find((st) => list<string>(st.Action).includes("states:CreateStateMachine"))!;
    expect(JSON.stringify(create.Resource)).toContain(`:stateMachine:${prefix}*`);
    const passes = statements.filter((st) => st.Action === "iam:PassRole");
    expect(passes.map((p) => p.Condition.StringEquals["iam:PassedToService"]).toSorted()).toEqual(["scheduler.amazonaws.com", "states.amazonaws.com"]);
    const machineRole = passes.find((p) => p.Condition.StringEquals["iam:PassedToService"] === "states.amazonaws.com")!;
    // The area's parameter is the engine stack's output of the machine role's ARN.
    expect(machineRole.Resource).toEqual({ Ref: "WorkflowMachineRoleArn" });
    const passed = JSON.stringify(method.scope.parameters!.WorkflowMachineRoleArn);
    expect(passed).toContain(granted.api.getLogicalId(granted.api.workflowEngine.nestedStackResource as never));
    expect(passed).toContain("MachineRole");
    const start = statements.find((st) => list<string>(st.Action).includes("states:StartExecution"))!;
    expect(JSON.stringify(start.Resource)).toContain(`:stateMachine:${prefix}*:*`);
    expect(fn.Environment.Variables).toMatchObject({ WORKFLOW_MACHINE_PREFIX: prefix, TIMER_GROUP: granted.api.workflowEngine.refs.timerGroup });
    expect(Object.keys(fn.Environment.Variables)).toEqual(expect.arrayContaining(["WORKFLOW_ROLE_ARN", "WORKFLOW_DISPATCHER_ARN", "TIMER_TARGET_ARN", "TIMER_ROLE_ARN"]));
  });

  describe("workflow schedules", () => {
    const scheduleRights = (statements: Json[]) => statements.filter((st) => list<string>(st.Action).some((a) => a.startsWith("scheduler:")));

    it("fire from their own schedule group through a role that may invoke the fire handler only (named, so it can target itself)", () => {
      const groups = resourcesOf(template, "AWS::Scheduler::ScheduleGroup").map(([, g]) => g.Properties.Name);
      expect(groups.toSorted()).toEqual([engine.refs.scheduleGroup, engine.refs.timerGroup].toSorted());
      const fire = template.Resources[fnId("scheduleFire")].Properties;
      expect(fire.FunctionName).toBe(`${engine.refs.scheduleGroup}-fire`);
      const roleId = idOf(engine.scheduleRole);
      const role = template.Resources[roleId].Properties;
      expect(role.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({ Service: "scheduler.amazonaws.com" });
      expect(role.AssumeRolePolicyDocument.Statement[0].Condition).toEqual({ StringEquals: { "aws:SourceAccount": { Ref: "AWS::AccountId" } } });
      const statements = roleStatements(template, roleId);
      expect(statements).toHaveLength(1);
      expect(statements[0]!.Action).toBe("lambda:InvokeFunction");
      expect(JSON.stringify(statements[0]!.Resource)).toContain(`:function:${engine.refs.scheduleGroup}-fire`);
      expect(envOf(template, fnId("scheduleFire"))).toMatchObject({ SCHEDULE_GROUP: engine.refs.scheduleGroup, SCHEDULE_ROLE_ARN: { "Fn::GetAtt": [roleId, "Arn"] } });
      expect(JSON.stringify(envOf(template, fnId("scheduleFire")).SCHEDULE_TARGET_ARN)).toContain(`:function:${engine.refs.scheduleGroup}-fire`);
    });

    it("give the fire handler the schedules of its group only, passing the schedules' role only to Scheduler", () => {
      const fire = template.Resources[fnId("scheduleFire")].Properties;
      const statements = roleStatements(template, fire.Role["Fn::GetAtt"][0]);
      const rights = scheduleRights(statements);
      const groupsNamed = rights.map((st) => JSON.stringify(st.Resource));
      expect(groupsNamed.some((r) => r.includes(`schedule/${engine.refs.scheduleGroup}/*`))).toBe(true);
      const passes = statements.filter((st) => st.Action === "iam:PassRole");
      for (const pass of passes) expect(pass.Condition).toEqual({ StringEquals: { "iam:PassedToService": "scheduler.amazonaws.com" } });
      expect(passes.map((p) => JSON.stringify(p.Resource))).toEqual(expect.arrayContaining([JSON.stringify({ "Fn::GetAtt": [idOf(engine.scheduleRole), "Arn"] })]));
      expect(actionsOf(statements).filter((a) => /CreateStateMachine|UpdateStateMachine|SendTask/.test(a))).toEqual([]);
    });

    it("give the schedule routes rights on the schedules' group only: create arms (passing only the schedules' role), delete only deletes", () => {
      const methods = methodsOf(s);
      const rightsOf = (key: string) => {
        const method = methods.find((m) => m.key === key)!;
        const fn = method.scope.template.Resources[method.functionId].Properties;
        return { statements: roleStatements(method.scope.template, fn.Role["Fn::GetAtt"][0]), env: fn.Environment.Variables as Json, scope: method.scope };
      };
      const create = rightsOf("POST /v1/workflows/schedules");
      const createRights = scheduleRights(create.statements);
      expect(createRights).toHaveLength(1);
      expect(list<string>(createRights[0]!.Action).toSorted()).toEqual(["scheduler:CreateSchedule", "scheduler:DeleteSchedule", "scheduler:GetSchedule", "scheduler:UpdateSchedule"]);
      expect(JSON.stringify(createRights[0]!.Resource)).toContain(`schedule/${engine.refs.scheduleGroup}/*`);
      const pass = create.statements.filter((st) => st.Action === "iam:PassRole");
      expect(pass).toEqual([expect.objectContaining({ Resource: { Ref: "WorkflowScheduleRoleArn" }, Condition: { StringEquals: { "iam:PassedToService": "scheduler.amazonaws.com" } } })]);
      expect(create.env).toMatchObject({ SCHEDULE_GROUP: engine.refs.scheduleGroup, SCHEDULE_TARGET_ARN: { Ref: "WorkflowScheduleFireArn" } });
      expect(actionsOf(create.statements).filter((a) => a.startsWith("states:"))).toEqual([]);

      const remove = rightsOf("DELETE /v1/workflows/schedules/{schedule_id}");
      expect(scheduleRights(remove.statements).map((st) => st.Action)).toEqual(["scheduler:DeleteSchedule"]);
      expect(remove.statements.filter((st) => st.Action === "iam:PassRole")).toEqual([]);

      const trigger = rightsOf("POST /v1/workflows/schedules/{schedule_id}/trigger");
      expect(actionsOf(trigger.statements)).toEqual(expect.arrayContaining(["states:StartExecution", "states:StopExecution"]));
      for (const rights of scheduleRights(trigger.statements)) expect(JSON.stringify(rights.Resource)).toMatch(new RegExp(`schedule/(${engine.refs.scheduleGroup}|${engine.refs.timerGroup})/\\*`));
    });

    it("sweep lost fires every minute, with rights on the schedules' group only", () => {
      const rules = resourcesOf(template, "AWS::Events::Rule").map(([, r]) => r.Properties);
      const sweep = rules.find((r) => r.ScheduleExpression === "rate(1 minute)")!;
      expect(sweep.Targets[0].Arn).toEqual({ "Fn::GetAtt": [fnId("scheduleSweep"), "Arn"] });
      const sweeper = template.Resources[fnId("scheduleSweep")].Properties;
      const rights = scheduleRights(roleStatements(template, sweeper.Role["Fn::GetAtt"][0]));
      expect(rights.map((st) => JSON.stringify(st.Resource)).every((r) => r.includes(`schedule/${engine.refs.scheduleGroup}/*`))).toBe(true);
      expect(actionsOf(roleStatements(template, sweeper.Role["Fn::GetAtt"][0])).filter((a) => a.startsWith("states:"))).toEqual([]);
    });
  });
});

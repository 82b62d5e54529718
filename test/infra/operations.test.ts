/**
 * What the operator runs the deployment with (docs/operations.md): one alarm topic, alarms per function group,
 * engine, table and on the API's 5xx rate, one dashboard per area, log retention and tracing as settings,
 * key rotation on every KMS key.
 */
import type * as cdk from "aws-cdk-lib";
import { beforeAll, describe, expect, it } from "vitest";
import { areaOf, routes } from "../../functions/routes.js";
import { buildApp } from "../../infra/app.js";
import { XRAY_ACTIONS } from "../../infra/constructs/route-function.js";
import { GROUP_MAX_FUNCTIONS } from "../../infra/alarm-groups.js";
import { API_5XX_PERCENT, DURATION_ALARM_SHARE } from "../../infra/monitoring.js";
import { WORKFLOW_TRACING_ENV } from "../../shared/config.js";
import { tables } from "../../shared/store/tables.js";
import { allowStatements, AWS_CUSTOM_RESOURCE_PROVIDER, deref, list, resourcesOf, scopeOf, synth, type Json, type Synth } from "./synth.js";

let s: Synth;
let configured: Synth;
beforeAll(async () => {
  s = await synth({ validate: false });
  configured = await synth({ context: { alarmEmail: "oncall@example.test", logRetentionDays: "7", tracing: "true" } });
}, 600_000);

const all = (x: Synth, type: string): { stack: cdk.Stack; id: string; resource: Json }[] =>
  x.stacks.flatMap((stack) => resourcesOf(x.template(stack), type).map(([id, resource]) => ({ stack, id, resource })));

/** Follows a value through nested-stack parameters and outputs to the resource it names: [stack, logical id]. */
function resolve(x: Synth, stack: cdk.Stack, value: Json): { stack: cdk.Stack; id: string } {
  const target = deref(value, scopeOf(x, stack));
  const imported = target.value["Fn::ImportValue"] as string | undefined;
  if (imported) {
    // Another top-level stack's export (the upload stack's alarms name the API stack's topic).
    for (const exporter of x.stacks.filter((n) => !n.nestedStackParent)) {
      const output = Object.values((x.template(exporter).Outputs ?? {}) as Record<string, Json>).find((o) => o.Export?.Name === imported);
      if (output) return resolve(x, exporter, output.Value);
    }
  }
  const getAtt = target.value["Fn::GetAtt"] as [string, string] | undefined;
  if (getAtt?.[1].startsWith("Outputs.")) {
    const owner = x.stacks.find((n) => n.nestedStackParent && target.scope.template === x.template(n.nestedStackParent) && n.nestedStackParent.getLogicalId(n.nestedStackResource as cdk.CfnElement) === getAtt[0])!;
    return resolve(x, owner, x.template(owner).Outputs[getAtt[1].slice("Outputs.".length)].Value);
  }
  const holder = x.stacks.find((n) => x.template(n) === target.scope.template)!;
  return { stack: holder, id: target.id };
}

/** The function logical ids an alarm's metrics watch (FunctionName dimensions). */
const watchedFunctions = (alarm: Json): string[] =>
  list<Json>(alarm.Properties.Metrics)
    .filter((m) => m.MetricStat)
    .flatMap((m) => list<Json>(m.MetricStat.Metric.Dimensions).filter((d) => d.Name === "FunctionName").map((d) => d.Value.Ref as string));

const functionsOf = (x: Synth, stack: cdk.Stack) => resourcesOf(x.template(stack), "AWS::Lambda::Function");

describe("the alarm topic", () => {
  it("is one topic, encrypted with a rotated key of its own that CloudWatch may use, and TLS only", () => {
    const topics = all(s, "AWS::SNS::Topic");
    expect(topics).toHaveLength(1);
    const { stack, resource: topic } = topics[0]!;
    expect(stack).toBe(s.monitoring);
    const key = deref(topic.Properties.KmsMasterKeyId["Fn::GetAtt"] ? { Ref: topic.Properties.KmsMasterKeyId["Fn::GetAtt"][0] } : topic.Properties.KmsMasterKeyId, scopeOf(s, stack)).resource!;
    expect(key.Type).toBe("AWS::KMS::Key");
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.Properties.KeyPolicy.Statement).toContainEqual(
      expect.objectContaining({ Effect: "Allow", Principal: { Service: "cloudwatch.amazonaws.com" }, Action: ["kms:Decrypt", "kms:GenerateDataKey*"] }),
    );
    const [[, policy]] = resourcesOf(s.template(stack), "AWS::SNS::TopicPolicy") as [[string, Json]];
    expect(policy.Properties.PolicyDocument.Statement).toContainEqual(expect.objectContaining({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }));
  });

  it("is an output of the Api stack", () => {
    const output = s.template(s.api).Outputs.AlarmTopicArn;
    expect(output.Description).toMatch(/SNS topic every alarm notifies/);
    const topic = resolve(s, s.api, output.Value);
    expect(s.template(topic.stack).Resources[topic.id].Type).toBe("AWS::SNS::Topic");
  });

  it("has no subscription unless -c alarmEmail names an address, then that one by e-mail", () => {
    expect(all(s, "AWS::SNS::Subscription")).toEqual([]);
    const subscriptions = all(configured, "AWS::SNS::Subscription").map((x) => x.resource.Properties);
    expect(subscriptions).toEqual([expect.objectContaining({ Protocol: "email", Endpoint: "oncall@example.test" })]);
    expect(() => buildApp({ routes: routes.slice(0, 1), context: { alarmEmail: "not an address" } })).toThrow(/alarmEmail/);
  });

  it("is what every alarm of every stack notifies, and nothing else", () => {
    const alarms = all(s, "AWS::CloudWatch::Alarm");
    expect(alarms.length).toBeGreaterThan(routes.length / GROUP_MAX_FUNCTIONS);
    for (const { stack, id, resource } of alarms) {
      expect(resource.Properties.AlarmActions, id).toHaveLength(1);
      const target = resolve(s, stack, resource.Properties.AlarmActions[0]);
      expect(s.template(target.stack).Resources[target.id]?.Type, `${stack.node.path}/${id}`).toBe("AWS::SNS::Topic");
    }
  });
});

describe("alarms", () => {
  it("watch every route function of an area in exactly one group per metric: errors, throttles and p99 duration against its timeout", () => {
    for (const area of s.api.areas) {
      const template = s.template(area);
      const functions = new Map(functionsOf(s, area).map(([id, f]) => [id, f.Properties.Timeout as number]));
      const alarms = resourcesOf(template, "AWS::CloudWatch::Alarm").map(([, a]) => a);
      for (const kind of ["errors", "throttles", "p99-duration"]) {
        const ofKind = alarms.filter((a) => a.Properties.AlarmName.endsWith(`-${kind}`));
        const watched = ofKind.flatMap(watchedFunctions);
        expect(watched.toSorted(), `${area.node.id} ${kind}`).toEqual([...functions.keys()].toSorted());
        for (const a of ofKind) {
          const ids = watchedFunctions(a);
          expect(ids.length).toBeLessThanOrEqual(GROUP_MAX_FUNCTIONS);
          expect(a.Properties.AlarmName).toMatch(new RegExp(`^Platform-prod-${areaOf(area.routes[0]!.row)}(-\\d+)?-${kind}$`));
          expect(a.Properties.AlarmDescription).toMatch(/docs\/operations\.md#function-/);
          if (kind === "p99-duration") {
            const timeouts = new Set(ids.map((id) => functions.get(id)));
            expect(timeouts.size, "one timeout per group").toBe(1);
            expect(a.Properties.Threshold).toBe(Math.round([...timeouts][0]! * 1000 * DURATION_ALARM_SHARE));
            expect(list<Json>(a.Properties.Metrics).every((m) => !m.MetricStat || m.MetricStat.Stat === "p99")).toBe(true);
          } else {
            expect(a.Properties).toMatchObject({ Threshold: 0, ComparisonOperator: "GreaterThanThreshold", TreatMissingData: "notBreaching" });
          }
        }
      }
    }
  });

  it("watch the authorizer like a group of its own", () => {
    const alarms = resourcesOf(s.template(s.monitoring), "AWS::CloudWatch::Alarm").map(([, a]) => a.Properties.AlarmName as string);
    expect(alarms).toEqual(expect.arrayContaining(["Platform-prod-authorizer-errors", "Platform-prod-authorizer-throttles", "Platform-prod-authorizer-p99-duration"]));
  });

  it("watch each engine: failed executions, and its tasks' errors, throttles and duration", () => {
    for (const engine of s.api.engines) {
      const names = resourcesOf(s.template(engine), "AWS::CloudWatch::Alarm").map(([, a]) => a.Properties);
      expect(names.filter((a) => a.MetricName === "ExecutionsFailed")).toHaveLength(1);
      const tasks = functionsOf(s, engine).map(([id]) => id).toSorted();
      for (const kind of ["errors", "throttles", "p99-duration"]) {
        const watched = resourcesOf(s.template(engine), "AWS::CloudWatch::Alarm").filter(([, a]) => a.Properties.AlarmName?.endsWith(`-${kind}`)).flatMap(([, a]) => watchedFunctions(a));
        expect(watched.toSorted(), `${engine.machine} ${kind}`).toEqual(tasks);
      }
    }
  });

  it("watch the workflow engine: failed runs and each function's errors (its own alarms), every function's throttles and duration", () => {
    const template = s.template(s.api.workflowEngine);
    const alarms = resourcesOf(template, "AWS::CloudWatch::Alarm").map(([, a]) => a.Properties);
    expect(alarms.filter((a) => a.MetricName === "FailedRuns")).toHaveLength(1);
    const fns = functionsOf(s, s.api.workflowEngine).map(([id]) => id).toSorted();
    for (const kind of ["throttles", "p99-duration"]) {
      expect(alarms.filter((a) => a.AlarmName?.endsWith(`-${kind}`)).flatMap((a) => watchedFunctions({ Properties: a })).toSorted()).toEqual(fns);
    }
    expect(alarms.filter((a) => a.MetricName === "Errors").length).toBeGreaterThanOrEqual(5);
  });

  it("watch every table's throttled reads and writes", () => {
    const alarms = resourcesOf(s.template(s.monitoring), "AWS::CloudWatch::Alarm").map(([, a]) => a.Properties);
    for (const def of tables) {
      const alarm = alarms.find((a) => a.AlarmName === `Platform-prod-table-${def.name}-throttled`);
      expect(alarm, def.name).toBeDefined();
      const metrics = list<Json>(alarm!.Metrics).filter((m) => m.MetricStat).map((m) => m.MetricStat.Metric);
      expect(metrics.map((m) => m.MetricName).toSorted()).toEqual(["ReadThrottleEvents", "WriteThrottleEvents"]);
      for (const m of metrics) {
        expect(m.Namespace).toBe("AWS/DynamoDB");
        // The table's name, from the ARN the data stack passes in.
        expect(JSON.stringify(m.Dimensions)).toContain(`${def.name[0]!.toUpperCase()}`);
      }
    }
    expect(alarms.filter((a) => /-table-.*-throttled$/.test(a.AlarmName))).toHaveLength(tables.length);
  });

  it("watch the API's 5xx rate on its stage", () => {
    const alarm = resourcesOf(s.template(s.monitoring), "AWS::CloudWatch::Alarm").map(([, a]) => a.Properties).find((a) => a.AlarmName === "Platform-prod-api-5xx-rate")!;
    expect(alarm).toMatchObject({ Threshold: API_5XX_PERCENT, EvaluationPeriods: 3, DatapointsToAlarm: 2, ComparisonOperator: "GreaterThanThreshold" });
    const metrics = list<Json>(alarm.Metrics).filter((m) => m.MetricStat).map((m) => m.MetricStat.Metric);
    expect(metrics.map((m) => m.MetricName).toSorted()).toEqual(["5XXError", "Count"]);
    for (const m of metrics) {
      expect(m.Namespace).toBe("AWS/ApiGateway");
      expect(m.Dimensions).toEqual(expect.arrayContaining([{ Name: "ApiName", Value: "Platform-prod-Api" }, { Name: "Stage", Value: expect.anything() }]));
    }
    expect(list<Json>(alarm.Metrics).find((m) => m.ReturnData !== false)?.Expression).toMatch(/100 \* errors \/ requests/);
  });
});

describe("dashboards", () => {
  it("one per area, per engine, the upload service and an overview, named after the deployment", () => {
    const names = all(s, "AWS::CloudWatch::Dashboard").map((d) => d.resource.Properties.DashboardName as string).toSorted();
    const areas = [...new Set(routes.map(areaOf))];
    expect(names).toEqual(
      [...areas.map((a) => `Platform-prod-${a}`), ...s.api.engines.map((e) => `Platform-prod-engine-${e.machine}`), "Platform-prod-engine-workflows", "Platform-prod-overview", "Platform-prod-uploads"].toSorted(),
    );
    for (const area of s.api.areas) {
      const [[, board]] = resourcesOf(s.template(area), "AWS::CloudWatch::Dashboard") as [[string, Json]];
      const body = JSON.stringify(board.Properties.DashboardBody);
      // Every function of the area is drawn (its name is a Ref in the body).
      for (const [id] of functionsOf(s, area)) expect(body, `${area.node.id} ${id}`).toContain(`"Ref":"${id}"`);
    }
  });
});

describe("log retention (-c logRetentionDays)", () => {
  it("keeps every group's own retention by default (none forever)", () => {
    for (const { id, resource } of all(s, "AWS::Logs::LogGroup")) expect(resource.Properties.RetentionInDays, id).toBeGreaterThan(0);
  });

  it("applies the setting to every log group of every stack", () => {
    const groups = all(configured, "AWS::Logs::LogGroup");
    expect(groups.length).toBeGreaterThan(routes.length);
    for (const { id, resource } of groups) expect(resource.Properties.RetentionInDays, id).toBe(7);
  });

  it("refuses a period CloudWatch Logs does not offer", () => {
    expect(() => buildApp({ routes: routes.slice(0, 1), context: { logRetentionDays: "10" } })).toThrow(/logRetentionDays/);
  });
});

describe("tracing (-c tracing)", () => {
  const statesMachines = (x: Synth) => all(x, "AWS::StepFunctions::StateMachine").map((m) => m.resource.Properties);

  it("is off by default: no function, stage or state machine traced, no X-Ray rights", () => {
    for (const { id, resource } of all(s, "AWS::Lambda::Function")) expect(resource.Properties.TracingConfig, id).toBeUndefined();
    for (const { resource } of all(s, "AWS::ApiGateway::Stage")) expect(resource.Properties.TracingEnabled).toBeUndefined();
    for (const m of statesMachines(s)) expect(m.TracingConfiguration?.Enabled ?? false).toBe(false);
    const xray = s.stacks.flatMap((stack) => allowStatements(s.template(stack))).filter(({ statement }) => list<string>(statement.Action).some((a) => a.startsWith("xray:")));
    expect(xray).toEqual([]);
  });

  it("when on, traces every function (its rights in its own role), the API stage and every state machine", () => {
    const functions = all(configured, "AWS::Lambda::Function").filter(({ id }) => !id.startsWith(AWS_CUSTOM_RESOURCE_PROVIDER));
    expect(functions.length).toBeGreaterThan(100);
    for (const { stack, id, resource } of functions) {
      expect(resource.Properties.TracingConfig, id).toEqual({ Mode: "Active" });
      const role = deref(resource.Properties.Role["Fn::GetAtt"] ? { Ref: resource.Properties.Role["Fn::GetAtt"][0] } : resource.Properties.Role, scopeOf(configured, stack)).resource!;
      const statements = list<Json>(role.Properties.Policies).flatMap((p) => p.PolicyDocument.Statement);
      expect(statements, id).toContainEqual(expect.objectContaining({ Action: XRAY_ACTIONS, Resource: "*", Effect: "Allow" }));
    }
    const stages = all(configured, "AWS::ApiGateway::Stage");
    expect(stages).toHaveLength(1);
    expect(stages[0]!.resource.Properties.TracingEnabled).toBe(true);
    expect(statesMachines(configured).length).toBeGreaterThan(0);
    for (const m of statesMachines(configured)) expect(m.TracingConfiguration).toEqual({ Enabled: true });
  });

  it("when on, lets the workflow machines created at run time trace too", () => {
    const template = configured.template(configured.api.workflowEngine);
    const publishers = all(configured, "AWS::Lambda::Function").filter((f) => f.resource.Properties.Environment?.Variables?.[WORKFLOW_TRACING_ENV] === "on");
    expect(publishers.length).toBeGreaterThan(0);
    const machineRoleId = configured.api.workflowEngine.getLogicalId(configured.api.workflowEngine.machineRole.node.defaultChild as cdk.CfnElement);
    const xray = allowStatements(template).filter(({ statement }) => list<string>(statement.Action).some((a) => a.startsWith("xray:")));
    expect(xray.some(({ where }) => JSON.stringify(template.Resources[where].Properties.Roles ?? []).includes(machineRoleId))).toBe(true);
  });

  it("keeps cdk-nag clean with everything on (X-Ray's resource-less actions acknowledged)", () => {
    const violations = (configured.validationReport().pluginReports as Json[]).flatMap((p) => (p.violations ?? []).map((v: Json) => `${p.pluginName}: ${v.ruleName}`));
    expect(violations).toEqual([]);
  });

  it("refuses a value that is not a switch", () => {
    expect(() => buildApp({ routes: routes.slice(0, 1), context: { tracing: "sometimes" } })).toThrow(/tracing/);
  });
});

describe("KMS keys", () => {
  it("rotate yearly, every one of them (the connector secrets' key in the data stack, the alarm topic's)", () => {
    const keys = all(s, "AWS::KMS::Key");
    expect(keys.map((k) => k.stack)).toEqual(expect.arrayContaining([s.data, s.monitoring]));
    for (const { id, resource } of keys) expect(resource.Properties.EnableKeyRotation, id).toBe(true);
  });
});

import { FileSystem } from "aws-cdk-lib";
import { beforeAll, describe, expect, it } from "vitest";
import { stateMachines, type EngineTask } from "../../functions/engine.js";
import { routes, type RouteRow } from "../../functions/routes.js";
import { bundleDir } from "../../infra/build.js";
import type { EngineStack } from "../../infra/engine-stack.js";
import { PROVIDERS_ENV } from "../../shared/inference/registry.js";
import { allowStatements, deref, list, methodsOf, resourcesOf, synth, type Json, type Synth } from "./synth.js";

let s: Synth;
let engine: EngineStack;
let template: Json;
beforeAll(async () => {
  s = await synth({ validate: false });
  engine = s.api.engines.find((e) => e.machine === "batch")!;
  template = s.template(engine);
});

const row = stateMachines.batch;
const idOf = (construct: { node: { defaultChild?: unknown } }) => engine.getLogicalId(construct.node.defaultChild as never);
const taskFunctionIds = () => Object.fromEntries(Object.entries(engine.tasks).map(([key, fn]) => [key, idOf(fn.fn)]));
const stateMachineOf = (t: Json) => resourcesOf(t, "AWS::StepFunctions::StateMachine");

/** The definition with every function ARN written as `<logical id>`, parsed. */
function definitionOf(sm: Json): Json {
  const text = (sm.Properties.DefinitionString["Fn::Join"][1] as unknown[])
    .map((part) => (typeof part === "string" ? part : `<${(part as Json)["Fn::GetAtt"][0]}>`))
    .join("");
  return JSON.parse(text);
}

/** Every Allow statement that applies to a role: its inline policies and the AWS::IAM::Policy resources attached to it. */
function roleStatements(t: Json, roleId: string): Json[] {
  const role = t.Resources[roleId];
  const inline = (role.Properties.Policies ?? []).flatMap((p: Json) => p.PolicyDocument.Statement);
  const attached = resourcesOf(t, "AWS::IAM::Policy")
    .filter(([, p]) => list<Json>(p.Properties.Roles).some((r) => r.Ref === roleId))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
  return [...inline, ...attached].filter((st: Json) => st.Effect === "Allow");
}

describe("the batch state machine", () => {
  it("is one Standard state machine per engine row, in a nested stack of the Api stack", () => {
    expect(s.api.engines.map((e) => e.machine)).toEqual(Object.keys(stateMachines));
    expect(engine.nestedStackParent).toBe(s.api);
    const machines = stateMachineOf(template);
    expect(machines).toHaveLength(1);
    expect(machines[0]![1].Properties.StateMachineType).toBe("STANDARD");
  });

  it("runs THE definition: its states, the Distributed Map over the S3 manifest, each task on its own function", () => {
    const [[, sm]] = stateMachineOf(template) as [[string, Json]];
    const definition = definitionOf(sm);
    const ids = taskFunctionIds();
    const expected = row.definition(Object.fromEntries(Object.keys(row.tasks).map((key) => [key, `<${ids[key]}>`])));
    expect(definition).toEqual({ ...expected, TimeoutSeconds: row.timeoutHours * 3600 });
    expect(Object.keys(definition.States).toSorted()).toEqual(["Failed", "Finish", "RecordFailure", "Requests", "Start"]);
    expect(definition.States.Requests.ItemProcessor.ProcessorConfig).toEqual({ Mode: "DISTRIBUTED", ExecutionType: "STANDARD" });
    expect(definition.States.Requests.ItemReader.Resource).toBe("arn:aws:states:::s3:getObject");
    expect(new Set(Object.values(ids)).size).toBe(Object.keys(row.tasks).length);
  });

  it("logs ALL events to a log group of its own, with retention", () => {
    const [[, sm]] = stateMachineOf(template) as [[string, Json]];
    const logging = sm.Properties.LoggingConfiguration;
    expect(logging.Level).toBe("ALL");
    const group = template.Resources[logging.Destinations[0].CloudWatchLogsLogGroup.LogGroupArn["Fn::GetAtt"][0]];
    expect(group.Type).toBe("AWS::Logs::LogGroup");
    expect(group.Properties.RetentionInDays).toBeGreaterThan(0);
    expect(group.Properties.LogGroupName).toMatch(/^\/aws\/vendedlogs\/states\//);
  });

  it("may invoke exactly its task functions, read manifests under workspaces/, and run its own map children", () => {
    const [[smId, sm]] = stateMachineOf(template) as [[string, Json]];
    const roleId = sm.Properties.RoleArn["Fn::GetAtt"][0];
    expect(template.Resources[roleId].Properties.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({ Service: "states.amazonaws.com" });
    const statements = roleStatements(template, roleId);
    const invoke = statements.filter((st) => list<string>(st.Action).some((a) => a.startsWith("lambda:")));
    expect(invoke).toHaveLength(1);
    expect(invoke[0]!.Action).toBe("lambda:InvokeFunction");
    const invoked = list<Json>(invoke[0]!.Resource).map((r) => r["Fn::GetAtt"]?.[0]);
    expect(invoked.toSorted()).toEqual(Object.values(taskFunctionIds()).toSorted());

    const byAction = (action: string) => statements.filter((st) => list<string>(st.Action).includes(action));
    expect(byAction("s3:GetObject")).toEqual([expect.objectContaining({ Action: "s3:GetObject", Resource: { "Fn::Join": ["", [{ Ref: "FilesBucketArn" }, "/workspaces/*"]] } })]);
    expect(byAction("states:StartExecution").map((st) => st.Resource)).toEqual([{ Ref: smId }]);
    const children = byAction("states:DescribeExecution");
    expect(children).toHaveLength(1);
    expect(list<string>(children[0]!.Action).toSorted()).toEqual(["states:DescribeExecution", "states:StopExecution"]);
    expect(JSON.stringify(children[0]!.Resource)).toContain(`{"Fn::GetAtt":["${smId}","Name"]},"/*"`);
    const actions = new Set(statements.flatMap((st) => list<string>(st.Action)));
    for (const action of actions) expect(action).toMatch(/^(lambda:InvokeFunction|s3:GetObject|states:(Start|Describe|Stop)Execution|logs:\w+)$/);
  });

  it("builds each task like a route: its bundle, arm64, its own timeout and memory, the model settings where it calls models", () => {
    for (const [key, task] of Object.entries(row.tasks as Record<string, EngineTask>)) {
      const fn = template.Resources[taskFunctionIds()[key]!].Properties;
      expect(fn.Code.S3Key, key).toBe(`${FileSystem.fingerprint(bundleDir(task.handler))}.zip`);
      expect(fn, key).toMatchObject({ Runtime: "nodejs22.x", Architectures: ["arm64"], Timeout: task.timeoutSeconds, MemorySize: task.memoryMb ?? 512 });
      expect(PROVIDERS_ENV in fn.Environment.Variables, key).toBe(Boolean(task.grants.models));
      const role = roleStatements(template, fn.Role["Fn::GetAtt"][0]);
      const bedrock = role.filter((st) => list<string>(st.Action).some((a) => a.startsWith("bedrock:")));
      expect(bedrock.length > 0, key).toBe(Boolean(task.grants.models));
      expect(role.flatMap((st) => list<string>(st.Action)).filter((a) => a.startsWith("states:")), key).toEqual([]);
    }
  });

  it("raises an alarm on any failed execution (its tasks' group alarms: test/infra/operations.synth.ts)", () => {
    const [[smId]] = stateMachineOf(template) as [[string, Json]];
    const alarms = resourcesOf(template, "AWS::CloudWatch::Alarm").map(([, a]) => a.Properties).filter((a) => a.Namespace === "AWS/States");
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({
      Namespace: "AWS/States",
      MetricName: "ExecutionsFailed",
      Dimensions: [{ Name: "StateMachineArn", Value: { Ref: smId } }],
      Statistic: "Sum",
      Threshold: 0,
      ComparisonOperator: "GreaterThanThreshold",
      TreatMissingData: "notBreaching",
    });
  });
});

describe("routes granted executions", () => {
  const startStop = routes.filter((r) => r.grants.executions);

  /** The role statements and environment of a row's function, and the scope to follow its parameters. */
  function functionOf(r: RouteRow) {
    const m = methodsOf(s).find((x) => x.key === `${r.method} ${r.path}`)!;
    const fn = m.scope.template.Resources[m.functionId];
    const role = m.scope.template.Resources[fn.Properties.Role["Fn::GetAtt"][0]];
    return { fn, statements: role.Properties.Policies.flatMap((p: Json) => p.PolicyDocument.Statement) as Json[], scope: m.scope };
  }

  it("are the batch routes that create, cancel and delete jobs, the dataset imports and the library documents' queuing (each its own machine)", () => {
    expect(startStop.filter((r) => r.grants.executions!.batch).map((r) => r.handler).toSorted()).toEqual(["batch/cancel", "batch/create", "batch/delete"]);
    expect(startStop.filter((r) => r.grants.executions!.datasetImport).map((r) => r.handler).toSorted()).toEqual([
      "observability/import-dataset-from-dataset",
      "observability/import-dataset-from-file",
      "observability/import-dataset-from-playground",
    ]);
    expect(startStop.filter((r) => r.grants.executions!.libraryIngestion).map((r) => r.handler).toSorted()).toEqual([
      "libraries/replace-document",
      "libraries/reprocess-document",
      "libraries/update-document",
      "libraries/upload-document",
    ]);
    expect(startStop.every((r) => Object.keys(r.grants.executions!).length === 1)).toBe(true);
  });

  it("gives the dataset import routes the dataset import machine's executions and its ARN, nothing of batch's", () => {
    for (const r of startStop.filter((row) => row.grants.executions!.datasetImport)) {
      const { fn, statements } = functionOf(r);
      const states = statements.filter((st) => list<string>(st.Action).some((a) => a.startsWith("states:")));
      expect(states.map((st) => st.Action), r.handler).toEqual(["states:StartExecution", ["states:DescribeExecution", "states:StopExecution"]]);
      expect(JSON.stringify(states), r.handler).toContain("DatasetimportStateMachine");
      expect(JSON.stringify(states), r.handler).not.toContain("Batch");
      expect(fn.Properties.Environment.Variables.STATE_MACHINE_DATASET_IMPORT, r.handler).toEqual({ Ref: "DatasetimportStateMachineArn" });
      expect(fn.Properties.Environment.Variables.STATE_MACHINE_BATCH, r.handler).toBeUndefined();
    }
  });

  it("may start the machine's executions and describe and stop them, nothing more; others may do none of it", () => {
    const [[smId]] = stateMachineOf(template) as [[string, Json]];
    for (const r of routes) {
      const { fn, statements, scope } = functionOf(r);
      // Workflow engine rights are on the workflow machines' prefix: test/infra/workflow-engine.synth.ts.
      const states = statements.filter((st) => list<string>(st.Action).some((a) => a.startsWith("states:")) && !JSON.stringify(st.Resource).includes(s.api.workflowEngine.refs.machinePrefix) && st.Resource !== "*");
      if (!r.grants.executions) {
        expect(states, r.handler).toEqual([]);
        expect(fn.Properties.Environment.Variables.STATE_MACHINE_BATCH, r.handler).toBeUndefined();
        continue;
      }
      // Rows of another machine of the engine table: checked above.
      if (!r.grants.executions.batch) continue;
      expect(states, r.handler).toEqual([
        { Effect: "Allow", Action: "states:StartExecution", Resource: { Ref: "BatchStateMachineArn" } },
        {
          Effect: "Allow",
          Action: ["states:DescribeExecution", "states:StopExecution"],
          Resource: {
            "Fn::Join": ["", ["arn:", { Ref: "AWS::Partition" }, ":states:", { Ref: "AWS::Region" }, ":", { Ref: "AWS::AccountId" }, ":execution:", { Ref: "BatchStateMachineName" }, ":*"]],
          },
        },
      ]);
      expect(fn.Properties.Environment.Variables.STATE_MACHINE_BATCH, r.handler).toEqual({ Ref: "BatchStateMachineArn" });
      // The parameters are the engine stack's state machine: its Ref (the ARN) and its Name.
      for (const [parameter, attribute] of [["BatchStateMachineArn", "Ref"], ["BatchStateMachineName", "Name"]] as const) {
        const passed = deref({ Ref: parameter }, scope).value["Fn::GetAtt"] as [string, string];
        expect(passed[0], parameter).toBe(s.api.getLogicalId(engine.nestedStackResource as never));
        const output = template.Outputs[passed[1].replace(/^Outputs\./, "")].Value;
        expect(output, parameter).toEqual(attribute === "Ref" ? { Ref: smId } : { "Fn::GetAtt": [smId, "Name"] });
      }
    }
  });
});

describe("the engine stacks", () => {
  it("stay under 400 resources each", () => {
    for (const e of s.api.engines) expect(Object.keys(s.template(e).Resources).length, e.node.path).toBeLessThan(400);
    expect(s.stacks).toEqual(expect.arrayContaining(s.api.engines));
  });

  it("grant no wildcard action, and a `*` resource only to Step Functions' log delivery and to the batch tasks' Textract call", () => {
    for (const e of s.api.engines) {
      const statements = allowStatements(s.template(e));
      expect(statements.length).toBeGreaterThan(Object.keys(row.tasks).length);
      for (const { where, statement } of statements) {
        for (const action of list<string>(statement.Action)) expect(action, where).not.toContain("*");
        if (list<unknown>(statement.Resource).includes("*")) {
          // OCR lines: DetectDocumentText reads the bytes sent with it and has no resource to name (infra/grants.ts).
          if (list<string>(statement.Action).join() === "textract:DetectDocumentText") continue;
          for (const action of list<string>(statement.Action)) expect(action, where).toMatch(/^logs:(Create|Get|Update|Delete|List)LogDeliver(y|ies)$|^logs:(PutResourcePolicy|DescribeResourcePolicies|DescribeLogGroups)$/);
        }
      }
    }
  });
});

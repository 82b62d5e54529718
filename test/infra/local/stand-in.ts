/** Helpers for driving the local Step Functions through @aws-sdk/client-sfn: machines of callback tasks, polling. */
import { join } from "node:path";
import { CreateStateMachineCommand, DescribeExecutionCommand, SFNClient, type DescribeExecutionCommandOutput } from "@aws-sdk/client-sfn";
import { ROOT_DIR } from "../../../infra/local/stack.js";
import { CALLBACK_TASK_RESOURCE, localFunctionArn, startStepFunctions, type LocalStepFunctions, type LocalStepFunctionsOptions } from "../../../infra/local/stepfunctions.js";

type Json = Record<string, any>;

/** The local function the callback tasks invoke: test/support/step-tasks/dispatch.ts. */
export const DISPATCH_ARN = localFunctionArn("test-dispatch");
export const ROLE_ARN = "arn:aws:iam::000000000000:role/test-workflows";
export const taskModule = (handler: string) => join(ROOT_DIR, "test/support/step-tasks", `${handler}.ts`);

/** A Task as the workflow compiler writes it: the dispatcher invoked with a token, the state's input passed on. */
export function callbackTask(state: string, fields: Json = {}): Json {
  return {
    Type: "Task",
    Resource: CALLBACK_TASK_RESOURCE,
    Parameters: {
      FunctionName: DISPATCH_ARN,
      Payload: { "token.$": "$$.Task.Token", "execution.$": "$$.Execution.Id", state, resource: `activity:${state}`, "input.$": "$" },
    },
    ...fields,
  };
}

/** A one-task program (`Work`, result under `$.result`), with the Task's own fields. */
export const oneTask = (fields: Json = {}): Json => ({ StartAt: "Work", States: { Work: callbackTask("Work", { ResultPath: "$.result", End: true, ...fields }) } });

export async function standIn(started: LocalStepFunctions[], options: LocalStepFunctionsOptions = {}) {
  const running = await startStepFunctions({ machines: {}, taskModule, functions: { [DISPATCH_ARN]: "dispatch" }, log: () => undefined, ...options });
  started.push(running);
  return { running, sfn: new SFNClient({ endpoint: running.endpoint }) };
}

let machines = 0;
/** Creates a machine with a fresh name; its ARN. */
export async function aMachine(sfn: SFNClient, definition: Json, publish = false) {
  const out = await sfn.send(new CreateStateMachineCommand({ name: `wf-test-${process.pid}-${++machines}`, definition: JSON.stringify(definition), roleArn: ROLE_ARN, publish }));
  return { arn: out.stateMachineArn!, versionArn: out.stateMachineVersionArn };
}

/** Polls until the execution is no longer RUNNING (bounded). */
export async function settled(sfn: SFNClient, executionArn: string, timeoutMs = 5000): Promise<DescribeExecutionCommandOutput> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const out = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (out.status !== "RUNNING") return out;
    if (Date.now() > deadline) throw new Error(`${executionArn} still RUNNING after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Polls until `value()` is defined (bounded); that value. */
export async function eventually<T>(value: () => T | undefined, what: string, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = value();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

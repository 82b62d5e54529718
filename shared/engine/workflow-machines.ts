import {
  ConflictException,
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  ExecutionDoesNotExist,
  InvalidToken,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StateMachineAlreadyExists,
  StartExecutionCommand,
  StopExecutionCommand,
  TaskDoesNotExist,
  TaskTimedOut,
  UpdateStateMachineCommand,
  type DescribeExecutionCommandOutput,
} from "@aws-sdk/client-sfn";
import { setting, WORKFLOW_TRACING_ENV } from "../config.js";

/**
 * Step Functions for workflows (docs/workflows.md): one Standard machine per workflow, named from its
 * UUID under the project's prefix, one published version per program hash; one execution per run, named
 * by the run's UUID. No tenant string reaches a name or an ARN. Settings: WORKFLOW_MACHINE_PREFIX (the
 * project's prefix, which the IAM policies are scoped to), WORKFLOW_ROLE_ARN (the one role every workflow
 * machine runs as: it may invoke the dispatcher and nothing else), WORKFLOW_DISPATCHER_ARN.
 */
const sfn = new SFNClient({});

export const machineName = (workflowId: string) => `${setting("WORKFLOW_MACHINE_PREFIX")}${workflowId}`;
export const dispatcherArn = () => setting("WORKFLOW_DISPATCHER_ARN");

/**
 * Publishes `definition` as a version of the workflow's machine (creating the machine on first use) and
 * returns the version's ARN. Callers publish once per program hash (they keep the ARN): Step Functions
 * allows one such call per second.
 */
export async function publishProgram(workflowId: string, definition: object, hash: string): Promise<string> {
  const name = machineName(workflowId);
  const document = JSON.stringify(definition);
  // X-Ray when the deployment traces (-c tracing=true); an existing machine picks it up at its next publish.
  const tracing = process.env[WORKFLOW_TRACING_ENV] === "on" ? { tracingConfiguration: { enabled: true } } : {};
  try {
    const out = await sfn.send(
      new CreateStateMachineCommand({ name, definition: document, roleArn: setting("WORKFLOW_ROLE_ARN"), type: "STANDARD", publish: true, versionDescription: hash, ...tracing }),
    );
    return out.stateMachineVersionArn!;
  } catch (error) {
    if (!(error instanceof StateMachineAlreadyExists) && !(error instanceof ConflictException)) throw error;
  }
  const stateMachineArn = machineArnOf(name);
  const out = await sfn.send(new UpdateStateMachineCommand({ stateMachineArn, definition: document, publish: true, versionDescription: hash, ...tracing }));
  return out.stateMachineVersionArn!;
}

/** arn:aws:states:<region>:<account>:stateMachine:<name>, from the dispatcher's ARN (same region and account). */
function machineArnOf(name: string): string {
  const [, partition, , region, account] = dispatcherArn().split(":");
  return `arn:${partition}:states:${region}:${account}:stateMachine:${name}`;
}

/** Starts run `runId` on a published version; starting it again with the same input is the same run. Returns the execution ARN. */
export async function startRun(versionArn: string, runId: string, input: object): Promise<string> {
  const out = await sfn.send(new StartExecutionCommand({ stateMachineArn: versionArn, name: runId, input: JSON.stringify(input) }));
  return out.executionArn!;
}

/** Stops a run's execution; one that is over or unknown is left alone. */
export async function stopRun(executionArn: string, error: string, cause: string): Promise<void> {
  try {
    await sfn.send(new StopExecutionCommand({ executionArn, error, cause }));
  } catch (e) {
    if (e instanceof ExecutionDoesNotExist) return;
    throw e;
  }
}

export async function describeRun(executionArn: string): Promise<DescribeExecutionCommandOutput | undefined> {
  try {
    return await sfn.send(new DescribeExecutionCommand({ executionArn }));
  } catch (e) {
    if (e instanceof ExecutionDoesNotExist) return undefined;
    throw e;
  }
}

/** A token whose task is over (completed, timed out, its execution stopped): completing it again is refused. */
const closedToken = (error: unknown) => error instanceof TaskTimedOut || error instanceof TaskDoesNotExist || error instanceof InvalidToken;

/** Completes a task; false when its task is no longer open. */
export async function completeTask(token: string, output: unknown): Promise<boolean> {
  try {
    await sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: JSON.stringify(output ?? null) }));
    return true;
  } catch (error) {
    if (closedToken(error)) return false;
    throw error;
  }
}

/** Fails a task with an error name the program's Retry/Catch match on; false when its task is no longer open. */
export async function failTask(token: string, error: string, cause: string): Promise<boolean> {
  try {
    await sfn.send(new SendTaskFailureCommand({ taskToken: token, error: error.slice(0, 256), cause: cause.slice(0, 32_768) }));
    return true;
  } catch (e) {
    if (closedToken(e)) return false;
    throw e;
  }
}

/** Keeps a task alive past its HeartbeatSeconds; false when it is no longer open. */
export async function heartbeatTask(token: string): Promise<boolean> {
  try {
    await sfn.send(new SendTaskHeartbeatCommand({ taskToken: token }));
    return true;
  } catch (error) {
    if (closedToken(error)) return false;
    throw error;
  }
}

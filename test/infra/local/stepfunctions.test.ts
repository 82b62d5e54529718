import { randomUUID } from "node:crypto";
import { join } from "node:path";
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  GetExecutionHistoryCommand,
  ListExecutionsCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
  type DescribeExecutionCommandOutput,
} from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stateMachines, type StateMachineRow } from "../../../functions/engine.js";
import { deployedDefinition } from "../../../infra/engine-definition.js";
import { ROOT_DIR } from "../../../infra/local/stack.js";
import { localStateMachineArn, localTaskArn, localTaskResources, startStepFunctions, type LocalStepFunctions } from "../../../infra/local/stepfunctions.js";
import { batchDefinition, CHUNK_CONCURRENCY } from "../../../shared/engine/batch-machine.js";
import { callsOf, type StubJob } from "../../support/step-tasks/calls.js";
import { synth, type Json } from "../synth.js";

/** THE batch machine, its tasks swapped for the stubs in test/support/step-tasks/. */
const stubTasks = { start: "start", runChunk: "chunk", finish: "finish", recordFailure: "record-failure" };
const stubRow: StateMachineRow = {
  ...stateMachines.batch,
  tasks: Object.fromEntries(Object.entries(stubTasks).map(([key, handler]) => [key, { handler, grants: {}, timeoutSeconds: 30 }])),
};
const taskModule = (handler: string) => join(ROOT_DIR, "test/support/step-tasks", `${handler}.ts`);
const MACHINE = localStateMachineArn("batch");

const started: LocalStepFunctions[] = [];
async function standIn(options: Parameters<typeof startStepFunctions>[0] = {}) {
  const running = await startStepFunctions({ machines: { batch: stubRow }, taskModule, log: () => undefined, ...options });
  started.push(running);
  return { running, sfn: new SFNClient({ endpoint: running.endpoint }) };
}
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

const aJob = (overrides: Partial<StubJob> = {}): StubJob => ({ workspace: randomUUID(), jobId: randomUUID(), ...overrides });

/** Polls until the execution is no longer RUNNING (bounded). */
async function settled(sfn: SFNClient, executionArn: string, timeoutMs = 10_000): Promise<DescribeExecutionCommandOutput> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const out = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (out.status !== "RUNNING") return out;
    if (Date.now() > deadline) throw new Error(`${executionArn} still RUNNING after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const start = (sfn: SFNClient, job: StubJob, name = job.jobId) =>
  sfn.send(new StartExecutionCommand({ stateMachineArn: MACHINE, name, input: JSON.stringify(job) }));

describe("the local Step Functions, through @aws-sdk/client-sfn", () => {
  let sfn: SFNClient;
  beforeAll(async () => {
    ({ sfn } = await standIn());
  });

  it("runs an execution in the background to SUCCEEDED, with the last state's output", async () => {
    const job = aJob({ chunks: 2, chunkDelayMs: 100 });
    const { executionArn, startDate } = await start(sfn, job);
    expect(executionArn).toBe(`arn:aws:states:us-east-1:000000000000:execution:batch:${job.jobId}`);
    expect(startDate).toBeInstanceOf(Date);
    expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe("RUNNING");
    const done = await settled(sfn, executionArn!);
    expect(done).toMatchObject({ status: "SUCCEEDED", name: job.jobId, stateMachineArn: MACHINE, input: JSON.stringify(job) });
    expect(JSON.parse(done.output!)).toEqual({ workspace: job.workspace, jobId: job.jobId, finished: true });
    expect(done.stopDate!.getTime()).toBeGreaterThanOrEqual(done.startDate!.getTime());
  });

  it("feeds the Map the items of the S3 manifest Start wrote (ItemReader), each as $$.Map.Item.Value beside the Map's input", async () => {
    const job = aJob({ chunks: 5 });
    const { executionArn } = await start(sfn, job);
    expect((await settled(sfn, executionArn!)).status).toBe("SUCCEEDED");
    const [startCall] = callsOf(job.jobId, "start");
    const startOutput = { ...job, bucket: process.env.BUCKET_FILES, manifestKey: `workspaces/${job.workspace}/batch/${job.jobId}/manifest.json` };
    const chunks = callsOf(job.jobId, "chunk").map((c) => c.input);
    expect(startCall!.input).toEqual(job);
    expect(chunks.toSorted((a, b) => a.chunk.index - b.chunk.index)).toEqual(
      [0, 1, 2, 3, 4].map((index) => ({ job: startOutput, chunk: { index, key: `workspaces/${job.workspace}/batch/${job.jobId}/chunk-${index}.jsonl`, count: index + 1 } })),
    );
    // ResultPath null: Finish sees the Map's input, not the chunk results.
    expect(callsOf(job.jobId, "finish").map((c) => c.input)).toEqual([startOutput]);
  });

  it("runs at most MaxConcurrency items at once", async () => {
    const job = aJob({ chunks: CHUNK_CONCURRENCY * 2 + 1, chunkDelayMs: 150 });
    const { executionArn } = await start(sfn, job);
    expect((await settled(sfn, executionArn!)).status).toBe("SUCCEEDED");
    const starts = callsOf(job.jobId, "chunk").map((c) => c.at);
    const inFirstWave = starts.filter((at) => at - Math.min(...starts) < 100).length;
    expect(starts).toHaveLength(CHUNK_CONCURRENCY * 2 + 1);
    expect(inFirstWave).toBe(CHUNK_CONCURRENCY);
  });

  it("aborts on StopExecution: ABORTED with the given cause, and no task starts afterwards", async () => {
    const job = aJob({ chunks: 40, chunkDelayMs: 200 });
    const { executionArn } = await start(sfn, job);
    await until(() => callsOf(job.jobId, "chunk").length > 0, 5000, "the first chunk");
    const { stopDate } = await sfn.send(new StopExecutionCommand({ executionArn, error: "Cancelled", cause: "the user cancelled the job" }));
    const stoppedAt = Date.now();
    expect(stopDate).toBeInstanceOf(Date);
    expect(await sfn.send(new DescribeExecutionCommand({ executionArn }))).toMatchObject({ status: "ABORTED", error: "Cancelled", cause: "the user cancelled the job" });
    // Long enough for the chunks in flight to end and, were the Map still going, the next ones to start.
    await new Promise((r) => setTimeout(r, 700));
    const chunks = callsOf(job.jobId, "chunk");
    expect(chunks.length).toBeLessThanOrEqual(CHUNK_CONCURRENCY);
    expect(chunks.filter((c) => c.at > stoppedAt)).toEqual([]);
    expect(callsOf(job.jobId, "finish")).toEqual([]);
    expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe("ABORTED");
  });

  it("keeps the execution's history: the tasks as Lambda invocations, the Map as the Task that emulates it", async () => {
    const job = aJob({ chunks: 1 });
    const { executionArn } = await start(sfn, job);
    await settled(sfn, executionArn!);
    const { events } = await sfn.send(new GetExecutionHistoryCommand({ executionArn }));
    const types = events!.map((e) => e.type);
    expect(types.slice(0, 7)).toEqual([
      "ExecutionStarted",
      "TaskStateEntered",
      "LambdaFunctionScheduled",
      "LambdaFunctionStarted",
      "LambdaFunctionSucceeded",
      "TaskStateExited",
      "TaskStateEntered",
    ]);
    expect(types.at(-1)).toBe("ExecutionSucceeded");
    expect(events![1]!.stateEnteredEventDetails).toEqual({ name: "Start", input: JSON.stringify(job), inputDetails: { truncated: false } });
    expect(events![2]!.lambdaFunctionScheduledEventDetails!.resource).toBe(localTaskArn("batch", "start"));
    // The chunks run in the Map Run's child executions, whose events are not the parent's.
    const invoked = events!.filter((e) => e.type === "LambdaFunctionScheduled").map((e) => e.lambdaFunctionScheduledEventDetails!.resource);
    expect(invoked).toEqual([localTaskArn("batch", "start"), localTaskArn("batch", "finish")]);
  });

  it("leaves a finished execution as it is on StopExecution", async () => {
    const job = aJob({ chunks: 1 });
    const { executionArn } = await start(sfn, job);
    const done = await settled(sfn, executionArn!);
    const { stopDate } = await sfn.send(new StopExecutionCommand({ executionArn }));
    expect(stopDate).toEqual(done.stopDate);
    expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe("SUCCEEDED");
  });

  it("takes the Catch path when a task throws: RecordFailure gets the error as Lambda reports it, then Failed", async () => {
    const job = aJob({ failStart: "InputRejected" });
    const { executionArn } = await start(sfn, job);
    const done = await settled(sfn, executionArn!);
    expect(done).toMatchObject({ status: "FAILED", error: "BatchJobFailed", cause: "The batch job could not run; its record says why" });
    const [failure] = callsOf(job.jobId, "recordFailure").map((c) => c.input);
    expect(failure).toMatchObject({ ...job, failure: { Error: "InputRejected" } });
    expect(JSON.parse(failure.failure.Cause)).toMatchObject({ errorType: "InputRejected", errorMessage: `start refused job ${job.jobId}` });
    expect(callsOf(job.jobId, "chunk")).toEqual([]);
  });

  it("fails the Map when an item fails, as a Map Run does, stops the other items and runs the Catch path", async () => {
    const job = aJob({ chunks: 30, failChunk: 1, chunkDelayMs: 50 });
    const { executionArn } = await start(sfn, job);
    expect((await settled(sfn, executionArn!)).status).toBe("FAILED");
    const [failure] = callsOf(job.jobId, "recordFailure").map((c) => c.input);
    expect(failure.failure.Error).toBe("States.ExceedToleratedFailureThreshold");
    expect(failure).toMatchObject({ jobId: job.jobId, manifestKey: expect.any(String) });
    expect(callsOf(job.jobId, "chunk").length).toBeLessThan(30);
    expect(callsOf(job.jobId, "finish")).toEqual([]);
  });

  it("fails the Map with States.ItemReaderFailed when the manifest is not there", async () => {
    const job = aJob({ noManifest: true });
    const { executionArn } = await start(sfn, job);
    expect((await settled(sfn, executionArn!)).status).toBe("FAILED");
    const [failure] = callsOf(job.jobId, "recordFailure").map((c) => c.input);
    expect(failure.failure).toMatchObject({ Error: "States.ItemReaderFailed", Cause: expect.stringContaining("manifest.json") });
  });

  it("answers a repeated StartExecution with the same name and input while it runs with the same execution", async () => {
    const job = aJob({ chunks: 8, chunkDelayMs: 150 });
    const first = await start(sfn, job);
    const again = await start(sfn, job);
    expect(again.executionArn).toBe(first.executionArn);
    expect(again.startDate).toEqual(first.startDate);
    await expect(start(sfn, { ...job, chunks: 9 }, job.jobId)).rejects.toBeInstanceOf(ExecutionAlreadyExists);
    await sfn.send(new StopExecutionCommand({ executionArn: first.executionArn }));
    // Once it is over, Step Functions refuses the name even with the same input.
    await expect(start(sfn, job)).rejects.toBeInstanceOf(ExecutionAlreadyExists);
    const listed = await sfn.send(new ListExecutionsCommand({ stateMachineArn: MACHINE, statusFilter: "ABORTED" }));
    expect(listed.executions!.filter((e) => e.name === job.jobId)).toHaveLength(1);
  });

  it("answers ExecutionDoesNotExist for an execution it does not know", async () => {
    const executionArn = `arn:aws:states:us-east-1:000000000000:execution:batch:${randomUUID()}`;
    await expect(sfn.send(new DescribeExecutionCommand({ executionArn }))).rejects.toBeInstanceOf(ExecutionDoesNotExist);
    await expect(sfn.send(new StopExecutionCommand({ executionArn }))).rejects.toBeInstanceOf(ExecutionDoesNotExist);
  });

  it("lists a machine's executions newest first, by status, in pages", async () => {
    const jobs = [aJob({ chunks: 1 }), aJob({ chunks: 1 }), aJob({ chunks: 1 })];
    for (const job of jobs) await settled(sfn, (await start(sfn, job)).executionArn!);
    const page = await sfn.send(new ListExecutionsCommand({ stateMachineArn: MACHINE, statusFilter: "SUCCEEDED", maxResults: 2 }));
    expect(page.executions!.map((e) => e.name)).toEqual([jobs[2]!.jobId, jobs[1]!.jobId]);
    expect(page.executions!.every((e) => e.status === "SUCCEEDED")).toBe(true);
    const next = await sfn.send(new ListExecutionsCommand({ stateMachineArn: MACHINE, statusFilter: "SUCCEEDED", maxResults: 2, nextToken: page.nextToken }));
    expect(next.executions![0]!.name).toBe(jobs[0]!.jobId);
  });
});

describe("the local engine's limits", () => {
  it("times an execution out after the definition's TimeoutSeconds", async () => {
    const definition = { ...deployedDefinition(stubRow, localTaskResources("batch", stubRow)), TimeoutSeconds: 1 };
    const { sfn } = await standIn({ definitions: { batch: definition } });
    const job = aJob({ chunks: 20, chunkDelayMs: 400 });
    const { executionArn } = await start(sfn, job);
    const done = await settled(sfn, executionArn!, 5000);
    expect(done).toMatchObject({ status: "TIMED_OUT", error: "States.Timeout" });
    expect(done.stopDate!.getTime() - done.startDate!.getTime()).toBeGreaterThanOrEqual(900);
  });

  it("refuses, when it starts, a Task naming anything but one of the machine's own tasks", async () => {
    const definition = deployedDefinition(stubRow, { ...localTaskResources("batch", stubRow), finish: "arn:aws:lambda:us-east-1:123456789012:function:elsewhere" });
    await expect(standIn({ definitions: { batch: definition } })).rejects.toThrow(/Task Finish names arn:aws:lambda:us-east-1:123456789012:function:elsewhere/);
  });

  it("refuses Distributed Map features it does not emulate instead of ignoring them", async () => {
    const base = deployedDefinition(stubRow, localTaskResources("batch", stubRow)) as Json;
    const definition = { ...base, States: { ...base.States, Requests: { ...base.States.Requests, ToleratedFailurePercentage: 5 } } };
    await expect(standIn({ definitions: { batch: definition } })).rejects.toThrow(/ToleratedFailurePercentage/);
  });

  it("fails a task whose module is missing as Lambda does (Runtime.ImportModuleError), through the Catch path", async () => {
    const { sfn } = await standIn({ taskModule: (h) => (h === "chunk" ? join(ROOT_DIR, "test/support/step-tasks/missing.ts") : taskModule(h)) });
    const job = aJob({ chunks: 1 });
    expect((await settled(sfn, (await start(sfn, job)).executionArn!)).status).toBe("FAILED");
    expect(callsOf(job.jobId, "recordFailure")[0]!.input.failure.Error).toBe("States.ExceedToleratedFailureThreshold");
  });
});

describe("shared/engine/executions.ts against the local Step Functions", () => {
  let executions: typeof import("../../../shared/engine/executions.js");
  let sfn: SFNClient;
  const saved = { endpoint: process.env.AWS_ENDPOINT_URL_SFN, arn: process.env.STATE_MACHINE_BATCH };

  beforeAll(async () => {
    const { running, sfn: client } = await standIn();
    sfn = client;
    // Before the module loads: its client is built from the environment, as in a Lambda function.
    Object.assign(process.env, running.env);
    executions = await import("../../../shared/engine/executions.js");
  });
  afterAll(() => {
    process.env.AWS_ENDPOINT_URL_SFN = saved.endpoint;
    process.env.STATE_MACHINE_BATCH = saved.arn;
  });

  it("starts an execution named after the job and returns its ARN; again with the same input, the same ARN, even once it is over", async () => {
    const job = aJob({ chunks: 1 });
    const arn = await executions.startExecution("batch", job.jobId, job);
    expect(arn).toBe(`${MACHINE.replace(":stateMachine:", ":execution:")}:${job.jobId}`);
    await settled(sfn, arn);
    expect(await executions.startExecution("batch", job.jobId, { ...job })).toBe(arn);
    expect(callsOf(job.jobId, "start")).toHaveLength(1);
  });

  it("refuses the same name with another input", async () => {
    const job = aJob({ chunks: 1 });
    await executions.startExecution("batch", job.jobId, job);
    await expect(executions.startExecution("batch", job.jobId, { ...job, chunks: 2 })).rejects.toBeInstanceOf(ExecutionAlreadyExists);
  });

  it("stops a running execution, and leaves alone one that is over or unknown", async () => {
    const job = aJob({ chunks: 20, chunkDelayMs: 200 });
    const arn = await executions.startExecution("batch", job.jobId, job);
    await executions.stopExecution(arn, "cancelled");
    expect(await sfn.send(new DescribeExecutionCommand({ executionArn: arn }))).toMatchObject({ status: "ABORTED", cause: "cancelled" });
    await expect(executions.stopExecution(arn, "again")).resolves.toBeUndefined();
    await expect(executions.stopExecution(`${MACHINE.replace(":stateMachine:", ":execution:")}:${randomUUID()}`, "unknown")).resolves.toBeUndefined();
  });
});

describe("the same definition in the cloud and locally", () => {
  let resolved: Json;

  beforeAll(async () => {
    const s = await synth({ validate: false });
    const engine = s.api.engines.find((e) => e.machine === "batch")!;
    const template = s.template(engine);
    const [stateMachine] = Object.values(template.Resources as Json).filter((r) => r.Type === "AWS::StepFunctions::StateMachine");
    // The function ARNs CloudFormation would write, replaced by the ARNs the local engine maps to the same tasks.
    const taskOf = new Map(Object.entries(engine.tasks).map(([key, fn]) => [engine.getLogicalId(fn.fn.node.defaultChild as never), key]));
    const resolve = (value: unknown): string => {
      if (typeof value === "string") return value;
      const v = value as Json;
      if (v["Fn::Join"]) return (v["Fn::Join"][1] as unknown[]).map(resolve).join(v["Fn::Join"][0]);
      if (v["Fn::GetAtt"]?.[1] === "Arn" && taskOf.has(v["Fn::GetAtt"][0])) return localTaskArn("batch", taskOf.get(v["Fn::GetAtt"][0])!);
      throw new Error(`Unexpected intrinsic in the definition: ${JSON.stringify(value)}`);
    };
    resolved = JSON.parse(resolve(stateMachine!.Properties.DefinitionString));
  }, 180_000);

  it("deploys exactly batchDefinition with the task functions' ARNs, plus the execution timeout", () => {
    const { TimeoutSeconds, ...definition } = resolved;
    expect(definition).toEqual(batchDefinition(localTaskResources("batch", stateMachines.batch) as never));
    expect(TimeoutSeconds).toBe(stateMachines.batch.timeoutHours * 3600);
    expect(resolved).toEqual(deployedDefinition(stateMachines.batch, localTaskResources("batch", stateMachines.batch)));
  });

  it("runs the synthesized document locally, Distributed Map included", async () => {
    const { sfn } = await standIn({ definitions: { batch: resolved } });
    const job = aJob({ chunks: 3 });
    const done = await settled(sfn, (await start(sfn, job)).executionArn!);
    expect(done.status).toBe("SUCCEEDED");
    expect(callsOf(job.jobId, "chunk").map((c) => c.input.chunk.index).toSorted()).toEqual([0, 1, 2]);
    expect(callsOf(job.jobId, "finish")).toHaveLength(1);
  });
});

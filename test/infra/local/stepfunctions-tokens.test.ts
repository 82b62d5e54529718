import {
  GetExecutionHistoryCommand,
  InvalidToken,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
  TaskTimedOut,
} from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalStepFunctions } from "../../../infra/local/stepfunctions.js";
import { dispatchedTo, type DispatchPayload } from "../../support/step-tasks/dispatch.js";
import { aMachine, callbackTask, eventually, oneTask, settled, standIn } from "./stand-in.js";

type Json = Record<string, any>;

const started: LocalStepFunctions[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

let sfn: SFNClient;
let endpoint: string;
beforeAll(async () => {
  const { running, sfn: client } = await standIn(started);
  sfn = client;
  endpoint = running.endpoint;
});

async function run(definition: Json, input: Json = {}) {
  const { arn } = await aMachine(sfn, definition);
  const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: arn, input: JSON.stringify(input) }));
  return executionArn!;
}

/** The `n`th dispatch (from 1) of a state of the execution, once it happened. */
const dispatch = (executionArn: string, state: string, n = 1): Promise<DispatchPayload> =>
  eventually(() => dispatchedTo(executionArn, state)[n - 1], `dispatch ${n} of ${state}`);

describe("waitForTaskToken tasks on local functions", () => {
  it("invokes the function with the evaluated Payload and a fresh token, and takes SendTaskSuccess's output as the task's result", async () => {
    const executionArn = await run(oneTask(), { doc: "the text" });
    const payload = await dispatch(executionArn, "Work");
    expect(payload).toEqual({ token: expect.stringMatching(/^[A-Za-z0-9_-]{100}$/), execution: executionArn, state: "Work", resource: "activity:Work", input: { doc: "the text" } });
    await sfn.send(new SendTaskSuccessCommand({ taskToken: payload.token, output: JSON.stringify({ summary: "short" }) }));
    const done = await settled(sfn, executionArn);
    expect(done.status).toBe("SUCCEEDED");
    expect(JSON.parse(done.output!)).toEqual({ doc: "the text", result: { summary: "short" } });
  });

  it("lets the function complete its own token over HTTP while it is being invoked", async () => {
    const executionArn = await run(oneTask(), { act: { endpoint, succeed: [1, 2] } });
    const done = await settled(sfn, executionArn);
    expect(done.status).toBe("SUCCEEDED");
    expect(JSON.parse(done.output!).result).toEqual([1, 2]);
  });

  it("fails the task with SendTaskFailure's error and cause, which Retry matches: the function is invoked again with a new token", async () => {
    const executionArn = await run(oneTask({ Retry: [{ ErrorEquals: ["Worker.Crashed"], IntervalSeconds: 0, MaxAttempts: 2 }] }));
    const first = await dispatch(executionArn, "Work");
    await sfn.send(new SendTaskFailureCommand({ taskToken: first.token, error: "Worker.Crashed", cause: "the worker went away" }));
    const second = await dispatch(executionArn, "Work", 2);
    expect(second.token).not.toBe(first.token);
    await expect(sfn.send(new SendTaskSuccessCommand({ taskToken: first.token, output: "{}" }))).rejects.toBeInstanceOf(TaskTimedOut);
    await sfn.send(new SendTaskSuccessCommand({ taskToken: second.token, output: '"ok"' }));
    expect(JSON.parse((await settled(sfn, executionArn)).output!).result).toBe("ok");
  });

  it("hands SendTaskFailure's error to Catch, and fails the execution with it where nothing catches it", async () => {
    const caught = await run({
      StartAt: "Work",
      States: { Work: callbackTask("Work", { Catch: [{ ErrorEquals: ["Activity.Failed"], ResultPath: "$.failure", Next: "Recover" }], End: true }), Recover: { Type: "Pass", End: true } },
    });
    await sfn.send(new SendTaskFailureCommand({ taskToken: (await dispatch(caught, "Work")).token, error: "Activity.Failed", cause: "bad input" }));
    const recovered = await settled(sfn, caught);
    expect(recovered.status).toBe("SUCCEEDED");
    expect(JSON.parse(recovered.output!).failure).toEqual({ Error: "Activity.Failed", Cause: "bad input" });

    const uncaught = await run(oneTask());
    await sfn.send(new SendTaskFailureCommand({ taskToken: (await dispatch(uncaught, "Work")).token, error: "Activity.Failed", cause: "bad input" }));
    expect(await settled(sfn, uncaught)).toMatchObject({ status: "FAILED", error: "Activity.Failed", cause: "bad input" });
  });

  it("fails the task with Lambda's error when the function throws", async () => {
    const executionArn = await run(oneTask(), { throws: "DispatchRefused" });
    const done = await settled(sfn, executionArn);
    expect(done).toMatchObject({ status: "FAILED", error: "DispatchRefused" });
    expect(JSON.parse(done.cause!)).toMatchObject({ errorType: "DispatchRefused", errorMessage: "dispatch refused Work" });
  });

  it("times a task out with States.HeartbeatTimeout when no heartbeat comes, which a States.Timeout retrier retries with a new token", async () => {
    const executionArn = await run(oneTask({ HeartbeatSeconds: 1, Retry: [{ ErrorEquals: ["States.Timeout"], IntervalSeconds: 0, MaxAttempts: 1 }] }));
    const first = await dispatch(executionArn, "Work");
    const second = await eventually(() => dispatchedTo(executionArn, "Work")[1], "the retry", 1500);
    expect(second.token).not.toBe(first.token);
    await expect(sfn.send(new SendTaskHeartbeatCommand({ taskToken: first.token }))).rejects.toBeInstanceOf(TaskTimedOut);
    await sfn.send(new SendTaskSuccessCommand({ taskToken: second.token, output: "{}" }));
    expect((await settled(sfn, executionArn)).status).toBe("SUCCEEDED");
    const { events } = await sfn.send(new GetExecutionHistoryCommand({ executionArn }));
    expect(events!.filter((e) => e.type === "TaskTimedOut").map((e) => e.taskTimedOutEventDetails)).toEqual([
      expect.objectContaining({ error: "States.HeartbeatTimeout", resourceType: "lambda", resource: "invoke.waitForTaskToken" }),
    ]);
  });

  it("keeps a task alive while heartbeats come in time", async () => {
    const executionArn = await run(oneTask({ HeartbeatSeconds: 1 }));
    const { token } = await dispatch(executionArn, "Work");
    for (let beat = 0; beat < 2; beat++) {
      await new Promise((r) => setTimeout(r, 600));
      await sfn.send(new SendTaskHeartbeatCommand({ taskToken: token }));
    }
    await sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: "true" }));
    expect((await settled(sfn, executionArn)).status).toBe("SUCCEEDED");
  });

  it("times a task out with States.Timeout after TimeoutSeconds, which States.TaskFailed does not catch", async () => {
    const executionArn = await run({
      StartAt: "Work",
      States: {
        Work: callbackTask("Work", { TimeoutSeconds: 1, Catch: [{ ErrorEquals: ["States.TaskFailed"], Next: "Caught" }], End: true }),
        Caught: { Type: "Pass", End: true },
      },
    });
    const { token } = await dispatch(executionArn, "Work");
    expect(await settled(sfn, executionArn, 1800)).toMatchObject({ status: "FAILED", error: "States.Timeout" });
    await expect(sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: "{}" }))).rejects.toBeInstanceOf(TaskTimedOut);
  });

  it("ends the task of a stopped execution: ABORTED, and its token answers TaskTimedOut", async () => {
    const executionArn = await run(oneTask());
    const { token } = await dispatch(executionArn, "Work");
    await sfn.send(new StopExecutionCommand({ executionArn, error: "Workflow.Terminated", cause: "terminated by the user" }));
    expect(await settled(sfn, executionArn)).toMatchObject({ status: "ABORTED", error: "Workflow.Terminated" });
    await expect(sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: "{}" }))).rejects.toBeInstanceOf(TaskTimedOut);
    await expect(sfn.send(new SendTaskFailureCommand({ taskToken: token, error: "late" }))).rejects.toBeInstanceOf(TaskTimedOut);
  });

  it("answers InvalidToken for a token it never wrote, and InvalidOutput for output that is not JSON", async () => {
    await expect(sfn.send(new SendTaskSuccessCommand({ taskToken: "garbage", output: "{}" }))).rejects.toBeInstanceOf(InvalidToken);
    const executionArn = await run(oneTask());
    const { token } = await dispatch(executionArn, "Work");
    await expect(sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: "{not json" }))).rejects.toMatchObject({ name: "InvalidOutput" });
    await sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: "1" }));
    expect((await settled(sfn, executionArn)).status).toBe("SUCCEEDED");
  });

  it("runs tasks nested in Parallel branches and inline Map iterations, one token each", async () => {
    const executionArn = await run(
      {
        StartAt: "Both",
        States: {
          Both: {
            Type: "Parallel",
            Branches: [
              { StartAt: "Left", States: { Left: callbackTask("Left", { End: true }) } },
              { StartAt: "Each", States: { Each: { Type: "Map", ItemsPath: "$.items", ItemProcessor: { StartAt: "Item", States: { Item: callbackTask("Item", { End: true }) } }, End: true } } },
            ],
            End: true,
          },
        },
      },
      { items: ["a", "b"] },
    );
    const left = await dispatch(executionArn, "Left");
    const items = await eventually(() => (dispatchedTo(executionArn, "Item").length === 2 ? dispatchedTo(executionArn, "Item") : undefined), "both items");
    expect(new Set([left.token, ...items.map((i) => i.token)]).size).toBe(3);
    expect(items.map((i) => i.input).sort()).toEqual(["a", "b"]);
    await sfn.send(new SendTaskSuccessCommand({ taskToken: left.token, output: '"L"' }));
    for (const item of items) await sfn.send(new SendTaskSuccessCommand({ taskToken: item.token, output: JSON.stringify(`done ${String(item.input)}`) }));
    expect(JSON.parse((await settled(sfn, executionArn)).output!)).toEqual(["L", ["done a", "done b"]]);
  });
});

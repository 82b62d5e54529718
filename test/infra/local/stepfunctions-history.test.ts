import { GetExecutionHistoryCommand, SendTaskFailureCommand, SendTaskSuccessCommand, SFNClient, StartExecutionCommand, type HistoryEvent } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalStepFunctions } from "../../../infra/local/stepfunctions.js";
import type { StatusChangeEvent } from "../../../shared/engine/status-change.js";
import { dispatchedTo } from "../../support/step-tasks/dispatch.js";
import { statusChanges } from "../../support/step-tasks/status-change.js";
import { aMachine, callbackTask, eventually, ROLE_ARN, settled, standIn } from "./stand-in.js";

const started: LocalStepFunctions[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

const events: StatusChangeEvent[] = [];
let sfn: SFNClient;
beforeAll(async () => {
  ({ sfn } = await standIn(started, {
    onStatusChange: (event) => {
      events.push(event);
      // A listener that fails is logged; the stand-in goes on.
      if (event.detail.name === "listener-fails") throw new Error("the listener broke");
    },
  }));
});

/** Prepare (Pass) → Summarize (task) → Done (Pass), as a compiled workflow program looks. */
const program = {
  StartAt: "Prepare",
  States: {
    Prepare: { Type: "Pass", Parameters: { "doc.$": "$.text" }, Next: "Summarize" },
    Summarize: callbackTask("Summarize", { Retry: [{ ErrorEquals: ["Worker.Lost"], IntervalSeconds: 0 }], ResultPath: "$.summary", Next: "Done" }),
    Done: { Type: "Pass", End: true },
  },
};

async function runProgram(name: string) {
  const { arn, versionArn } = await aMachine(sfn, program, true);
  const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: versionArn, name, input: JSON.stringify({ text: "hello" }) }));
  const first = await eventually(() => dispatchedTo(executionArn!, "Summarize")[0], "the dispatch");
  await sfn.send(new SendTaskFailureCommand({ taskToken: first.token, error: "Worker.Lost", cause: "gone" }));
  const second = await eventually(() => dispatchedTo(executionArn!, "Summarize")[1], "the retry");
  await sfn.send(new SendTaskSuccessCommand({ taskToken: second.token, output: JSON.stringify({ short: "hi" }) }));
  await settled(sfn, executionArn!);
  return { arn, versionArn: versionArn!, executionArn: executionArn! };
}

async function wholeHistory(executionArn: string, pageSize: number): Promise<HistoryEvent[]> {
  const all: HistoryEvent[] = [];
  let nextToken: string | undefined;
  do {
    const page = await sfn.send(new GetExecutionHistoryCommand({ executionArn, maxResults: pageSize, nextToken }));
    expect(page.events!.length).toBeLessThanOrEqual(pageSize);
    all.push(...page.events!);
    nextToken = page.nextToken;
  } while (nextToken);
  return all;
}

describe("GetExecutionHistory", () => {
  it("numbers the events from 1, in pages, with each state's entered input and the task's attempts", async () => {
    const { versionArn, executionArn } = await runProgram("history");
    const history = await wholeHistory(executionArn, 4);
    expect(history.map((e) => e.id)).toEqual(history.map((_, i) => i + 1));
    expect(history.map((e) => e.previousEventId)).toEqual(history.map((_, i) => i));
    expect(history.map((e) => e.type)).toEqual([
      "ExecutionStarted",
      "PassStateEntered",
      "PassStateExited",
      "TaskStateEntered",
      "TaskScheduled",
      "TaskStarted",
      "TaskSubmitted",
      "TaskFailed",
      "TaskScheduled",
      "TaskStarted",
      "TaskSubmitted",
      "TaskSucceeded",
      "TaskStateExited",
      "PassStateEntered",
      "PassStateExited",
      "ExecutionSucceeded",
    ]);
    expect(history[0]!.executionStartedEventDetails).toMatchObject({ input: JSON.stringify({ text: "hello" }), roleArn: ROLE_ARN, stateMachineVersionArn: versionArn });
    const entered = history.filter((e) => e.type!.endsWith("StateEntered")).map((e) => e.stateEnteredEventDetails);
    expect(entered.map((d) => [d!.name, JSON.parse(d!.input!)])).toEqual([
      ["Prepare", { text: "hello" }],
      ["Summarize", { doc: "hello" }],
      ["Done", { doc: "hello", summary: { short: "hi" } }],
    ]);
    const scheduled = JSON.parse(history.find((e) => e.type === "TaskScheduled")!.taskScheduledEventDetails!.parameters!);
    expect(scheduled.Payload).toMatchObject({ token: dispatchedTo(executionArn, "Summarize")[0]!.token, state: "Summarize", input: { doc: "hello" } });
    expect(history.find((e) => e.type === "TaskFailed")!.taskFailedEventDetails).toMatchObject({ error: "Worker.Lost", cause: "gone" });
    expect(history.at(-1)!.executionSucceededEventDetails!.output).toBe(JSON.stringify({ doc: "hello", summary: { short: "hi" } }));
    expect(history.every((e) => e.timestamp instanceof Date)).toBe(true);
  });

  it("pages newest first with reverseOrder, and leaves the data out when asked", async () => {
    const { executionArn } = await runProgram("history-reversed");
    const reversed = await sfn.send(new GetExecutionHistoryCommand({ executionArn, reverseOrder: true, maxResults: 2, includeExecutionData: false }));
    expect(reversed.events!.map((e) => e.type)).toEqual(["ExecutionSucceeded", "PassStateExited"]);
    expect(reversed.events![1]!.stateExitedEventDetails).toEqual({ name: "Done" });
    expect(reversed.nextToken).toBeDefined();
  });
});

describe("status-change events", () => {
  it("are EventBridge's Step Functions Execution Status Change events, RUNNING then how it ended", async () => {
    const { arn, versionArn, executionArn } = await runProgram("notified");
    const mine = await eventually(() => {
      const found = events.filter((e) => e.detail.executionArn === executionArn);
      return found.length === 2 ? found : undefined;
    }, "two events");
    expect(mine.map((e) => e.detail.status)).toEqual(["RUNNING", "SUCCEEDED"]);
    const [running, succeeded] = mine as [StatusChangeEvent, StatusChangeEvent];
    expect(running).toEqual({
      version: "0",
      id: expect.any(String),
      "detail-type": "Step Functions Execution Status Change",
      source: "aws.states",
      account: "000000000000",
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      region: "us-east-1",
      resources: [executionArn],
      detail: {
        executionArn,
        stateMachineArn: arn,
        stateMachineVersionArn: versionArn,
        name: "notified",
        status: "RUNNING",
        startDate: expect.any(Number),
        stopDate: null,
        input: JSON.stringify({ text: "hello" }),
        output: null,
        error: null,
        cause: null,
        inputDetails: { included: true },
        outputDetails: null,
      },
    });
    expect(succeeded.detail).toMatchObject({
      status: "SUCCEEDED",
      startDate: running.detail.startDate,
      output: JSON.stringify({ doc: "hello", summary: { short: "hi" } }),
      outputDetails: { included: true },
    });
    expect(succeeded.detail.stopDate).toBeGreaterThanOrEqual(running.detail.startDate);
  });

  it("go on after a listener throws, and say how an execution failed", async () => {
    const { versionArn } = await aMachine(sfn, { StartAt: "Fail", States: { Fail: { Type: "Fail", Error: "Workflow.Failed", Cause: "on purpose" } } }, true);
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: versionArn, name: "listener-fails" }));
    const failed = await eventually(() => events.find((e) => e.detail.executionArn === executionArn && e.detail.status === "FAILED"), "the FAILED event");
    expect(failed.detail).toMatchObject({ error: "Workflow.Failed", cause: "on purpose", output: null });
  });

  it("reach a handler module named by onStatusChangeHandler, and a failing listener is logged", async () => {
    const logged: string[] = [];
    const other = await standIn(started, {
      onStatusChangeHandler: "status-change",
      onStatusChange: () => {
        throw new Error("the listener broke");
      },
      log: (message) => logged.push(message),
    });
    const { versionArn } = await aMachine(other.sfn, { StartAt: "Done", States: { Done: { Type: "Succeed" } } }, true);
    const { executionArn } = await other.sfn.send(new StartExecutionCommand({ stateMachineArn: versionArn, name: "to-module" }));
    const received = await eventually(() => {
      const found = statusChanges.filter((c) => c.event.detail.executionArn === executionArn);
      return found.length === 2 ? found : undefined;
    }, "both events in the module");
    expect(received.map((c) => c.event.detail.status)).toEqual(["RUNNING", "SUCCEEDED"]);
    expect(typeof received[0]!.context.getRemainingTimeInMillis).toBe("function");
    expect(logged.filter((m) => m.includes("the listener broke"))).toHaveLength(2);
  });
});

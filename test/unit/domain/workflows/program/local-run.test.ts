import "../../../../../infra/local/polyfills.js";
import { ExecutionError, StateMachine, type StateMachineDefinition } from "aws-local-stepfunctions";
import { describe, expect, it } from "vitest";
import { compileProgram, resumeInput, type DispatchEvent, type Program } from "../../../../../shared/domain/workflows/program/index.js";
import { everyConstructProgram, exampleProgram } from "../../../../support/workflow-programs.js";

/**
 * The compiled document run by aws-local-stepfunctions, as the local engine will run it: every Task state is
 * answered by a handler keyed by its name, which receives what the dispatcher would (the Lambda's Parameters).
 */
const dispatcherArn = "arn:aws:lambda:us-east-1:000000000000:function:dispatcher";
type Invocation = { FunctionName: string; Payload: DispatchEvent };

function runLocally(program: Program, input: unknown, answers: Record<string, (event: DispatchEvent) => unknown>) {
  const { definition } = compileProgram(program, { dispatcherArn });
  const machine = new StateMachine(definition as unknown as StateMachineDefinition, { validationOptions: { checkArn: false } });
  const calls: DispatchEvent[] = [];
  const handlers = Object.fromEntries(
    Object.entries(answers).map(([state, answer]) => [
      state,
      async (invocation: unknown) => {
        const { FunctionName, Payload } = invocation as Invocation;
        expect(FunctionName).toBe(dispatcherArn);
        calls.push(Payload);
        return answer(Payload) as never;
      },
    ]),
  );
  const execution = machine.run(input as never, {
    overrides: { taskResourceLocalHandlers: handlers, retryIntervalOverrides: {} },
    context: { Execution: { Id: "arn:aws:states:us-east-1:000000000000:execution:wf-x:run-1", Input: input as never }, Task: { Token: "LOCAL" } },
  });
  return { result: execution.result, calls };
}

const exampleAnswers = {
  ReadFile: () => ({ content: "the document", message: { role: "user", content: "the document" } }),
  AskModel: () => ({ choices: [{ message: { content: "an answer" } }] }),
  Summarize: () => "a summary",
  Publish: () => ({}),
};

describe("a compiled program run locally", () => {
  it("runs the example from its StartAt, each Task reaching the dispatcher with its state, resource, input and checkpoint", async () => {
    const { result, calls } = runLocally(exampleProgram(), { path: "/docs/a.txt" }, exampleAnswers);

    expect(await result).toStrictEqual({
      path: "/docs/a.txt",
      doc: { content: "the document", message: { role: "user", content: "the document" } },
      model: { answer: "an answer" },
      summary: "a summary",
    });
    expect(calls.map(({ state, resource }) => [state, resource])).toStrictEqual([
      ["ReadFile", "activity:read_file"],
      ["AskModel", "platform:model"],
      ["Summarize", "activity:summarize"],
      ["Publish", "platform:publish_state"],
    ]);
    expect(calls[0]).toStrictEqual({
      token: "LOCAL",
      execution: "arn:aws:states:us-east-1:000000000000:execution:wf-x:run-1",
      state: "ReadFile",
      resource: "activity:read_file",
      input: { path: "/docs/a.txt" },
      checkpoint: { path: "/docs/a.txt" },
    });
    expect(calls[1]!.input).toStrictEqual({ model: "mistral-small-latest", messages: [{ role: "user", content: "the document" }] });
  });

  it("re-enters the state __resume names, with its input, skipping the states before it", async () => {
    const checkpoint = { path: "/docs/a.txt", doc: { content: "kept" }, model: { answer: "kept answer" } };
    const { result, calls } = runLocally(exampleProgram(), resumeInput("Summarize", checkpoint), exampleAnswers);

    expect(await result).toStrictEqual({ ...checkpoint, summary: "a summary" });
    expect(calls.map((call) => call.state)).toStrictEqual(["Summarize", "Publish"]);
    expect(calls[0]).toMatchObject({ input: { text: "kept", hint: "kept answer" }, checkpoint });
  });

  it("can resume into a terminal state", async () => {
    const { result, calls } = runLocally(exampleProgram(), resumeInput("Done", { finished: true }), exampleAnswers);

    expect(await result).toStrictEqual({ finished: true });
    expect(calls).toStrictEqual([]);
  });

  it("fails the run when __resume names no top-level state", async () => {
    const { result } = runLocally(exampleProgram(), resumeInput("Gone", {}), exampleAnswers);

    await expect(result).rejects.toThrow(ExecutionError);
    await expect(result).rejects.toMatchObject({ cause: { name: "Platform.ResumeStateUnknown" } });
  });

  it("checkpoints the raw input of a top-level Task whose InputPath was folded into its input", async () => {
    const program: Program = { StartAt: "Step", States: { Step: { Type: "Task", Resource: "activity:a", InputPath: "$.doc", Parameters: { "t.$": "$.text" }, End: true } } };
    const { result, calls } = runLocally(program, { doc: { text: "x" }, other: 1 }, { Step: () => "done" });

    expect(await result).toBe("done");
    expect(calls[0]).toMatchObject({ input: { t: "x" }, checkpoint: { doc: { text: "x" }, other: 1 } });
  });

  it("runs Choice, Pass intrinsics, Parallel and inline Map, the nested Tasks without a checkpoint", async () => {
    const { result, calls } = runLocally(
      everyConstructProgram(),
      { n: 1, label: "go", name: "Ada", items: [1, 2] },
      { Left: (event) => event.input, Right: () => "emitted", PerItem: (event) => (event.input as { item: number }).item * 10 },
    );

    const output = (await result) as Record<string, unknown>;
    expect(output.fan).toStrictEqual([{ x: "Hello Ada" }, "emitted"]);
    expect(output.each).toStrictEqual([10, 20]);
    expect(calls.map((call) => call.state).sort()).toStrictEqual(["Left", "PerItem", "PerItem", "Right"]);
    for (const call of calls) expect(call).not.toHaveProperty("checkpoint");
  });
});

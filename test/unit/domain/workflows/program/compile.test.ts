import fc from "fast-check";
import aslValidator from "asl-validator";
import { describe, expect, it } from "vitest";
import {
  compileProgram,
  DISPATCH_RETRY,
  PROGRAM_RESUME_STATE,
  resumeInput,
  validateProgram,
  type Program,
  type ProgramState,
} from "../../../../../shared/domain/workflows/program/index.js";
import { aChain, aPass, aProgramWith, aTask, everyConstructProgram, exampleProgram } from "../../../../support/workflow-programs.js";

const dispatcherArn = "arn:aws:lambda:eu-west-1:123456789012:function:platform-workflow-dispatcher";
const compiled = (program: Program) => compileProgram(program, { dispatcherArn }).definition as { StartAt: string; States: Record<string, Record<string, unknown>> };
const lambdaRetry = { ...DISPATCH_RETRY, ErrorEquals: [...DISPATCH_RETRY.ErrorEquals] };

describe("a compiled Task", () => {
  it("invokes the dispatcher with a task token, the state and resource as literals, the Parameters as input and the raw input as checkpoint", () => {
    const { States } = compiled(exampleProgram());

    expect(States.Summarize).toStrictEqual({
      Type: "Task",
      Resource: "arn:aws:states:::lambda:invoke.waitForTaskToken",
      Parameters: {
        FunctionName: dispatcherArn,
        Payload: {
          "token.$": "$$.Task.Token",
          "execution.$": "$$.Execution.Id",
          state: "Summarize",
          resource: "activity:summarize",
          input: { "text.$": "$.doc.content", "hint.$": "$.model.answer" },
          "checkpoint.$": "$",
        },
      },
      Retry: [lambdaRetry, { ErrorEquals: ["States.HeartbeatTimeout"], MaxAttempts: 3, IntervalSeconds: 1 }],
      HeartbeatSeconds: 30,
      TimeoutSeconds: 600,
      ResultPath: "$.summary",
      Next: "Publish",
    });
  });

  it("sends the whole state input when the Task has no Parameters", () => {
    const { States } = compiled(aProgramWith("Step", aTask("platform:publish_state")));

    expect(States.Step!.Parameters).toStrictEqual({
      FunctionName: dispatcherArn,
      Payload: { "token.$": "$$.Task.Token", "execution.$": "$$.Execution.Id", state: "Step", resource: "platform:publish_state", "input.$": "$", "checkpoint.$": "$" },
    });
  });

  it("keeps the tenant's retriers after Lambda's, in their order, States.ALL last", () => {
    const retry = [{ ErrorEquals: ["Custom.Error"], MaxAttempts: 1 }, { ErrorEquals: ["States.ALL"], MaxAttempts: 2 }];
    const { States } = compiled(aProgramWith("Step", aTask("activity:work", { Retry: retry })));

    expect(States.Step!.Retry).toStrictEqual([lambdaRetry, ...retry]);
  });

  it("keeps every field the tenant wrote besides Resource and Parameters", () => {
    const fields = { ResultSelector: { "r.$": "$.r" }, ResultPath: "$.out", OutputPath: "$.out", Catch: [{ ErrorEquals: ["States.ALL"], Next: "Step" }], TimeoutSeconds: 5, Comment: "why" };
    const { States } = compiled(aProgramWith("Step", aTask("activity:work", fields)));

    expect(States.Step).toMatchObject({ ...fields, End: true });
  });

  it("folds a top-level InputPath into the input's paths, so the checkpoint stays the raw input", () => {
    const program = aChain({
      WithParameters: aTask("activity:a", { InputPath: "$.doc", Parameters: { "text.$": "$.text", "all.$": "$", "f.$": "States.Format('$.not {}', $.n)", "id.$": "$$.Execution.Id", k: "$.literal" } }),
      Without: aTask("activity:b", { InputPath: "$['doc'][0]" }),
    });
    const { States } = compiled(program);

    expect(States.WithParameters!.InputPath).toBeUndefined();
    expect((States.WithParameters!.Parameters as { Payload: unknown }).Payload).toMatchObject({
      input: { "text.$": "$.doc.text", "all.$": "$.doc", "f.$": "States.Format('$.not {}', $.doc.n)", "id.$": "$$.Execution.Id", k: "$.literal" },
      "checkpoint.$": "$",
    });
    expect((States.Without!.Parameters as { Payload: unknown }).Payload).toMatchObject({ "input.$": "$['doc'][0]", "checkpoint.$": "$" });
  });

  it("sends no checkpoint from Tasks inside a Parallel branch or a Map, and keeps their InputPath", () => {
    const program = aChain({
      Fan: { Type: "Parallel", Branches: [aChain({ InBranch: aTask("activity:a", { InputPath: "$.x" }) })] },
      Each: { Type: "Map", ItemsPath: "$.items", ItemProcessor: aChain({ InMap: aTask("activity:b") }) },
    });
    const { States } = compiled(program);
    const inBranch = (States.Fan!.Branches as { States: Record<string, { Parameters: { Payload: Record<string, unknown> }; InputPath?: string }> }[])[0]!.States.InBranch!;
    const inMap = (States.Each!.ItemProcessor as { States: Record<string, { Parameters: { Payload: Record<string, unknown> } }> }).States.InMap!;

    expect(inBranch.Parameters.Payload).toStrictEqual({ "token.$": "$$.Task.Token", "execution.$": "$$.Execution.Id", state: "InBranch", resource: "activity:a", "input.$": "$" });
    expect(inBranch.InputPath).toBe("$.x");
    expect(inMap.Parameters.Payload).not.toHaveProperty("checkpoint.$");
  });

  it("leaves states other than Tasks as written", () => {
    const program = everyConstructProgram();
    const { States } = compiled(program);

    for (const name of ["Route", "Big", "Prepare", "Legacy", "Done", "Rejected"]) expect(States[name]).toStrictEqual(program.States[name]);
  });
});

describe("the resume prelude", () => {
  const { StartAt, States } = compiled(exampleProgram());

  it("starts every machine at __Resume, whose default is the program's StartAt", () => {
    expect(StartAt).toBe(PROGRAM_RESUME_STATE);
    expect(States.__Resume).toStrictEqual({
      Type: "Choice",
      Choices: [{ Variable: "$.__resume.state", IsPresent: true, Next: "__ResumeRoute" }],
      Default: "ReadFile",
    });
  });

  it("routes to an entry state per top-level state, including terminal ones, and fails on any other name", () => {
    const names = Object.keys(exampleProgram().States).sort();

    expect(States.__ResumeRoute).toStrictEqual({
      Type: "Choice",
      Choices: names.map((name) => ({ Variable: "$.__resume.state", StringEquals: name, Next: `__Resume_${name}` })),
      Default: "__ResumeUnknown",
    });
    for (const name of names) expect(States[`__Resume_${name}`]).toStrictEqual({ Type: "Pass", InputPath: "$.__resume.input", Next: name });
    expect(States.__ResumeUnknown).toMatchObject({ Type: "Fail", Error: "Platform.ResumeStateUnknown" });
  });

  it("builds the input that resumes a state", () => {
    expect(resumeInput("Summarize", { doc: 1 })).toStrictEqual({ __resume: { state: "Summarize", input: { doc: 1 } } });
    expect(resumeInput("Summarize", undefined)).toStrictEqual({ __resume: { state: "Summarize", input: {} } });
  });
});

describe("the compiled document", () => {
  it("passes asl-validator with ARN and path checks on", () => {
    for (const program of [exampleProgram(), everyConstructProgram()]) {
      const result = aslValidator(compiled(program), { checkArn: true, checkPaths: true });
      expect(result.errorsText()).toBe("");
    }
  });

  it("shares nothing with the program it was compiled from", () => {
    const program = everyConstructProgram();
    const definition = compiled(program);
    (definition.States.Route!.Choices as unknown[]).push("changed");

    expect(program.States.Route!.Choices).toHaveLength(3);
  });
});

describe("the program hash", () => {
  it("is the same for the same program", () => {
    expect(compileProgram(exampleProgram(), { dispatcherArn }).hash).toBe(compileProgram(exampleProgram(), { dispatcherArn }).hash);
  });

  it("does not depend on the dispatcher ARN (account, region)", () => {
    const other = "arn:aws:lambda:us-west-2:999999999999:function:another-dispatcher";
    const here = compileProgram(exampleProgram(), { dispatcherArn });
    const there = compileProgram(exampleProgram(), { dispatcherArn: other });

    expect(there.hash).toBe(here.hash);
    expect(JSON.stringify(there.definition)).toContain(other);
    expect(JSON.stringify(there.definition)).not.toContain(dispatcherArn);
  });

  it("does not depend on the order of keys in an object", () => {
    const program = exampleProgram();
    const reordered = JSON.parse(JSON.stringify(program, (_key, value) => (isObject(value) ? Object.fromEntries(Object.entries(value).reverse()) : value))) as Program;

    expect(compileProgram(reordered, { dispatcherArn }).hash).toBe(compileProgram(program, { dispatcherArn }).hash);
  });

  it("changes with the program", () => {
    const changed = exampleProgram();
    changed.States.Summarize!.HeartbeatSeconds = 31;

    expect(compileProgram(changed, { dispatcherArn }).hash).not.toBe(compileProgram(exampleProgram(), { dispatcherArn }).hash);
    expect(compileProgram(exampleProgram(), { dispatcherArn }).hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("is deterministic for any valid chain of Pass and Task states, which compiles to a valid document", () => {
    const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 _-]{0,20}$/);
    const field = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
    const task = fc.record({
      resource: fc.oneof(fc.stringMatching(/^activity:[A-Za-z0-9_.-]{1,20}$/), fc.constant("platform:publish_state"), fc.constant("platform:emit_event")),
      parameters: fc.option(fc.dictionary(field, fc.oneof(fc.string(), fc.integer(), fc.constant(null))), { nil: undefined }),
      path: fc.option(field.map((f) => `$.${f}`), { nil: undefined }),
      heartbeat: fc.option(fc.integer({ min: 1, max: 3600 }), { nil: undefined }),
    });
    const state = fc.oneof(
      task.map(({ resource, parameters, path, heartbeat }): ProgramState => ({
        Type: "Task",
        Resource: resource,
        // emit_event needs its `type` (the built-in's parameter table).
        Parameters: resource === "platform:emit_event" ? { ...parameters, type: "progress" } : path ? { ...parameters, "Value.$": path } : parameters,
        ...(heartbeat ? { HeartbeatSeconds: heartbeat, Retry: [{ ErrorEquals: ["States.HeartbeatTimeout"], MaxAttempts: 2 }] } : {}),
        ResultPath: path ?? null,
      })),
      fc.record({ result: fc.jsonValue() }).map(({ result }): ProgramState => aPass({ Result: result, ResultPath: "$.passed" })),
    );
    const chain = fc.uniqueArray(fc.tuple(name, state), { minLength: 1, maxLength: 6, selector: ([n]) => n }).map((states) => aChain(Object.fromEntries(states)));

    fc.assert(
      fc.property(chain, (program) => {
        expect(validateProgram(program)).toStrictEqual([]);
        const first = compileProgram(program, { dispatcherArn });
        const again = compileProgram(structuredClone(program), { dispatcherArn: "arn:aws:lambda:ap-south-1:000011112222:function:x" });
        expect(again.hash).toBe(first.hash);
      }),
      { numRuns: 12 },
    );
  });
});

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

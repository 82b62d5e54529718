import { describe, expect, it } from "vitest";
import {
  PLATFORM_BUILTINS,
  PROGRAM_MAX_BYTES,
  programUnprocessable,
  ProgramRefused,
  validateProgram,
  type Program,
  type ProgramState,
} from "../../../../../shared/domain/workflows/program/index.js";
import { Unprocessable } from "../../../../../shared/domain/errors.js";
import { renderError } from "../../../../../shared/http/errors.js";
import { aChain, aPass, aProgramWith, aTask, everyConstructProgram, EXAMPLE_ACTIVITIES, exampleProgram } from "../../../../support/workflow-programs.js";

/** The issues of a program with one Task named Step whose fields are changed as given. */
const issuesOfTask = (fields: Partial<ProgramState>, options = {}) => validateProgram(aProgramWith("Step", aTask("activity:work", fields)), options);
const rulesOf = (program: unknown, options = {}) => validateProgram(program, options).map((issue) => issue.rule);

describe("programs that may be registered", () => {
  it("accepts the example program with its deployment's activities", () => {
    expect(validateProgram(exampleProgram(), { activities: EXAMPLE_ACTIVITIES })).toStrictEqual([]);
  });

  it("accepts Choice (all kinds of comparators), Wait, Pass with intrinsics, Parallel, inline Map, Catch and Fail", () => {
    expect(validateProgram(everyConstructProgram())).toStrictEqual([]);
  });

  it("accepts any well-formed activity name when the deployment's activities are not given", () => {
    expect(validateProgram(aProgramWith("Step", aTask("activity:any.name-1_x")))).toStrictEqual([]);
  });

  it("accepts an explicit JSONPath query language", () => {
    expect(validateProgram({ ...aProgramWith("Step", aPass({ QueryLanguage: "JSONPath" })), QueryLanguage: "JSONPath" })).toStrictEqual([]);
  });

  it("accepts each built-in with the Parameters its table asks for", () => {
    const parameters = { model: { model: "m", "input.$": "$.entries" }, sleep_until: { "until.$": "$.at" }, emit_event: { type: "progress" }, publish_state: undefined, await_signal: { name: "approve" }, await_update: { name: "*" }, complete_update: { "update_id.$": "$.update.update_id", "result.$": "$.answer" }, connector: { connector: "github", tool: "search", "arguments.$": "$.query" }, continue_as_new: undefined, child_workflow: { workflow: "child" } } as Record<string, unknown>;
    for (const builtin of PLATFORM_BUILTINS) {
      expect(issuesOfTask({ Resource: `platform:${builtin}`, Parameters: parameters[builtin] })).toStrictEqual([]);
    }
  });

  it("accepts a retrier on States.ALL when it is the last one", () => {
    expect(issuesOfTask({ Retry: [{ ErrorEquals: ["States.Timeout"] }, { ErrorEquals: ["States.ALL"], MaxAttempts: 1 }] })).toStrictEqual([]);
  });
});

describe("what a program may not do", () => {
  const refusals: [rule: string, state: string | null, path: (string | number)[], program: () => unknown][] = [
    ["jsonata", "Step", ["States", "Step", "QueryLanguage"], () => aProgramWith("Step", aPass({ QueryLanguage: "JSONata" }))],
    ["jsonata", null, ["QueryLanguage"], () => ({ ...aProgramWith("Step", aPass()), QueryLanguage: "JSONata" })],
    ["jsonata", "Pick", ["States", "Pick", "Choices", 0, "Condition"], () => aProgramWith("Pick", { Type: "Choice", Choices: [{ Condition: "{% true %}", Next: "Pick" }] })],
    ["arguments", "Step", ["States", "Step", "Arguments"], () => aProgramWith("Step", aTask("activity:work", { Arguments: { a: 1 } }))],
    ["output", "Step", ["States", "Step", "Output"], () => aProgramWith("Step", aPass({ Output: "{% $states.input %}" }))],
    ["assign", "Step", ["States", "Step", "Assign"], () => aProgramWith("Step", aPass({ Assign: { x: 1 } }))],
    ["assign", "Step", ["States", "Step", "Catch", 0, "Assign"], () => aProgramWith("Step", aTask("activity:work", { Catch: [{ ErrorEquals: ["States.ALL"], Next: "Step", Assign: { x: 1 } }] }))],
    ["credentials", "Step", ["States", "Step", "Credentials"], () => aProgramWith("Step", aTask("activity:work", { Credentials: { RoleArn: "arn:aws:iam::1:role/x" } }))],
    ["arn", "Step", ["States", "Step", "Resource"], () => aProgramWith("Step", aTask("arn:aws:lambda:us-east-1:123456789012:function:mine"))],
    ["arn", "Step", ["States", "Step", "Resource"], () => aProgramWith("Step", aTask("arn:aws:states:::http:invoke"))],
    ["resource", "Step", ["States", "Step", "Resource"], () => aProgramWith("Step", aTask("http:invoke"))],
    ["resource", "Step", ["States", "Step", "Resource"], () => aProgramWith("Step", aTask("aws-sdk:s3:getObject"))],
    ["resource", "Step", ["States", "Step", "Resource"], () => aProgramWith("Step", aTask("states:startExecution"))],
    ["resource", "Step", ["States", "Step", "Resource"], () => aProgramWith("Step", aTask("activity:has space"))],
    ["unknown-builtin", "Step", ["States", "Step", "Resource"], () => aProgramWith("Step", aTask("platform:launch_missiles"))],
    ["distributed-map", "Each", ["States", "Each", "ItemProcessor", "ProcessorConfig"], () => aProgramWith("Each", aMap({ ItemProcessor: { ProcessorConfig: { Mode: "DISTRIBUTED", ExecutionType: "STANDARD" }, ...aChain({ In: aPass() }) } }))],
    ["distributed-map", "Each", ["States", "Each", "ItemBatcher"], () => aProgramWith("Each", aMap({ ItemBatcher: { MaxItemsPerBatch: 2 } }))],
    ["distributed-map", "Each", ["States", "Each", "ResultWriter"], () => aProgramWith("Each", aMap({ ResultWriter: { Resource: "arn:aws:states:::s3:putObject" } }))],
    ["distributed-map", "Each", ["States", "Each", "ToleratedFailurePercentage"], () => aProgramWith("Each", aMap({ ToleratedFailurePercentage: 5 }))],
    ["item-reader", "Each", ["States", "Each", "ItemReader"], () => aProgramWith("Each", aMap({ ItemReader: { Resource: "arn:aws:states:::s3:getObject" } }))],
    ["path-timeouts", "Step", ["States", "Step", "TimeoutSecondsPath"], () => aProgramWith("Step", aTask("activity:work", { TimeoutSecondsPath: "$.t" }))],
    ["path-timeouts", "Step", ["States", "Step", "HeartbeatSecondsPath"], () => aProgramWith("Step", aTask("activity:work", { HeartbeatSecondsPath: "$.h" }))],
    ["reserved-name", "__Mine", ["States", "__Mine"], () => aProgramWith("__Mine", aPass())],
    ["reserved-name", "__Inner", ["States", "Fan", "Branches", 0, "States", "__Inner"], () => aProgramWith("Fan", { Type: "Parallel", Branches: [aChain({ __Inner: aPass() })], End: true })],
    ["state-name", "x".repeat(72), ["States", "x".repeat(72)], () => aProgramWith("x".repeat(72), aPass())],
    ["unknown-field", "Step", ["States", "Step", "Retry"], () => aProgramWith("Step", aPass({ Retry: [] }))],
    ["unknown-field", "Step", ["States", "Step", "Resoruce"], () => aProgramWith("Step", aTask("activity:work", { Resoruce: "x" }))],
    ["unknown-field", null, ["TimeoutSeconds"], () => ({ ...aProgramWith("Step", aPass()), TimeoutSeconds: 60 })],
    ["builtin-parameters", "Step", ["States", "Step", "Parameters"], () => aProgramWith("Step", aTask("platform:model", { Parameters: { model: "m" } }))],
    ["builtin-parameters", "Step", ["States", "Step", "Parameters"], () => aProgramWith("Step", aTask("platform:sleep_until"))],
    ["task-token", "Step", ["States", "Step", "Parameters", "t.$"], () => aProgramWith("Step", aTask("activity:work", { Parameters: { "t.$": "$$.Task.Token" } }))],
    ["task-token", "Step", ["States", "Step", "Parameters", "t.$"], () => aProgramWith("Step", aTask("activity:work", { Parameters: { "t.$": "States.Format('{}', $$.Task.Token)" } }))],
    ["intrinsic", "Step", ["States", "Step", "Parameters", "x.$"], () => aProgramWith("Step", aPass({ Parameters: { "x.$": "States.Eval($.code)" } }))],
    ["input-path", "Step", ["States", "Step", "InputPath"], () => aProgramWith("Step", aTask("activity:work", { InputPath: "$.items[?(@.ok)]" }))],
    ["input-path", "Step", ["States", "Step", "InputPath"], () => aProgramWith("Step", aTask("activity:work", { InputPath: null }))],
    ["structure", null, ["StartAt"], () => ({ StartAt: "Nowhere", States: { Step: aPass() } })],
    ["structure", "Step", ["States", "Step", "Next"], () => aProgramWith("Step", aPass({ End: undefined, Next: "Nowhere" }))],
    ["structure", "Step", ["States", "Step"], () => ({ StartAt: "Step", States: { Step: { Type: "Pass" } } })],
    ["structure", "Step", ["States", "Step", "Type"], () => aProgramWith("Step", { Type: "Activity" })],
    ["structure", "Orphan", ["States", "Orphan"], () => ({ StartAt: "Step", States: { Step: aPass(), Orphan: aPass() } })],
    ["structure", "Inner", ["States", "Fan", "Branches", 0, "States", "Inner", "Next"], () => aProgramWith("Fan", { Type: "Parallel", Branches: [{ StartAt: "Inner", States: { Inner: aPass({ End: undefined, Next: "Fan" }) } }], End: true })],
    ["structure", "Step", ["States", "Step", "Retry", 0, "ErrorEquals"], () => aProgramWith("Step", aTask("activity:work", { Retry: [{ ErrorEquals: ["States.ALL"] }, { ErrorEquals: ["States.Timeout"] }] }))],
    ["structure", "Same", ["States", "Fan", "Branches", 0, "States", "Same"], () => aChain({ Same: aPass(), Fan: { Type: "Parallel", Branches: [aChain({ Same: aPass() })] } })],
    ["asl", "Wait", ["States", "Wait", "Seconds"], () => aProgramWith("Wait", { Type: "Wait", Seconds: "soon", End: true })],
    ["asl", "Step", ["States", "Step", "Parameters", "path.$"], () => aProgramWith("Step", aTask("activity:work", { Parameters: { "path.$": "$..[" } }))],
  ];

  it.each(refusals)("refuses with rule %s, naming state %s", (rule, state, path, program) => {
    const issues = validateProgram(program());

    expect(issues).toContainEqual(expect.objectContaining({ rule, state, path }));
    for (const issue of issues) expect(issue.message).toContain(`(rule: ${issue.rule})`);
  });

  it("refuses an activity the deployment does not declare", () => {
    expect(issuesOfTask({}, { activities: ["other"] })).toStrictEqual([
      {
        state: "Step",
        rule: "unknown-activity",
        message: "Task Step: activity work is not among the deployment's activities (rule: unknown-activity); declare it, or use one of: other",
        path: ["States", "Step", "Resource"],
      },
    ]);
  });

  it("says which Resource it refuses and what to use instead", () => {
    expect(issuesOfTask({ Resource: "arn:aws:lambda:us-east-1:123456789012:function:mine" })[0]!.message).toBe(
      "Task Step: Resource arn:aws:lambda:us-east-1:123456789012:function:mine is not allowed (rule: arn); use activity:<name> or platform:<builtin>",
    );
  });

  it("refuses a program over 256 KiB of JSON, and says only that", () => {
    const big = aProgramWith("Step", aPass({ Result: "x".repeat(PROGRAM_MAX_BYTES) }));

    expect(rulesOf(big)).toStrictEqual(["size"]);
    expect(rulesOf(aProgramWith("Step", aPass({ Result: "x".repeat(PROGRAM_MAX_BYTES - 200) })))).toStrictEqual([]);
  });

  it("refuses what is not a program at all", () => {
    for (const notAProgram of [null, [], "StartAt", 1]) expect(rulesOf(notAProgram)).toStrictEqual(["structure"]);
    expect(rulesOf({ StartAt: "A" })).toStrictEqual(["structure"]);
  });

  it("reports every issue of a program at once, each at its state", () => {
    const program: Program = aChain({ A: aTask("arn:aws:lambda:x"), B: aPass({ Assign: {} }), C: aTask("activity:c", { HeartbeatSecondsPath: "$.h" }) });

    expect(validateProgram(program).map(({ state, rule }) => [state, rule])).toStrictEqual([
      ["A", "arn"],
      ["B", "assign"],
      ["C", "path-timeouts"],
    ]);
  });

  it("checks the states inside an inline Map like the program's own", () => {
    const program = aProgramWith("Each", aMap({ ItemProcessor: aChain({ Inner: aTask("aws-sdk:dynamodb:putItem") }) }));

    expect(validateProgram(program)).toContainEqual(expect.objectContaining({ state: "Inner", rule: "resource", path: ["States", "Each", "ItemProcessor", "States", "Inner", "Resource"] }));
  });
});

describe("the 422 a refused registration answers", () => {
  const issues = validateProgram(aProgramWith("Summarize", aTask("arn:aws:lambda:us-east-1:123456789012:function:mine")));

  it("locates each issue in the request body and types it by rule", () => {
    const error = programUnprocessable(issues, ["body", "definitions", 0, "program"]);

    expect(error).toBeInstanceOf(Unprocessable);
    expect(error.status).toBe(422);
    expect(error.detail).toStrictEqual([
      {
        loc: ["body", "definitions", 0, "program", "States", "Summarize", "Resource"],
        msg: "Task Summarize: Resource arn:aws:lambda:us-east-1:123456789012:function:mine is not allowed (rule: arn); use activity:<name> or platform:<builtin>",
        type: "program.arn",
      },
    ]);
  });

  it("carries WF_1104 in the workflow envelope", () => {
    const wire = renderError(programUnprocessable(issues), "workflow");

    expect(wire.status).toBe(422);
    expect(wire.body).toStrictEqual({ detail: [expect.objectContaining({ loc: ["body", "program", "States", "Summarize", "Resource"] })], code: "WF_1104" });
    expect(programUnprocessable(issues)).toBeInstanceOf(ProgramRefused);
  });
});

function aMap(overrides: Partial<ProgramState> = {}): ProgramState {
  return { Type: "Map", ItemsPath: "$.items", ItemProcessor: aChain({ In: aPass() }), End: true, ...overrides };
}

import type { Program, ProgramGraph, ProgramState } from "../../shared/domain/workflows/program/index.js";

/** Builders of workflow programs (restricted ASL) for the validator and compiler tests. */

export function aTask(resource = "activity:work", overrides: Partial<ProgramState> = {}): ProgramState {
  return { Type: "Task", Resource: resource, End: true, ...overrides };
}

export function aPass(overrides: Partial<ProgramState> = {}): ProgramState {
  return { Type: "Pass", End: true, ...overrides };
}

/** A graph whose states run in the order given: each moves to the next, the last ends. */
export function aChain(states: Record<string, ProgramState>): ProgramGraph {
  const names = Object.keys(states);
  const linked = Object.fromEntries(
    names.map((name, i) => {
      const { End: _end, Next: _next, ...state } = states[name]!;
      const terminal = state.Type === "Succeed" || state.Type === "Fail" || state.Type === "Choice";
      return [name, terminal ? state : i < names.length - 1 ? { ...state, Next: names[i + 1] } : { ...state, End: true }] as const;
    }),
  );
  return { StartAt: names[0]!, States: linked as Record<string, ProgramState> };
}

/** A program of one state named `name`, exactly as given. */
export function aProgramWith(name: string, state: ProgramState): Program {
  return { StartAt: name, States: { [name]: state } };
}

/** The activities the example program uses: a deployment declaring them may register it. */
export const EXAMPLE_ACTIVITIES = ["read_file", "summarize"];

/**
 * Reads a file (activity), asks a model about it (built-in), summarises it (activity, with a heartbeat that a
 * dead worker misses and a retry that re-dispatches), publishes the summary as the run's state, succeeds.
 */
export function exampleProgram(): Program {
  return {
    Comment: "Summarise a document",
    StartAt: "ReadFile",
    States: {
      ReadFile: { Type: "Task", Resource: "activity:read_file", Parameters: { "path.$": "$.path" }, ResultPath: "$.doc", Next: "AskModel" },
      AskModel: {
        Type: "Task",
        Resource: "platform:model",
        Parameters: { model: "mistral-small-latest", "messages.$": "States.Array($.doc.message)" },
        ResultSelector: { "answer.$": "$.choices[0].message.content" },
        ResultPath: "$.model",
        Next: "Summarize",
      },
      Summarize: {
        Type: "Task",
        Resource: "activity:summarize",
        Parameters: { "text.$": "$.doc.content", "hint.$": "$.model.answer" },
        HeartbeatSeconds: 30,
        TimeoutSeconds: 600,
        Retry: [{ ErrorEquals: ["States.HeartbeatTimeout"], MaxAttempts: 3, IntervalSeconds: 1 }],
        ResultPath: "$.summary",
        Next: "Publish",
      },
      Publish: { Type: "Task", Resource: "platform:publish_state", Parameters: { "summary.$": "$.summary" }, ResultPath: null, Next: "Done" },
      Done: { Type: "Succeed" },
    },
  };
}

/** Every allowed construct once: Choice, Wait, Parallel, inline Map (both spellings), intrinsics, Catch, Fail. */
export function everyConstructProgram(): Program {
  return {
    StartAt: "Route",
    States: {
      Route: {
        Type: "Choice",
        Choices: [
          { And: [{ Variable: "$.n", IsPresent: true }, { Variable: "$.n", NumericGreaterThan: 10 }], Next: "Big" },
          { Not: { Variable: "$.label", StringMatches: "skip*" }, Next: "Prepare" },
          { Variable: "$.when", TimestampLessThanEqualsPath: "$.deadline", Next: "Prepare" },
        ],
        Default: "Rejected",
      },
      Big: { Type: "Wait", Seconds: 5, Next: "Prepare" },
      Prepare: {
        Type: "Pass",
        Parameters: { "greeting.$": "States.Format('Hello {}', $.name)", "id.$": "States.UUID()", "items.$": "$.items", constant: 1 },
        ResultPath: "$.prepared",
        Next: "Fan",
      },
      Fan: {
        Type: "Parallel",
        Branches: [
          aChain({ Left: aTask("activity:left", { Parameters: { "x.$": "$.prepared.greeting" } }) }),
          aChain({ Right: aTask("platform:emit_event", { Parameters: { type: "progress", "at.$": "$$.Execution.StartTime" } }) }),
        ],
        ResultPath: "$.fan",
        Catch: [{ ErrorEquals: ["States.ALL"], ResultPath: "$.error", Next: "Rejected" }],
        Next: "Each",
      },
      Each: {
        Type: "Map",
        ItemsPath: "$.prepared.items",
        ItemSelector: { "item.$": "$$.Map.Item.Value" },
        MaxConcurrency: 2,
        ItemProcessor: { ProcessorConfig: { Mode: "INLINE" }, ...aChain({ PerItem: aTask("activity:per_item") }) },
        ResultPath: "$.each",
        Next: "Legacy",
      },
      Legacy: { Type: "Map", ItemsPath: "$.prepared.items", Iterator: aChain({ Old: aPass() }), ResultPath: null, Next: "Done" },
      Done: { Type: "Succeed" },
      Rejected: { Type: "Fail", Error: "Workflow.Rejected", Cause: "not for us" },
    },
  };
}

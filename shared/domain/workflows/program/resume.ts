import type { JsonObject } from "./types.js";

/** The compiled machine's StartAt: routes an input carrying `__resume` to the state it names. */
export const PROGRAM_RESUME_STATE = "__Resume";
const ROUTE_STATE = "__ResumeRoute";
const UNKNOWN_STATE = "__ResumeUnknown";
const ENTRY_PREFIX = "__Resume_";

/** The error a run fails with when `__resume.state` names no top-level state of its program version. */
export const RESUME_UNKNOWN_ERROR = "Platform.ResumeStateUnknown";

export interface ResumeInput {
  __resume: { state: string; input: unknown };
}

/** The execution input that re-enters top-level state `state` with `input` (a reset, a restart). */
export function resumeInput(state: string, input: unknown): ResumeInput {
  return { __resume: { state, input: input === undefined ? {} : input } };
}

/** The name of the Pass state that enters top-level state `state` on resume. */
export function resumeEntryState(state: string): string {
  return `${ENTRY_PREFIX}${state}`;
}

/**
 * The states prefixed to every compiled machine. Two Choices, not one: a comparator on a missing path is a
 * runtime error in Step Functions, so `$.__resume.state` is only compared once IsPresent has said it exists.
 * A resume naming a state this version lacks fails the run rather than restarting it from the top. Names
 * are sorted: the order of a program's States is no part of it, so it must not change the hash.
 */
export function resumePrelude(startAt: string, topLevelStates: readonly string[]): Record<string, JsonObject> {
  const names = [...topLevelStates].sort();
  const entries = Object.fromEntries(
    names.map((state) => [resumeEntryState(state), { Type: "Pass", InputPath: "$.__resume.input", Next: state }]),
  );
  return {
    [PROGRAM_RESUME_STATE]: {
      Type: "Choice",
      Choices: [{ Variable: "$.__resume.state", IsPresent: true, Next: ROUTE_STATE }],
      Default: startAt,
    },
    [ROUTE_STATE]: {
      Type: "Choice",
      Choices: names.map((state) => ({ Variable: "$.__resume.state", StringEquals: state, Next: resumeEntryState(state) })),
      Default: UNKNOWN_STATE,
    },
    [UNKNOWN_STATE]: { Type: "Fail", Error: RESUME_UNKNOWN_ERROR, Cause: "The input's __resume.state names no top-level state of this program" },
    ...entries,
  };
}

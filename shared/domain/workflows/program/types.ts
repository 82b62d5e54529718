/**
 * The shapes of a workflow program: an Amazon States Language document (JSONPath only) as the tenant
 * writes it. Loose on purpose: validate.ts decides what is allowed; these types only name the parts.
 */
export type JsonObject = Record<string, unknown>;

/** A state, as written: its `Type` and the fields of that type. */
export type ProgramState = JsonObject & { Type: string };

/** A graph of states: the program itself, a Parallel branch, a Map's ItemProcessor (or Iterator). */
export interface ProgramGraph {
  StartAt: string;
  States: Record<string, ProgramState>;
  Comment?: string;
}

export interface Program extends ProgramGraph {
  Version?: string;
}

/** One reason a program is refused: the state it is about (null: the program), the rule, where. */
export interface ProgramIssue {
  state: string | null;
  rule: string;
  message: string;
  path: (string | number)[];
}

export function isRecord(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

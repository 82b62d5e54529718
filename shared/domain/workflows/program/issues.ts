import { Unprocessable, type ApiErrorOptions } from "../../errors.js";
import type { ProgramIssue } from "./types.js";

/** One issue, its message naming the subject (`Task Summarize`), what is wrong, the rule and what to do instead. */
export function programIssue(state: string | null, subject: string, rule: string, why: string, path: (string | number)[], hint?: string): ProgramIssue {
  return { state, rule, message: `${subject}: ${why} (rule: ${rule})${hint ? `; ${hint}` : ""}`, path };
}

/** The 422 a refused registration answers: in the workflow envelope its code is WF_1104 (Workflow Registration Failed). */
export class ProgramRefused extends Unprocessable {
  override readonly familyCodes: ApiErrorOptions["familyCodes"] = { workflow: "WF_1104" };
}

/**
 * The error the registration route throws for a refused program: one `detail` entry per issue, located under
 * `at` (where the program sits in the request body), typed `program.<rule>`.
 */
export function programUnprocessable(issues: readonly ProgramIssue[], at: readonly (string | number)[] = ["body", "program"]): ProgramRefused {
  return new ProgramRefused(issues.map((issue) => ({ loc: [...at, ...issue.path], msg: issue.message, type: `program.${issue.rule}` })));
}

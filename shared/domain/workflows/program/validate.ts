import { aslIssues } from "./asl.js";
import { compileProgram, DISPATCHER_PLACEHOLDER } from "./compile.js";
import { duplicateNameIssues, graphIssues } from "./graph-rules.js";
import { programIssue } from "./issues.js";
import { isRecord, type Program, type ProgramIssue } from "./types.js";

/** Step Functions' limit on a definition and on any payload; the compiled document is a little larger still. */
export const PROGRAM_MAX_BYTES = 256 * 1024;

export interface ValidateOptions {
  /** The activities the registering deployment declares: an `activity:<name>` outside them is refused. */
  activities?: readonly string[];
}

/**
 * Why a program cannot be registered: empty when it can. Our rules first (each issue names its state and
 * rule); when they all pass, asl-validator on the compiled document (rule `asl`), which catches malformed
 * paths and fields but would accept what our rules refuse (Distributed Map, JSONata).
 */
export function validateProgram(program: unknown, options: ValidateOptions = {}): ProgramIssue[] {
  if (!isRecord(program)) return [programIssue(null, "Program", "structure", "a program is a JSON object {StartAt, States}", [])];
  const bytes = Buffer.byteLength(JSON.stringify(program));
  if (bytes > PROGRAM_MAX_BYTES) {
    return [programIssue(null, "Program", "size", `the program is ${bytes} bytes of JSON, over the ${PROGRAM_MAX_BYTES} allowed`, [])];
  }
  const issues = [...graphIssues(program, [], "program", options.activities), ...duplicateNameIssues(program)];
  if (issues.length > 0) return issues;
  return aslIssues(compileProgram(program as unknown as Program, { dispatcherArn: DISPATCHER_PLACEHOLDER }).definition);
}

import type { ValidationIssue } from "../../domain/errors.js";
import { compileInputSchema } from "../../domain/workflows/program/index.js";
import { logger } from "../../observability/logger.js";

/**
 * An execution's input checked against `definition.input_schema`, and its result against `output_schema`,
 * through the compiler's JSON Schema 2020-12 check (FastAPI-style issues, located under `body.input`).
 * `loc` replaces that location (e.g. `["result"]` for a result).
 */
export function schemaIssues(schema: Record<string, unknown> | null | undefined, value: unknown, loc: (string | number)[] = ["body", "input"]): ValidationIssue[] {
  if (!schema || Object.keys(schema).length === 0) return [];
  let check: (value: unknown) => ValidationIssue[];
  try {
    check = compileInputSchema(schema);
  } catch (error) {
    // Registration refuses schemas that do not compile; one stored before that rule checks nothing.
    logger.warn("a workflow schema does not compile", { error: error as Error });
    return [];
  }
  return check(value).map((issue) => ({ ...issue, loc: [...loc, ...issue.loc.slice(2)] }));
}

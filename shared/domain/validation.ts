import type * as z from "zod";
import type { ZodError, core } from "zod";
import { Unprocessable, type ValidationIssue } from "./errors.js";

export type Location = "body" | "query" | "path";

/** FastAPI-style issue types, the vocabulary the official SDKs know from 422 bodies. */
function issueType(issue: core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "missing" : `${issue.expected}_type`;
    case "unrecognized_keys":
      return "extra_forbidden";
    case "invalid_value":
      return "enum";
    case "too_small":
      return issue.origin === "string" ? "string_too_short" : issue.origin === "array" ? "too_short" : "greater_than_equal";
    case "too_big":
      return issue.origin === "string" ? "string_too_long" : issue.origin === "array" ? "too_long" : "less_than_equal";
    case "invalid_format":
      return `${issue.format}_parsing`;
    default:
      return "value_error";
  }
}

export function zodIssues(error: ZodError, where: Location): ValidationIssue[] {
  return error.issues.flatMap((issue) => {
    const loc = [where, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ loc: [...loc, key], msg: "Extra inputs are not permitted", type: "extra_forbidden" }));
    }
    const missing = issue.code === "invalid_type" && issue.input === undefined;
    return [{ loc, msg: missing ? "Field required" : issue.message, type: issueType(issue) }];
  });
}

/** The value as the schema reads it, or the 422 that names every issue at its location. */
export function validated<S extends z.ZodType>(schema: S, value: unknown, where: Location): z.output<S> {
  // reportInput: tells a missing field (input undefined) from one of the wrong type.
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw new Unprocessable(zodIssues(result.error, where));
  return result.data;
}

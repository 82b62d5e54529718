import { ZodError, type core } from "zod";
import { ApiError, Unprocessable, type ValidationIssue } from "../domain/errors.js";

export interface WireError {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** nginx's "client closed request": the caller went away before we could answer. */
export const CLIENT_CLOSED = 499;

type Location = "body" | "query" | "path";

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

export function validationError(detail: ValidationIssue[]): WireError {
  return { status: 422, body: { detail } };
}

export function errorBody(status: number, type: string, message: string, code: string | null, param: string | null = null) {
  return { object: "error", message, type, param, code };
}

/** Maps anything a handler throws to a status and body; internals never leave through a 5xx. */
export function toWireError(error: unknown): WireError {
  if (error instanceof Unprocessable) return validationError(error.detail);
  if (error instanceof ApiError) {
    return { status: error.status, body: errorBody(error.status, error.type, error.message, error.code, error.param) };
  }
  if (error instanceof Error && error.name === "UpstreamError") return upstreamError(error as Error & { status: number; retryAfterSeconds?: number });
  if (error instanceof Error && error.name === "AbortError") {
    return { status: CLIENT_CLOSED, body: errorBody(CLIENT_CLOSED, "invalid_request_error", "The client closed the request", "client_closed") };
  }
  if (error instanceof Error && error.name === "UnsupportedByProvider") {
    return { status: 400, body: errorBody(400, "invalid_request_error", error.message, "unsupported_by_backend") };
  }
  const status = httpStatusOf(error);
  if (status && status >= 400 && status < 500) {
    const message = error instanceof Error ? error.message : "Bad request";
    // middy's body parsers report unreadable bodies as 415s; only a wrong Content-Type stays a 415.
    if (status === 415 && /malformed/i.test(message)) {
      return validationError([{ loc: ["body"], msg: message, type: /json/i.test(message) ? "json_invalid" : "value_error" }]);
    }
    return { status, body: errorBody(status, "invalid_request_error", message, "invalid_request") };
  }
  return { status: 500, body: errorBody(500, "server_error", "Internal server error", "internal_error") };
}

/** A model backend's failure: its 4xx messages reach the caller, its own failures are 502/504s. */
function upstreamError(error: Error & { status: number; retryAfterSeconds?: number }): WireError {
  const type = error.status === 429 ? "rate_limit_error" : error.status < 500 ? "invalid_request_error" : "server_error";
  const headers = error.retryAfterSeconds !== undefined ? { "retry-after": String(error.retryAfterSeconds) } : undefined;
  return { status: error.status, body: errorBody(error.status, type, error.message, "upstream_error"), headers };
}

function httpStatusOf(error: unknown): number | undefined {
  if (typeof error === "object" && error !== null && "statusCode" in error && typeof error.statusCode === "number") {
    return error.statusCode;
  }
  return undefined;
}

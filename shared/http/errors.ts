import { ZodError, type core } from "zod";
import { ApiError, Unprocessable, type ErrorFamily, type ValidationIssue } from "../domain/errors.js";

export interface WireError {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

// Kept for callers that still take the status from here; it belongs to the domain's errors.
export { CLIENT_CLOSED } from "../domain/errors.js";

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

export function errorBody(status: number, type: string, message: string, code: string | null, param: string | null = null) {
  return { object: "error", message, type, param, code };
}

const INTERNAL = new ApiError(500, "server_error", "Internal server error", "internal_error");

/**
 * What anything thrown means on the wire: our typed errors as they are; errors of the HTTP libraries that
 * mark themselves safe to show (middy's `expose`, set below 500) as a 4xx; everything else a bare 500.
 */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isExposedHttpError(error)) return new ApiError(error.statusCode, "invalid_request_error", error.message, "invalid_request");
  return INTERNAL;
}

function isExposedHttpError(error: unknown): error is Error & { statusCode: number } {
  const candidate = error as { statusCode?: unknown; expose?: unknown } | null;
  return error instanceof Error && typeof candidate?.statusCode === "number" && candidate.statusCode >= 400 && candidate.statusCode < 500 && candidate.expose === true;
}

/**
 * The three envelopes, one per route family (the row's `errors`):
 * - platform: `{object:"error",message,type,param,code}`; 422 is FastAPI's `{detail:[{loc,msg,type}]}`.
 * - workflow: `{detail,code:"WF_xxxx"}`; 422 keeps the list form the SDK parses, with the code beside it;
 *   a 5xx says only "An error occurred".
 * - observability: `{detail:{message,error_code}}`, which the SDK parses on 400/404/408/409/422.
 */
const renderers: Record<ErrorFamily, (error: ApiError) => unknown> = {
  platform: (error) => (error instanceof Unprocessable ? { detail: error.detail } : { ...errorBody(error.status, error.type, error.message, error.code, error.param), ...error.extra }),
  workflow: (error) => {
    const code = error.familyCodes?.workflow ?? workflowCode(error.status);
    if (error instanceof Unprocessable) return { detail: error.detail, code };
    return { detail: error.status >= 500 ? "An error occurred" : error.message, code, ...error.extra };
  },
  observability: (error) => ({
    detail: { message: error.status >= 500 ? "An error occurred" : error.message, error_code: error.familyCodes?.observability ?? observabilityCode(error.status), ...error.extra },
  }),
};

/** Workflow codes by status where the error names none (reference/workflows.md §1.6). */
function workflowCode(status: number): string {
  if (status === 404) return "WF_1100";
  if (status === 409) return "WF_1102";
  if (status === 504) return "WF_1103";
  return status >= 500 ? "WF_1000" : "WF_1001";
}

/** Observability codes by status where the error names none (the SDK's ObservabilityErrorCode). */
function observabilityCode(status: number): string {
  if (status === 401) return "AUTH_UNAUTHORIZED";
  if (status === 403) return "AUTH_FORBIDDEN";
  if (status >= 500) return "UNKNOWN_ERROR";
  if (status === 422 || status === 400) return "VALIDATION_ERROR";
  return "UNKNOWN_ERROR";
}

/** Renders anything a handler throws in the family's envelope; internals never leave through a 5xx. */
export function renderError(error: unknown, family: ErrorFamily): WireError {
  const known = asApiError(error);
  return { status: known.status, body: renderers[family](known), ...(known.headers ? { headers: known.headers } : {}) };
}

/** The platform envelope: the default family, and the one batch result lines use. */
export const toWireError = (error: unknown): WireError => renderError(error, "platform");

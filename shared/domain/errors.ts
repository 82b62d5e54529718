/**
 * Typed failures the domain raises. Each says what it is (status, error type, code); shared/http renders
 * it in the envelope of the route's error family, so no handler builds an error body itself.
 */
export type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "conflict_error"
  | "rate_limit_error"
  | "server_error";

/** The error envelopes the API speaks: see shared/http/errors.ts. */
export type ErrorFamily = "platform" | "workflow" | "observability";

export interface ApiErrorOptions {
  /** Response headers the error brings along (e.g. `retry-after`). */
  headers?: Record<string, string>;
  /** The code to show in another family's envelope (`WF_1100`, `TRACE_NOT_FOUND`) instead of its default for the status. */
  familyCodes?: Partial<Record<Exclude<ErrorFamily, "platform">, string>>;
  /** More fields for the envelope, where a family documents them (e.g. a workflow's `status`). */
  extra?: Record<string, unknown>;
}

export class ApiError extends Error {
  readonly headers: Record<string, string> | undefined;
  readonly familyCodes: ApiErrorOptions["familyCodes"];
  readonly extra: Record<string, unknown> | undefined;

  constructor(
    readonly status: number,
    readonly type: ErrorType,
    message: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
    options: ApiErrorOptions = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.headers = options.headers;
    this.familyCodes = options.familyCodes;
    this.extra = options.extra;
  }
}

export class BadRequest extends ApiError {
  constructor(message: string, code = "invalid_request", param: string | null = null) {
    super(400, "invalid_request_error", message, code, param);
  }
}

export class Unauthorized extends ApiError {
  constructor(message = "Unauthorized") {
    super(401, "authentication_error", message, "unauthorized");
  }
}

export class Forbidden extends ApiError {
  constructor(message: string, code = "forbidden") {
    super(403, "permission_error", message, code);
  }
}

export class NotFound extends ApiError {
  constructor(resource: string, id: string) {
    super(404, "not_found_error", `No ${resource} with id '${id}' exists in this workspace`, `${resource}_not_found`);
  }
}

export class Conflict extends ApiError {
  constructor(message: string, code = "conflict") {
    super(409, "conflict_error", message, code);
  }
}

export class PayloadTooLarge extends ApiError {
  constructor(message: string, code = "payload_too_large") {
    super(413, "invalid_request_error", message, code);
  }
}

export class UnsupportedMediaType extends ApiError {
  constructor() {
    super(415, "invalid_request_error", "Unsupported Media Type", "invalid_request");
  }
}

/** nginx's "client closed request": the caller went away before we could answer. */
export const CLIENT_CLOSED = 499;

export class ClientClosedRequest extends ApiError {
  constructor() {
    super(CLIENT_CLOSED, "invalid_request_error", "The client closed the request", "client_closed");
  }
}

/** A request that is well-formed but breaks a rule of the API, reported in the 422 `detail` shape. */
export class Unprocessable extends ApiError {
  constructor(readonly detail: ValidationIssue[]) {
    super(422, "invalid_request_error", detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; "), "validation_error");
  }
}

/** A page token this list did not issue (garbage, tampered, another list's or workspace's): the same 422 on every list. */
export class InvalidPageToken extends Unprocessable {
  constructor(param: string, why?: string) {
    super([{ loc: ["query", param], msg: why ? `Invalid page token: ${why}` : "Invalid page token", type: "value_error" }]);
  }
}

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** A key's per-minute request limit is used up until the next minute. */
export class RateLimited extends ApiError {
  constructor(limit: number, retryAfterSeconds: number) {
    super(429, "rate_limit_error", `This API key may make ${limit} requests per minute; try again in ${retryAfterSeconds} s`, "rate_limit_exceeded", null, {
      headers: { "retry-after": String(retryAfterSeconds) },
    });
  }
}

/** The workspace's month-to-date spend has reached its limit: model calls wait for next month or a higher limit. */
export class SpendLimitReached extends ApiError {
  constructor(value: number, currency: string) {
    super(429, "rate_limit_error", `This workspace has reached its monthly spend limit of ${value} ${currency}; model calls resume next month or when an admin raises the limit`, "spend_limit_reached");
  }
}

/** A key's tokens per minute or per day are used up for the window (or one call's prompt alone is over the limit). */
export class TokenLimitReached extends ApiError {
  constructor(limit: number, window: "minute" | "day", retryAfterSeconds: number | undefined, promptTokens?: number) {
    const message =
      promptTokens !== undefined
        ? `This request's prompt (${promptTokens} tokens) is more than this API key's limit of ${limit} tokens per ${window}`
        : `This API key may use ${limit} tokens per ${window}; try again in ${retryAfterSeconds} s`;
    super(429, "rate_limit_error", message, window === "minute" ? "tokens_per_minute_exceeded" : "tokens_per_day_exceeded", null, {
      headers: retryAfterSeconds !== undefined ? { "retry-after": String(retryAfterSeconds) } : undefined,
    });
  }
}

/** The key's month-to-date spend has reached its own monthly budget. */
export class KeyBudgetReached extends ApiError {
  constructor(value: number, currency: string) {
    super(429, "rate_limit_error", `This API key has reached its monthly budget of ${value} ${currency}; its model calls resume next month or when an admin raises the budget`, "key_budget_reached");
  }
}

/** An upstream (model backend) failure, with the status the client should see (4xx → 400, auth → 502, 429 → 429, else 502/504). */
export class UpstreamError extends ApiError {
  constructor(
    status: number,
    message: string,
    readonly retryAfterSeconds?: number,
    /** False when another try on the same deployment would fail the same way (its credentials refused). */
    readonly retryHere = true,
  ) {
    const type = status === 429 ? "rate_limit_error" : status < 500 ? "invalid_request_error" : "server_error";
    super(status, type, message, "upstream_error", null, {
      headers: retryAfterSeconds !== undefined ? { "retry-after": String(retryAfterSeconds) } : undefined,
    });
  }
}

const INTERNAL_ERROR = new ApiError(500, "server_error", "Internal server error", "internal_error");

/**
 * What anything thrown means on the wire: our typed errors as they are; errors of the HTTP libraries that
 * mark themselves safe to show (middy's `expose`, set below 500) as a 4xx; everything else a bare 500.
 */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isExposedHttpError(error)) return new ApiError(error.statusCode, "invalid_request_error", error.message, "invalid_request");
  return INTERNAL_ERROR;
}

function isExposedHttpError(error: unknown): error is Error & { statusCode: number } {
  const candidate = error as { statusCode?: unknown; expose?: unknown } | null;
  return error instanceof Error && typeof candidate?.statusCode === "number" && candidate.statusCode >= 400 && candidate.statusCode < 500 && candidate.expose === true;
}

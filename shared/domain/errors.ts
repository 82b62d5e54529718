/**
 * Typed failures the domain raises. Each carries what the wire needs (status, error type, code);
 * shared/http/errors.ts turns them into response bodies, so no handler builds an error itself.
 */
export type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "conflict_error"
  | "rate_limit_error"
  | "server_error";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    message: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = new.target.name;
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

/** A request that is well-formed but breaks a rule of the API, reported in the 422 `detail` shape. */
export class Unprocessable extends Error {
  constructor(readonly detail: ValidationIssue[]) {
    super(detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; "));
    this.name = "Unprocessable";
  }
}

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

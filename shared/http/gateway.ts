import { errorBody } from "./errors.js";

/**
 * What API Gateway itself answers, before or instead of a handler. CDK installs these as gateway
 * responses and the local server sends the same bodies, so clients see one behaviour.
 */
export interface GatewayAnswer {
  status: number;
  body: ReturnType<typeof errorBody>;
}

export const gatewayAnswers = {
  UNAUTHORIZED: { status: 401, body: errorBody(401, "authentication_error", "Unauthorized: send a valid API key as 'Authorization: Bearer <key>'", "unauthorized") },
  ACCESS_DENIED: { status: 403, body: errorBody(403, "permission_error", "Forbidden", "forbidden") },
  // API Gateway reports an unknown path or method as a missing token; to clients it is a 404.
  MISSING_AUTHENTICATION_TOKEN: { status: 404, body: errorBody(404, "not_found_error", "No such route", "route_not_found") },
  REQUEST_TOO_LARGE: {
    status: 413,
    body: errorBody(413, "invalid_request_error", "The request is too large for this route. Upload files over 4 MB with POST /v1/files/uploads (presigned multipart, up to 512 MB).", "use_large_upload"),
  },
  AUTHORIZER_FAILURE: { status: 500, body: errorBody(500, "server_error", "Internal server error", "authorizer_failure") },
  // A function that crashed or timed out instead of answering.
  DEFAULT_5XX: { status: 502, body: errorBody(502, "server_error", "Internal server error", "integration_failure") },
} satisfies Record<string, GatewayAnswer>;

export type GatewayAnswerType = keyof typeof gatewayAnswers;

/**
 * A method the path does not take: 405 with `Allow` (RFC 9110), not a 404. API Gateway answers it from an
 * `ANY` method on each resource (a mock integration, infra/area-stack.ts); the local server the same.
 */
export function methodNotAllowed(allowed: string[]): GatewayAnswer & { headers: Record<string, string> } {
  const list = allowed.join(", ");
  return { status: 405, headers: { allow: list }, body: errorBody(405, "invalid_request_error", `Method not allowed: this path takes ${list}`, "method_not_allowed") };
}

/**
 * How long API Gateway caches an authorizer answer per Authorization header, unless the deployment sets
 * `-c authorizerCacheSeconds=N` (0–3600): also how long a revoked key, an archived workspace, a removed
 * member or a changed role can still pass. Kept short by default.
 */
export const AUTHORIZER_CACHE_SECONDS = 60;

/**
 * Bodies API Gateway hands to Lambda base64-encoded; JSON stays text. A base64 answer is sent as bytes when
 * the request's Accept is one of them: `audio/wav` is what the SDK accepts for a preset voice's sample.
 */
export const BINARY_MEDIA_TYPES = ["multipart/form-data", "application/octet-stream", "audio/wav", "application/x-protobuf"];

/** What one synchronous Lambda invocation accepts: the whole proxy event, body included. */
export const LAMBDA_EVENT_MAX_BYTES = 6 * 1024 * 1024;

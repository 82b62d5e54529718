import { UnsupportedByProvider, UpstreamError } from "../../types.js";

const REFUSED = new Set(["AccessDeniedException", "UnrecognizedClientException", "ResourceNotFoundException"]);
const THROTTLED = new Set(["ThrottlingException", "ServiceQuotaExceededException"]);
const TIMED_OUT = new Set(["ModelTimeoutException", "TimeoutError"]);

/** Names of AWS SDK errors, and of the exception members of a ConverseStream, by their error name. */
export const STREAM_EXCEPTIONS = {
  internalServerException: "InternalServerException",
  modelStreamErrorException: "ModelStreamErrorException",
  throttlingException: "ThrottlingException",
  validationException: "ValidationException",
  serviceUnavailableException: "ServiceUnavailableException",
} as const;

/** True for the error `client.send` throws when its `abortSignal` fires; it is passed through unchanged. */
export function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}

/**
 * Maps a Bedrock failure, by its AWS error `name`, to the status the client should see. Our own errors and
 * aborts pass through unchanged, so the caller can always `throw toUpstreamError(e)`.
 */
export function toUpstreamError(error: unknown): unknown {
  if (error instanceof UpstreamError || error instanceof UnsupportedByProvider || isAbort(error)) return error;
  const name = error instanceof Error ? error.name : "UnknownError";
  const detail = error instanceof Error && error.message ? error.message : name;
  return upstreamErrorNamed(name, detail);
}

export function upstreamErrorNamed(name: string, detail: string): UpstreamError {
  if (name === "ValidationException") return new UpstreamError(400, detail);
  if (REFUSED.has(name)) {
    return new UpstreamError(502, `The bedrock backend refused the request (${name}: ${detail}); check model access and IAM`);
  }
  if (THROTTLED.has(name)) return new UpstreamError(429, `The bedrock backend is throttling requests (${name}: ${detail}); retry later`);
  if (TIMED_OUT.has(name)) return new UpstreamError(504, `The bedrock backend timed out (${name}: ${detail})`);
  return new UpstreamError(502, `The bedrock backend failed (${name}: ${detail})`);
}

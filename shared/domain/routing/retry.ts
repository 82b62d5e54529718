import { UpstreamError } from "../errors.js";

/**
 * When a model call is tried again (docs/routing.md, "Retries"). The router owns retries: the providers' own SDK
 * retries are off, so one policy decides, and a wait the upstream asks for is honoured or the call moves on.
 */
export interface RetryPolicy {
  /** Tries on one deployment, the first included. */
  attempts: number;
  /** The ceiling of the first backoff; each later one doubles, up to `maxMs`. */
  baseMs: number;
  /** The longest wait between two tries; an upstream asking for longer is left for another deployment. */
  maxMs: number;
}

/**
 * A failure of the upstream rather than of the request: throttled (429), timed out (408, 504), down or broken (any
 * other 5xx, a refused or broken connection: the providers answer those as 502). Worth another try, here or on
 * another deployment; anything else (a 4xx) is the caller's, and neither retried nor sent to a fallback.
 */
export function isUpstreamFailure(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError && (error.status === 408 || error.status === 429 || error.status >= 500);
}

/**
 * How long to wait before try `attempt + 1` on the same deployment after `failure` (try `attempt` failed), or
 * undefined when this deployment has had its tries: no tries left, or the upstream asked for a longer wait than
 * `maxMs` (another deployment may answer now). Full jitter on an exponential ceiling, so callers failing together do
 * not come back together; a Retry-After is the least wait, with up to a tenth of it added.
 */
export function retryDelayMs(failure: UpstreamError, attempt: number, policy: RetryPolicy, random: () => number = Math.random): number | undefined {
  if (attempt >= policy.attempts) return undefined;
  if (failure.retryAfterSeconds !== undefined) {
    const asked = Math.max(0, failure.retryAfterSeconds) * 1000;
    return asked > policy.maxMs ? undefined : Math.min(policy.maxMs, asked + random() * asked * 0.1);
  }
  return random() * Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1));
}

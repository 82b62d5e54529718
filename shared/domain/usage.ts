/** One model call, for spend limits and observability. */
export interface UsageRecord {
  workspace: string;
  organization: string;
  principal: string;
  requestId: string;
  model: string;
  route: string;
  promptTokens: number;
  /** Of the prompt's tokens, those the upstream read from its prompt cache (priced as the price file says). */
  cachedTokens?: number;
  completionTokens: number;
  latencyMs: number;
  /** The HTTP status the caller saw, or "stream_error" when a stream failed after its first byte. */
  status: number | "stream_error";
  backend: string;
  /** The deployment that answered (`provider/upstream`), when the call was routed to one. */
  deployment?: string;
  /** The API key the call came with ("batch" for batch job lines). */
  keyId?: string;
  /** What it cost, in micro-units of the price file's currency (shared/domain/pricing.ts). */
  costMicros?: number;
  /** Answered from the response cache (docs/routing.md): no upstream was called, so it cost nothing. */
  cached?: boolean;
  /**
   * The call's place among its request's model calls, from 1, on requests that make several (a conversation turn's
   * loop): two calls of one request at one millisecond keep two records.
   */
  call?: number;
  at: string;
}

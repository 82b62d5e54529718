import type { APIGatewayProxyEvent } from "aws-lambda";
import type { TraceContext } from "../domain/observability/genai.js";
import { cacheRequestOf, RESPONSE_CACHE_HEADER, RESPONSE_CACHE_TTL_HEADER, type CacheRequest } from "../domain/routing/response-cache.js";
import { headerOf, traceContextOf } from "./trace-context.js";

/**
 * What a model call's headers say besides its key: the caller's trace (`traceparent`), and its word on the response
 * cache (`x-response-cache`, `x-response-cache-ttl`: a malformed value is a 422, before any work).
 */
export function callHeadersOf(event: Pick<APIGatewayProxyEvent, "headers">): { trace?: TraceContext; responseCache?: CacheRequest } {
  const trace = traceContextOf(event);
  const mode = headerOf(event, RESPONSE_CACHE_HEADER);
  const ttl = headerOf(event, RESPONSE_CACHE_TTL_HEADER);
  return {
    ...(trace ? { trace } : {}),
    ...(mode !== undefined || ttl !== undefined ? { responseCache: cacheRequestOf(mode, ttl) } : {}),
  };
}

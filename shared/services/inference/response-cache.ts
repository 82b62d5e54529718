import { cachingOf, responseKeyOf, type ResponseCaching } from "../../domain/routing/response-cache.js";
export { RESPONSE_CACHE_BACKEND } from "../../domain/routing/response-cache.js";
import type { Completion, CompletionEvent } from "../../inference/types.js";
import { afterAnswer } from "../../observability/after-answer.js";
import { logger } from "../../observability/logger.js";
import { responseStore } from "../../store/responses.js";
import { cachedWorkspace } from "../identity/workspace-cache.js";
import type { CallContext } from "./usage.js";

/**
 * The response cache bound to the store (docs/routing.md, "Response cache"). Off unless the workspace or the call
 * turns it on; then one read before the upstream and one write after the answer. The workspace's setting is read
 * through the process cache every model call's span already reads it through: a call without the cache pays nothing.
 */

/** Whether the call uses the cache: started alongside the model read. Never fails: a failed read leaves the call's own word. */
export function cachingFor(ctx: Pick<CallContext, "caller" | "responseCache">): Promise<ResponseCaching | undefined> {
  if (ctx.responseCache?.mode === "off") return Promise.resolve(undefined);
  return cachedWorkspace(ctx.caller).then(
    (workspace) => cachingOf(ctx.responseCache, workspace?.responseCacheTtlSeconds),
    () => cachingOf(ctx.responseCache, undefined),
  );
}

/** What the cache and the answer need to know of the call. */
export interface CacheableCall {
  endpoint: string;
  model: { id: string };
  /** `model`: the one asked for, whose answers the key stands for. */
  cache?: { key: string; ttlSeconds: number; model: string };
  cacheHit?: boolean;
}

/** The kept answer to this request, if any; marks the call as using the cache either way. A failed read is a miss. */
export async function cachedAnswer(ctx: Pick<CallContext, "caller">, call: CacheableCall, caching: ResponseCaching | undefined, request: object): Promise<Completion | undefined> {
  if (!caching) return undefined;
  const key = responseKeyOf(call.endpoint, call.model.id, request as Record<string, unknown>);
  call.cache = { key, ttlSeconds: caching.ttlSeconds, model: call.model.id };
  const hit = await responseStore.get<Completion>(ctx.caller.workspace, key, nowSeconds()).catch((error: unknown) => {
    logger.warn("response cache not read", { error: error as Error });
    return undefined;
  });
  if (hit) call.cacheHit = true;
  return hit;
}

/**
 * Keeps a complete answer after the caller has it. An answer cut short, failed or too big is not kept, nor a
 * fallback's: once the model asked for is back, callers get its answers.
 */
export async function keepAnswer(ctx: Pick<CallContext, "caller">, call: CacheableCall, completion: Completion): Promise<void> {
  const cache = call.cache;
  if (!cache || call.cacheHit || call.model.id !== cache.model || completion.choices.some((c) => c.finishReason === "error")) return;
  await afterAnswer("response cache", async () => {
    await responseStore.put(ctx.caller.workspace, cache.key, completion, cache.ttlSeconds, nowSeconds());
  });
}

/** A kept answer as the events of a stream: each choice's text, thinking and tool calls at once, its finish, the usage. */
export async function* eventsOf(completion: Completion): AsyncGenerator<CompletionEvent> {
  for (const [index, choice] of completion.choices.entries()) {
    if (choice.thinking !== undefined) yield { type: "delta", index, thinking: choice.thinking };
    yield { type: "delta", index, content: choice.content, ...(choice.toolCalls.length ? { toolCalls: choice.toolCalls } : {}) };
    yield { type: "finish", index, reason: choice.finishReason };
  }
  if (completion.usage) yield { type: "usage", ...completion.usage };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

import type { Caller } from "../../domain/caller.js";
import type { SpanRow } from "../../domain/observability/records.js";
import type { ModelEntry } from "../../domain/models.js";
import { asApiError, CLIENT_CLOSED } from "../../domain/errors.js";
import type { InferenceProvider } from "../../inference/types.js";
import { afterAnswer } from "../../observability/after-answer.js";
import type { UsageRecord } from "../../domain/usage.js";
import { RESPONSE_CACHE_BACKEND, type CacheRequest } from "../../domain/routing/response-cache.js";
import type { SpanParent } from "../observability/span-writer.js";
import { addToDay, addToKeyMonth, addToMonth, writeRecord } from "./usage-writes.js";
import { hasTokenLimits, reserveTokens, settleTokens, type TokenReservation } from "../identity/token-limits.js";
import { assertWithinSpendLimit, costOf, totalsOf } from "../usage/spend.js";

/**
 * Usage recording: one record per model call (chat, FIM, embeddings, moderations; synchronous or from a
 * batch job), written when the call ends, failed calls included, with the status the caller saw.
 */

export interface CallContext {
  caller: Caller;
  requestId: string;
  /** The route as the route table writes it, for usage records. */
  route: string;
  signal?: AbortSignal;
  /** The trace the call's span joins (the caller's `traceparent`, a workflow run's trace); a new trace otherwise. */
  trace?: SpanParent;
  /** Span fields the caller knows and the call does not (an agent's id, name and version). */
  spanFields?: Partial<SpanRow>;
  /** What the caller's headers say of the response cache (chat and FIM routes); the workspace's setting otherwise. */
  responseCache?: CacheRequest;
  /** The call's place among its request's model calls (a conversation's loop, from 1): their usage records' keys differ. */
  callIndex?: number;
}

/** The model and backend a call went to, as its usage record names them (a fine-tuned model is priced as its root). */
export interface ModelCall {
  model: Pick<ModelEntry, "id" | "root">;
  provider: Pick<InferenceProvider, "backend">;
  /** Answered from the response cache: recorded, at no cost (no upstream was called). */
  cacheHit?: boolean;
  /** The deployment that answered (`provider/upstream`): its own price, when the price list has one, is the call's. */
  deployment?: string;
  /** The prompt's tokens, as the call counts them: reserved before the upstream when the key has token limits. */
  promptTokens?: () => number;
  /** What the call reserved of its key's token limits: settled (or given back) when its usage is recorded. */
  tokenReservation?: TokenReservation;
  /** False for the platform's own call made for another (a guardrail's check): the key's token limits count that other. */
  keyLimited?: false;
}

/**
 * Every model call goes through here: refused once the workspace's spend limit is reached (before the
 * provider is called), and a call that fails before answering still leaves its usage record, with the
 * status the caller gets.
 */
export async function failuresRecorded<T>(ctx: CallContext, prepared: ModelCall, started: number, call: () => Promise<T>, admitted?: Promise<void>): Promise<T> {
  // `admitted`: the spend-limit check when the caller started it alongside its other reads.
  await (admitted ?? assertWithinSpendLimit(ctx.caller));
  // Only keys with token limits pay for them: one conditional ADD per limit, settled in recordUsage.
  // A call of several steps (a guardrail's check, then the model) reserves once, at its first step.
  if (hasTokenLimits(ctx.caller) && !prepared.tokenReservation && prepared.keyLimited !== false) prepared.tokenReservation = await reserveTokens(ctx.caller, prepared.promptTokens?.() ?? 0);
  try {
    return await call();
  } catch (error) {
    const status = ctx.signal?.aborted ? CLIENT_CLOSED : asApiError(error).status;
    await recordUsage(ctx, prepared, { promptTokens: 0, completionTokens: 0, started, status });
    throw error;
  }
}

/**
 * One usage record per model call, and its cost added to the workspace's month and day totals: three
 * writes, each handed to the bookkeeping that runs after the caller's answer (decision 0045), retried
 * there, and logged if lost; never the call's failure. Outside an invocation (a batch line, a workflow
 * step) they run at once and this waits for them.
 */
export async function recordUsage(
  ctx: CallContext,
  prepared: ModelCall,
  call: { promptTokens: number; completionTokens: number; cachedTokens?: number | undefined; started: number; status: number | "stream_error" },
): Promise<void> {
  const at = new Date();
  const tokens = { promptTokens: call.promptTokens, completionTokens: call.completionTokens, ...(call.cachedTokens ? { cachedTokens: call.cachedTokens } : {}) };
  const cost = prepared.cacheHit ? 0 : costOf(prepared.model, tokens, prepared.deployment);
  const record: UsageRecord = {
    workspace: ctx.caller.workspace,
    organization: ctx.caller.organization,
    principal: ctx.caller.principal,
    requestId: ctx.requestId,
    model: prepared.model.id,
    route: ctx.route,
    promptTokens: call.promptTokens,
    completionTokens: call.completionTokens,
    ...(call.cachedTokens ? { cachedTokens: call.cachedTokens } : {}),
    // To the answer: the bookkeeping after it is not the caller's wait.
    latencyMs: Date.now() - call.started,
    status: call.status,
    backend: prepared.cacheHit ? RESPONSE_CACHE_BACKEND : prepared.provider.backend,
    ...(prepared.deployment && !prepared.cacheHit ? { deployment: prepared.deployment } : {}),
    keyId: ctx.caller.keyId,
    costMicros: cost,
    ...(prepared.cacheHit ? { cached: true } : {}),
    ...(ctx.callIndex ? { call: ctx.callIndex } : {}),
    at: at.toISOString(),
  };
  const totals = totalsOf(ctx.caller, prepared.model, { ...tokens, costMicros: cost }, at);
  const reservation = prepared.tokenReservation;
  prepared.tokenReservation = undefined;
  // Each write on its own: a retry of one never repeats another's ADD.
  await Promise.all([
    afterAnswer("usage record", () => writeRecord(record)),
    afterAnswer("month spend", () => addToMonth(ctx.caller, totals)),
    afterAnswer("day totals", () => addToDay(ctx.caller.workspace, totals)),
    reservation ? afterAnswer("token limits", () => settleTokens(reservation, call.promptTokens + call.completionTokens)) : undefined,
    ctx.caller.monthlyBudget !== undefined && cost > 0 ? afterAnswer("key month spend", () => addToKeyMonth(ctx.caller, totals)) : undefined,
  ]);
}

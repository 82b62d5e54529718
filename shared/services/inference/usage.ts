import type { Caller } from "../../domain/caller.js";
import type { SpanRow } from "../../domain/observability/records.js";
import type { ModelEntry } from "../../domain/models.js";
import { asApiError, CLIENT_CLOSED } from "../../domain/errors.js";
import type { InferenceProvider } from "../../inference/types.js";
import { logger } from "../../observability/logger.js";
import type { SpanParent } from "../observability/span-writer.js";
import { usageStore } from "../../store/usage.js";
import { assertWithinSpendLimit, charge, costOf } from "../usage/spend.js";

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
}

/** The model and backend a call went to, as its usage record names them (a fine-tuned model is priced as its root). */
export interface ModelCall {
  model: Pick<ModelEntry, "id" | "root">;
  provider: Pick<InferenceProvider, "backend">;
}

/**
 * Every model call goes through here: refused once the workspace's spend limit is reached (before the
 * provider is called), and a call that fails before answering still leaves its usage record, with the
 * status the caller gets.
 */
export async function failuresRecorded<T>(ctx: CallContext, prepared: ModelCall, started: number, call: () => Promise<T>): Promise<T> {
  await assertWithinSpendLimit(ctx.caller);
  try {
    return await call();
  } catch (error) {
    const status = ctx.signal?.aborted ? CLIENT_CLOSED : asApiError(error).status;
    await recordUsage(ctx, prepared, { promptTokens: 0, completionTokens: 0, started, status });
    throw error;
  }
}

/** One usage record per model call, and its cost added to the workspace's totals; a failure to record is logged, never turned into a failed call. */
export async function recordUsage(
  ctx: CallContext,
  prepared: ModelCall,
  call: { promptTokens: number; completionTokens: number; started: number; status: number | "stream_error" },
): Promise<void> {
  const at = new Date();
  const tokens = { promptTokens: call.promptTokens, completionTokens: call.completionTokens };
  const cost = costOf(prepared.model, tokens);
  // The record and the totals are written independently: either failing is logged, never the call's failure.
  const written = await Promise.allSettled([
    usageStore.record({
      workspace: ctx.caller.workspace,
      organization: ctx.caller.organization,
      principal: ctx.caller.principal,
      requestId: ctx.requestId,
      model: prepared.model.id,
      route: ctx.route,
      promptTokens: call.promptTokens,
      completionTokens: call.completionTokens,
      latencyMs: Date.now() - call.started,
      status: call.status,
      backend: prepared.provider.backend,
      keyId: ctx.caller.keyId,
      costMicros: cost,
      at: at.toISOString(),
    }),
    charge(ctx.caller, prepared.model, { ...tokens, costMicros: cost }, at),
  ]);
  for (const outcome of written) {
    if (outcome.status === "rejected") logger.error("usage not recorded", { error: outcome.reason as Error, requestId: ctx.requestId });
  }
}

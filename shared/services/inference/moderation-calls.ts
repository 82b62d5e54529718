import { randomUUID } from "node:crypto";
import { providerNamed } from "../../inference/registry.js";
import type { Moderation } from "../../inference/types.js";
import { invocationStartedAt } from "../../observability/after-answer.js";
import { requireEndpoint, type ModelEntry } from "../../domain/models.js";
import { assertWithinSpendLimit } from "../usage/spend.js";
import { bodyModel } from "../models/catalog.js";
import { failuresRecorded, recordUsage, type CallContext, type ModelCall } from "./usage.js";
import { routed } from "./routing.js";
import { tokensPerInput } from "./input-tokens.js";

/*
 * A moderation model's call, shared by the moderation and classification routes (./moderations.ts) and by guardrails
 * (./guardrails.ts), which chat calls run: kept apart from the routes' answers so the chat path can reach it.
 */

export interface Moderated {
  id: string;
  model: string;
  results: Moderation[];
  backend: string;
  deployment: string;
  /** Server-Timing's figures (ms), as CallTiming has them. */
  timing: { before: number; upstream: number; after: number };
}

/** How a moderation is asked for: by the caller (its key's limits apply), or by a guardrail of the platform's. */
export interface ModerationOptions {
  /**
   * False for a guardrail's check: the workspace's guardrails apply to every key, whatever models the key may call,
   * and the key's token limits count the call the check guards (its prompt is the same text), not the check.
   */
  keyLimits?: boolean;
}

/**
 * The one path every moderation and classification takes, batch jobs' `/v1/moderations` lines and guardrails'
 * checks included: the model must serve moderations, each input within its context, one result per input in input
 * order, and a usage record like every model call. `inputs` may depend on the model (a guardrail cuts a long
 * conversation to the model's context).
 */
export async function moderateTexts(ctx: CallContext, modelName: string, inputs: string[] | ((model: ModelEntry) => string[]), options: ModerationOptions = {}): Promise<Moderated> {
  const since = invocationStartedAt() ?? performance.now();
  const admitted = assertWithinSpendLimit(ctx.caller);
  admitted.catch(() => undefined);
  const model = await bodyModel(options.keyLimits === false ? { workspace: ctx.caller.workspace } : ctx.caller, modelName);
  requireEndpoint(model, "moderations");
  const texts = typeof inputs === "function" ? inputs(model) : inputs;
  const tokens = tokensPerInput(model, texts);
  // The first deployment's provider names the backend of a call that fails before any answer.
  let provider = await providerNamed(model.provider);
  const started = Date.now();
  await admitted;
  const upstreamStart = performance.now();
  // Routed over the model's own deployments (docs/routing.md), never to a fallback: the scores are this model's.
  const routing = { withFallbacks: false, ...(ctx.signal ? { signal: ctx.signal } : {}) };
  const call: ModelCall = { model, provider, promptTokens: () => tokens().reduce((a, b) => a + b, 0), ...(options.keyLimits === false ? { keyLimited: false } : {}) };
  const answer = await failuresRecorded(
    ctx,
    call,
    started,
    () => routed(ctx.caller, model, "moderations", routing, (upstreamProvider, upstream, _model, signal) => upstreamProvider.moderate({ model: upstream, inputs: texts }, { signal })),
    admitted,
  );
  provider = answer.provider;
  call.provider = provider;
  call.deployment = answer.deployment.id;
  const upstreamEnd = performance.now();
  await recordUsage(ctx, call, { promptTokens: call.promptTokens!(), completionTokens: 0, started, status: 200 });
  const timing = { before: upstreamStart - since, upstream: upstreamEnd - upstreamStart, after: performance.now() - upstreamEnd };
  return { id: `mod-${randomUUID().replaceAll("-", "")}`, model: model.id, results: answer.value, backend: provider.backend, deployment: answer.deployment.provider, timing };
}

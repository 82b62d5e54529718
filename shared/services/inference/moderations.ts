import { randomUUID } from "node:crypto";
import { providerNamed } from "../../inference/registry.js";
import type { Moderation } from "../../inference/types.js";
import type {
  ChatClassificationRequest,
  ChatModerationRequest,
  ClassificationOut,
  ClassificationRequest,
  ModerationOut,
  ModerationRequest,
} from "../../schemas/inference.js";
import type { CallTiming, ModelAnswer } from "./completions.js";
import { invocationStartedAt } from "../../observability/after-answer.js";
import { assertWithinSpendLimit } from "../usage/spend.js";
import { failuresRecorded, recordUsage, type CallContext } from "./usage.js";
import { routed } from "./routing.js";
import { tokensPerInput } from "./embeddings.js";
import { bodyModel } from "../models/catalog.js";
import { requireEndpoint } from "../../domain/models.js";
import { conversationsOf, conversationText, moderationAsClassification } from "../../domain/classifiers.js";

interface Moderated {
  id: string;
  model: string;
  results: Moderation[];
  backend: string;
  deployment: string;
  timing: CallTiming;
}

/**
 * The one path every moderation and classification takes, batch jobs' `/v1/moderations` lines included:
 * the model must serve moderations, each input within its context, one result per input in input order,
 * and a usage record like every model call.
 */
async function moderateTexts(ctx: CallContext, modelName: string, inputs: string[]): Promise<Moderated> {
  const since = invocationStartedAt() ?? performance.now();
  const admitted = assertWithinSpendLimit(ctx.caller);
  admitted.catch(() => undefined);
  const model = await bodyModel(ctx.caller, modelName);
  requireEndpoint(model, "moderations");
  const tokens = tokensPerInput(model, inputs);
  // The first deployment's provider names the backend of a call that fails before any answer.
  let provider = await providerNamed(model.provider);
  const started = Date.now();
  await admitted;
  const upstreamStart = performance.now();
  // Routed over the model's own deployments (docs/routing.md), never to a fallback: the scores are this model's.
  const routing = { withFallbacks: false, ...(ctx.signal ? { signal: ctx.signal } : {}) };
  const answer = await failuresRecorded(
    ctx,
    { model, provider },
    started,
    () => routed(ctx.caller, model, "moderations", routing, (upstreamProvider, upstream, _model, signal) => upstreamProvider.moderate({ model: upstream, inputs }, { signal })),
    admitted,
  );
  provider = answer.provider;
  const upstreamEnd = performance.now();
  const promptTokens = tokens().reduce((a, b) => a + b, 0);
  await recordUsage(ctx, { model, provider }, { promptTokens, completionTokens: 0, started, status: 200 });
  const timing = { before: upstreamStart - since, upstream: upstreamEnd - upstreamStart, after: performance.now() - upstreamEnd };
  return { id: `mod-${randomUUID().replaceAll("-", "")}`, model: model.id, results: answer.value, backend: provider.backend, deployment: answer.deployment.provider, timing };
}

const asModeration = (m: Moderated): ModelAnswer<ModerationOut> => ({
  kind: "answer",
  body: { id: m.id, model: m.model, results: m.results.map((r) => ({ categories: r.categories, category_scores: r.categoryScores })) },
  backend: m.backend,
  deployment: m.deployment,
  timing: m.timing,
});

const asClassification = (m: Moderated): ModelAnswer<ClassificationOut> => ({
  kind: "answer",
  body: { id: m.id, model: m.model, results: m.results.map((r) => moderationAsClassification(r.categoryScores)) },
  backend: m.backend,
  deployment: m.deployment,
  timing: m.timing,
});

const textsOf = (input: string | string[]) => (typeof input === "string" ? [input] : input);

/** POST /v1/moderations (and batch jobs' moderation lines). */
export const moderate = async (ctx: CallContext, request: ModerationRequest) => asModeration(await moderateTexts(ctx, request.model, textsOf(request.input)));

/** POST /v1/chat/moderations (extension): each conversation as one input. */
export const moderateChat = async (ctx: CallContext, request: ChatModerationRequest) =>
  asModeration(await moderateTexts(ctx, request.model, conversationsOf(request.input).map(conversationText)));

/** POST /v1/classifications (extension): a moderation model's categories as the scores of one target. */
export const classify = async (ctx: CallContext, request: ClassificationRequest) => asClassification(await moderateTexts(ctx, request.model, textsOf(request.input)));

/** POST /v1/chat/classifications (extension): each `{messages}` as one input. */
export const classifyChat = async (ctx: CallContext, request: ChatClassificationRequest) => {
  const instructs = Array.isArray(request.input) ? request.input : [request.input];
  return asClassification(await moderateTexts(ctx, request.model, instructs.map((i) => conversationText(i.messages))));
};

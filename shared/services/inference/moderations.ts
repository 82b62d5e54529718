import type {
  ChatClassificationRequest,
  ChatModerationRequest,
  ClassificationOut,
  ClassificationRequest,
  ModerationOut,
  ModerationRequest,
} from "../../schemas/inference.js";
import type { ModelAnswer } from "./completions.js";
import type { CallContext } from "./usage.js";
import { moderateTexts, type Moderated } from "./moderation-calls.js";
import { conversationsOf, conversationText, moderationAsClassification } from "../../domain/classifiers.js";

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

/**
 * The model-calling services answer with data (a body or a stream of frames, and the backend that
 * served it); the routes that call a model send it with the backend named in a header. Handlers of
 * the inference and agents areas import these instead of the services.
 */
import { Reply } from "../shared/http/reply.js";
import { SERVER_TIMING_HEADER, serverTiming } from "../shared/http/server-timing.js";
import { RESPONSE_CACHE_HEADER } from "../shared/domain/routing/response-cache.js";
import type { AgentsCompletionRequest } from "../shared/schemas/agent.js";
import type {
  ChatClassificationRequest,
  ChatCompletionRequest,
  ChatModerationRequest,
  ClassificationRequest,
  EmbeddingRequest,
  FimCompletionRequest,
  ModerationRequest,
} from "../shared/schemas/inference.js";
import * as agentCompletions from "../shared/services/agents/completions.js";
import * as completions from "../shared/services/inference/completions.js";
import * as embeddings from "../shared/services/inference/embeddings.js";
import * as moderations from "../shared/services/inference/moderations.js";
import type { CallContext } from "../shared/services/inference/usage.js";

const BACKEND_HEADER = "x-inference-backend";
/** Which of the model's deployments answered (its catalog provider: docs/routing.md). */
const DEPLOYMENT_HEADER = "x-inference-deployment";

export function toReply(answer: completions.ModelAnswer<unknown> | completions.ModelStream): Reply {
  const headers: Record<string, string> = { [BACKEND_HEADER]: answer.backend };
  if (answer.deployment) headers[DEPLOYMENT_HEADER] = answer.deployment;
  if (answer.timing) headers[SERVER_TIMING_HEADER] = serverTiming(answer.timing);
  if ("cache" in answer && answer.cache) headers[RESPONSE_CACHE_HEADER] = answer.cache;
  return answer.kind === "stream" ? Reply.events(answer.frames, headers) : Reply.json(200, answer.body, headers);
}

export const chat = async (ctx: CallContext, request: ChatCompletionRequest): Promise<Reply> => toReply(await completions.chat(ctx, request));
export const fim = async (ctx: CallContext, request: FimCompletionRequest): Promise<Reply> => toReply(await completions.fim(ctx, request));
export const embed = async (ctx: CallContext, request: EmbeddingRequest): Promise<Reply> => toReply(await embeddings.embed(ctx, request));
export const moderate = async (ctx: CallContext, request: ModerationRequest): Promise<Reply> => toReply(await moderations.moderate(ctx, request));
export const moderateChat = async (ctx: CallContext, request: ChatModerationRequest): Promise<Reply> => toReply(await moderations.moderateChat(ctx, request));
export const classify = async (ctx: CallContext, request: ClassificationRequest): Promise<Reply> => toReply(await moderations.classify(ctx, request));
export const classifyChat = async (ctx: CallContext, request: ChatClassificationRequest): Promise<Reply> => toReply(await moderations.classifyChat(ctx, request));
export const complete = async (ctx: CallContext, request: AgentsCompletionRequest): Promise<Reply> => toReply(await agentCompletions.complete(ctx, request));

import { randomUUID } from "node:crypto";
import { callerOf, THROTTLE_RETRY, withRetries, type ChunkRequest, type RetryPolicy, type SavedLine } from "../../../domain/batch-engine.js";
import type { BatchJobRecord } from "../../../domain/batch-rules.js";
import { ApiError, asApiError, BadRequest } from "../../../domain/errors.js";
import { validated } from "../../../domain/validation.js";
import { logger } from "../../../observability/logger.js";
import { batchTraceId } from "../../../domain/observability/genai.js";
import { AgentsCompletionRequest } from "../../../schemas/agent.js";
import { ChatClassificationRequest, ChatCompletionRequest, ChatModerationRequest, ClassificationRequest, EmbeddingRequest, FimCompletionRequest, ModerationRequest } from "../../../schemas/inference.js";
import { OcrRequest } from "../../../schemas/ocr.js";
import { ConversationRequest } from "../../../schemas/conversation.js";
import * as agentCompletions from "../../agents/completions.js";
import * as completions from "../../inference/completions.js";
import type { ModelAnswer, ModelStream } from "../../inference/completions.js";
import type { CallContext } from "../../inference/usage.js";
import { embed } from "../../inference/embeddings.js";
import { classify, classifyChat, moderate, moderateChat } from "../../inference/moderations.js";
import { processDocument } from "../../ocr/ocr.js";
import * as conversations from "../../conversations/conversations.js";

/** One request, end to end: its output line, or its error line when it fails (a failed request never fails the chunk). */
export async function runRequest(job: BatchJobRecord, request: ChunkRequest, retry: RetryPolicy = THROTTLE_RETRY): Promise<SavedLine> {
  const id = `batch-${randomUUID()}`;
  const custom_id = request.custom_id ?? null;
  try {
    const body = await callEndpoint(job, request.body, id, retry);
    return { ok: true, json: JSON.stringify({ id, custom_id, response: { status_code: 200, body }, error: null }) };
  } catch (error) {
    if (!(error instanceof ApiError)) logger.error("batch request failed", { error: error as Error, jobId: job.id });
    const { message, status } = asApiError(error);
    return { ok: false, json: JSON.stringify({ id, custom_id, response: null, error: { message, code: status } }) };
  }
}

async function callEndpoint(job: BatchJobRecord, body: Record<string, unknown>, requestId: string, retry: RetryPolicy): Promise<unknown> {
  const call = requestFor(job, body);
  // Every line of a job records its model call's span in one trace per job (docs/observability/ingest.md).
  const ctx: CallContext = { caller: callerOf(job), requestId, route: `batch POST ${job.endpoint}`, trace: { traceId: batchTraceId(job.id), parentSpanId: "", traceState: "" } };
  const answer = await withRetries(() => call(ctx), retry);
  if (answer.kind !== "answer") throw new Error("The endpoint answered with a stream");
  return answer.body;
}


/**
 * The call a request body stands for, validated as the synchronous route validates it: the job's model
 * replaces the body's (or the job's agent answers), and nothing streams.
 */
function requestFor(job: BatchJobRecord, body: Record<string, unknown>): (ctx: CallContext) => Promise<ModelAnswer<unknown> | ModelStream> {
  const model = job.model ?? body.model;
  switch (job.endpoint) {
    case "/v1/chat/completions": {
      if (job.agentId) {
        const { model: _model, ...rest } = body;
        const request = validated(AgentsCompletionRequest, { ...rest, agent_id: job.agentId, stream: false }, "body");
        return (ctx) => agentCompletions.complete(ctx, request);
      }
      const request = validated(ChatCompletionRequest, { ...body, model, stream: false }, "body");
      return (ctx) => completions.chat(ctx, request);
    }
    case "/v1/fim/completions": {
      const request = validated(FimCompletionRequest, { ...body, model, stream: false }, "body");
      return (ctx) => completions.fim(ctx, request);
    }
    case "/v1/embeddings": {
      const request = validated(EmbeddingRequest, { ...body, model }, "body");
      return (ctx) => embed(ctx, request);
    }
    case "/v1/moderations": {
      const request = validated(ModerationRequest, { ...body, model }, "body");
      return (ctx) => moderate(ctx, request);
    }
    case "/v1/chat/moderations": {
      const request = validated(ChatModerationRequest, { ...body, model }, "body");
      return (ctx) => moderateChat(ctx, request);
    }
    case "/v1/classifications": {
      const request = validated(ClassificationRequest, { ...body, model }, "body");
      return (ctx) => classify(ctx, request);
    }
    case "/v1/chat/classifications": {
      const request = validated(ChatClassificationRequest, { ...body, model }, "body");
      return (ctx) => classifyChat(ctx, request);
    }
    case "/v1/ocr": {
      const request = validated(OcrRequest, { ...body, model }, "body");
      return (ctx) => processDocument(ctx, request);
    }
    case "/v1/conversations": {
      // A line starts a conversation with the job's model or agent and runs its loop, as the route does (docs/conversations.md).
      const { model: _model, agent_id: _agent, ...rest } = body;
      const request = validated(ConversationRequest, { ...rest, ...(job.agentId ? { agent_id: job.agentId } : { model }), stream: false }, "body");
      return async (ctx) => {
        const turn = await conversations.start(ctx, request);
        if (turn.kind !== "answer") throw new Error("A conversation line answered with a stream");
        return { kind: "answer", body: turn.body, backend: "conversation" };
      };
    }
    default:
      throw new BadRequest(`Batch jobs do not serve the endpoint '${String(job.endpoint)}'`, "unsupported_endpoint");
  }
}

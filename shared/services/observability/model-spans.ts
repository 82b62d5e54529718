import { chatInput, outputMessages, textInput, type ChatLikeMessage } from "../../domain/observability/genai.js";
import type { SpanRow } from "../../domain/observability/records.js";
import type { ChatCompletionRequest, EmbeddingRequest, FimCompletionRequest } from "../../schemas/inference.js";
import type { SpanEnd, SpanStart } from "./span-writer.js";

/**
 * How each kind of model call fills its span's request side (GenAI `gen_ai.request.*`, content) and its
 * answer's side: one place, so the synchronous routes, batch lines and workflow steps record alike.
 */

type Start = Omit<SpanStart, "caller" | "parent">;

const stops = (stop: string | string[] | null | undefined): string[] => (stop === null || stop === undefined ? [] : typeof stop === "string" ? [stop] : stop);

function conversationOf(metadata: Record<string, unknown> | null | undefined): string {
  const id = metadata?.conversation_id;
  return typeof id === "string" ? id.slice(0, 256) : "";
}

const outputType = (format: ChatCompletionRequest["response_format"]): string => (!format ? "" : format.type === "text" ? "text" : "json");

/** Sampling parameters chat and FIM share. */
function samplingFields(request: Pick<ChatCompletionRequest, "max_tokens" | "temperature" | "top_p" | "random_seed" | "stop" | "metadata">): Partial<SpanRow> {
  return {
    request_max_tokens: request.max_tokens ?? 0,
    request_temperature: request.temperature ?? null,
    request_top_p: request.top_p ?? null,
    request_seed: request.random_seed ?? 0,
    request_stop_sequences: stops(request.stop),
    conversation_id: conversationOf(request.metadata),
  };
}

export function chatSpan(request: ChatCompletionRequest, operation = "chat"): Start {
  return {
    operation,
    requestModel: request.model,
    fields: {
      ...samplingFields(request),
      request_choice_count: request.n ?? 1,
      request_presence_penalty: request.presence_penalty ?? null,
      request_frequency_penalty: request.frequency_penalty ?? null,
      output_type: outputType(request.response_format),
    },
    content: () => {
      const { system, input } = chatInput(request.messages as ChatLikeMessage[]);
      return { input_messages: input, system_instructions: system, tool_definitions: request.tools?.length ? JSON.stringify(request.tools) : "" };
    },
  };
}

export function fimSpan(request: FimCompletionRequest): Start {
  return {
    operation: "text_completion",
    requestModel: request.model,
    fields: { ...samplingFields(request), request_choice_count: 1, output_type: "text" },
    content: () => ({ input_messages: textInput([request.prompt + (request.suffix ? `\n<suffix>\n${request.suffix}` : "")]) }),
  };
}

export function embeddingsSpan(request: EmbeddingRequest): Start {
  const inputs = typeof request.input === "string" ? [request.input] : request.input;
  return {
    operation: "embeddings",
    requestModel: request.model,
    fields: { request_encoding_formats: [request.encoding_format], conversation_id: conversationOf(request.metadata) },
    attributes: { "gen_ai.embeddings.input_count": String(inputs.length), ...(request.output_dimension ? { "gen_ai.embeddings.dimension.count": String(request.output_dimension) } : {}) },
    content: () => ({ input_messages: textInput(inputs) }),
  };
}

/** A completion's answer, however it arrived. */
export interface CompletionOutcome {
  model: string;
  id: string;
  choices: { content: string; thinking?: string; toolCalls?: { id?: string; function: { name: string; arguments: unknown } }[]; finishReason: string }[];
  usage: { input: number; output: number };
}

export const completionEnd = (outcome: CompletionOutcome): SpanEnd => ({
  responseModel: outcome.model,
  responseId: outcome.id,
  finishReasons: outcome.choices.map((c) => c.finishReason),
  usage: outcome.usage,
  outputMessages: () => outputMessages(outcome.choices),
});

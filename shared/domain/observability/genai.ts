import { createHash, randomFillSync } from "node:crypto";
import type { SpanRow } from "./records.js";

/**
 * The OpenTelemetry GenAI semantic conventions as the span writer and the OTLP ingest use them: message JSON
 * (`gen_ai.input.messages` / `gen_ai.output.messages` / `gen_ai.system_instructions`), W3C trace context, ids,
 * and an empty span row that writers fill.
 */

export type GenAiPart =
  | { type: "text"; content: string }
  | { type: "tool_call"; id: string; name: string; arguments: unknown }
  | { type: "tool_call_response"; id: string; response: unknown }
  | { type: "reasoning"; content: string };

export interface GenAiMessage {
  role: string;
  parts: GenAiPart[];
  finish_reason?: string;
}

/** What a chat message looks like to the converter: Mistral's message shapes, loosely. */
export interface ChatLikeMessage {
  role: string;
  content?: string | readonly { type: string; text?: unknown }[] | null;
  tool_calls?: readonly { id?: string; function: { name: string; arguments: unknown } }[] | null;
  tool_call_id?: string | null;
}

function textOf(content: ChatLikeMessage["content"]): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((chunk) => (typeof chunk.text === "string" ? chunk.text : "")).join("");
}

/** One chat message in GenAI form: its text, its tool calls, a tool message's result. */
export function genAiMessage(message: ChatLikeMessage): GenAiMessage {
  const text = textOf(message.content);
  if (message.role === "tool") return { role: "tool", parts: [{ type: "tool_call_response", id: message.tool_call_id ?? "", response: text }] };
  const parts: GenAiPart[] = text ? [{ type: "text", content: text }] : [];
  for (const call of message.tool_calls ?? []) parts.push({ type: "tool_call", id: call.id ?? "", name: call.function.name, arguments: call.function.arguments });
  return { role: message.role, parts };
}

/** A chat request's messages split as the conventions do: system messages are the instructions, the rest the input. */
export function chatInput(messages: readonly ChatLikeMessage[]): { system: string; input: string } {
  const system = messages.filter((m) => m.role === "system").map((m) => ({ type: "text", content: textOf(m.content) }));
  const input = messages.filter((m) => m.role !== "system").map(genAiMessage);
  return { system: system.length ? JSON.stringify(system) : "", input: JSON.stringify(input) };
}

/** One text prompt (FIM, an embeddings input) as a user message list. */
export const textInput = (texts: readonly string[]): string => JSON.stringify(texts.map((content) => ({ role: "user", parts: [{ type: "text", content }] })));

/** Model choices as GenAI output messages. */
export function outputMessages(choices: readonly { content: string; thinking?: string; toolCalls?: readonly { id?: string; function: { name: string; arguments: unknown } }[]; finishReason: string }[]): string {
  return JSON.stringify(
    choices.map((choice) => {
      const parts: GenAiPart[] = [];
      if (choice.thinking) parts.push({ type: "reasoning", content: choice.thinking });
      if (choice.content) parts.push({ type: "text", content: choice.content });
      for (const call of choice.toolCalls ?? []) parts.push({ type: "tool_call", id: call.id ?? "", name: call.function.name, arguments: call.function.arguments });
      return { role: "assistant", parts, finish_reason: choice.finishReason };
    }),
  );
}

/** A W3C trace context (`traceparent: 00-<trace 32 hex>-<parent span 16 hex>-<flags>`). */
export interface TraceContext {
  traceId: string;
  parentSpanId: string;
  traceState: string;
}

/** W3C trace context: version-traceid-parentid-flags, lowercase hex; version ff and all-zero ids are invalid. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The caller's trace context, when its `traceparent` is valid; otherwise undefined. One parser for every caller
 * of the platform: model-call spans and workflow executions (shared/domain/workflows/trace-context.ts).
 */
export function parseTraceparent(traceparent: string | null | undefined, tracestate?: string): TraceContext | undefined {
  const match = TRACEPARENT.exec((traceparent ?? "").trim());
  if (!match) return undefined;
  const [, version, traceId, parentSpanId, , rest] = match;
  if (version === "ff" || /^0+$/.test(traceId!) || /^0+$/.test(parentSpanId!)) return undefined;
  // Version 00 has exactly four fields; later versions may add more.
  if (version === "00" && rest) return undefined;
  return { traceId: traceId!, parentSpanId: parentSpanId!, traceState: (tracestate ?? "").slice(0, 512) };
}

/**
 * Random bytes for ids, drawn from a pool refilled 4 KB at a time (as Node does for randomUUID): one
 * `randomBytes` call per id cost a system call each, on every model call's path (two ids a span).
 */
const pool = Buffer.alloc(4096);
let used = pool.length;
function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += bytes;
  return pool.toString("hex", used - bytes, used);
}

export const newTraceId = (): string => randomHex(16);

/** The trace of a batch job's lines: derived from the job id, so every line's span joins it without storing it. */
export const batchTraceId = (jobId: string): string => createHash("sha256").update(`batch:${jobId}`).digest("hex").slice(0, 32);
export const newSpanId = (): string => randomHex(8);

/** A span row with every field at its empty value, for writers to fill. */
export function emptySpan(fields: Pick<SpanRow, "trace_id" | "span_id" | "workspace_id" | "organization_id">): SpanRow {
  return {
    customer_id: "",
    user_id: "",
    parent_span_id: "",
    trace_state: "",
    start_time: "",
    end_time: "",
    duration_ns: 0,
    span_name: "",
    span_kind: "Internal",
    service_name: "",
    status_code: "Unset",
    status_message: "",
    error_type: "",
    operation_name: "",
    provider_name: "",
    request_model: "",
    response_model: "",
    response_id: "",
    output_type: "",
    conversation_id: "",
    data_source_id: "",
    agent_id: "",
    agent_name: "",
    agent_version: "",
    agent_description: "",
    workflow_name: "",
    prompt_name: "",
    tool_name: "",
    tool_type: "",
    tool_call_id: "",
    input_messages: "",
    output_messages: "",
    system_instructions: "",
    tool_definitions: "",
    tool_call_arguments: "",
    tool_call_result: "",
    request_choice_count: 0,
    request_max_tokens: 0,
    request_temperature: null,
    request_top_p: null,
    request_top_k: null,
    request_presence_penalty: null,
    request_frequency_penalty: null,
    request_seed: 0,
    request_stop_sequences: [],
    request_encoding_formats: [],
    response_finish_reasons: [],
    usage_input_tokens: 0,
    usage_output_tokens: 0,
    usage_cache_read_input_tokens: 0,
    usage_cache_creation_input_tokens: 0,
    resource_attributes: {},
    span_attributes: {},
    scope_name: "",
    scope_version: "",
    ...fields,
  };
}

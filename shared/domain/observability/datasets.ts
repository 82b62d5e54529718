/**
 * Datasets and dataset records (docs/observability/datasets.md, decision 41): what is stored, how it is
 * answered, the observability errors they raise, the conversation check of a payload and the payload a span
 * becomes. Pure: the store and the services do the I/O.
 */
import { ApiError } from "../errors.js";
import type { DatasetOut, DatasetRecordOut, DatasetRecordSource } from "../../schemas/observability/datasets.js";
import type { SpanRow } from "./records.js";

export interface Dataset {
  workspace: string;
  id: string;
  name: string;
  description: string;
  ownerId: string;
  createdAt: string;
  updatedAt: string;
}

/** Where a record made from a span came from: its span evaluations are filed under this span. */
export interface SpanOrigin {
  traceId: string;
  spanId: string;
  conversationId: string;
  responseId: string;
}

export interface DatasetRecord {
  workspace: string;
  id: string;
  datasetId: string;
  createdAt: string;
  updatedAt: string;
  payload: Record<string, unknown>;
  properties: Record<string, unknown>;
  source: DatasetRecordSource;
  /** Only on records made from a span (source TELEMETRY_SPAN). */
  span?: SpanOrigin;
}

/** Deletes are hard deletes (decision 41): an answered dataset or record is never deleted. */
export const toDatasetOut = (dataset: Dataset): DatasetOut => ({
  id: dataset.id,
  created_at: dataset.createdAt,
  updated_at: dataset.updatedAt,
  deleted_at: null,
  name: dataset.name,
  description: dataset.description,
  owner_id: dataset.ownerId,
  workspace_id: dataset.workspace,
});

export const toRecordOut = (record: DatasetRecord): DatasetRecordOut => ({
  id: record.id,
  created_at: record.createdAt,
  updated_at: record.updatedAt,
  deleted_at: null,
  dataset_id: record.datasetId,
  payload: record.payload,
  properties: record.properties,
  source: record.source,
});

/** An error of the observability family with its `error_code` (shared/http/errors.ts renders it). */
export const observabilityError = (status: number, code: string, message: string): ApiError =>
  new ApiError(status, status === 404 ? "not_found_error" : status >= 500 ? "server_error" : "invalid_request_error", message, code.toLowerCase(), null, {
    familyCodes: { observability: code },
  });

export const datasetNotFound = (id: string) => observabilityError(404, "DATASET_NOT_FOUND", `No dataset with id '${id}' exists in this workspace`);
export const recordNotFound = (ids: string[]) =>
  observabilityError(404, "DATASET_RECORD_NOT_FOUND", ids.length === 1 ? `No dataset record with id '${ids[0]}' exists in this workspace` : `No dataset records with ids ${ids.map((id) => `'${id}'`).join(", ")} exist in this workspace; none was deleted`);
export const spanNotFound = (refs: { trace_id: string; span_id: string }[]) =>
  observabilityError(404, "SPAN_NOT_FOUND", `No span ${refs.map((r) => `${r.span_id} of trace ${r.trace_id}`).join(", ")} exists in this workspace; no record was made`);
export const recordFormatError = (message: string) => observabilityError(422, "DATASET_RECORD_FORMAT_ERROR", message);

/** A record must fit one DynamoDB item (400 KB) with its keys and attributes: payload and properties together at most this, as JSON. */
export const MAX_RECORD_BYTES = 350_000;

export function checkRecordSize(payload: Record<string, unknown>, properties: Record<string, unknown>): void {
  const bytes = Buffer.byteLength(JSON.stringify(payload)) + Buffer.byteLength(JSON.stringify(properties));
  if (bytes > MAX_RECORD_BYTES) throw new ApiError(413, "invalid_request_error", `A dataset record's payload and properties are ${bytes} bytes of JSON, over the ${MAX_RECORD_BYTES} a record holds`, "payload_too_large");
}

const ROLES = new Set(["system", "user", "assistant", "tool"]);

/**
 * A conversation payload (one with `messages`) is checked as a chat conversation: an array of messages, each
 * with a known `role` and a `content` that is text, an array of content chunks, or null/absent for an
 * assistant turn with `tool_calls`. Other payloads are free-form. 422 DATASET_RECORD_FORMAT_ERROR names the
 * first problem.
 */
export function checkConversation(payload: Record<string, unknown>): void {
  if (!("messages" in payload)) return;
  const messages = payload.messages;
  if (!Array.isArray(messages)) throw recordFormatError("payload.messages must be an array of chat messages");
  checkMessages(messages, "payload.messages", recordFormatError);
}

/** The same check of each chat message, its error named by the caller (a saved judge's conversation: JUDGE_CONVERSATION_FORMAT_ERROR at `messages`). */
export function checkMessages(messages: unknown[], path: string, formatError: (message: string) => ApiError): void {
  messages.forEach((message: unknown, index) => {
    const at = `${path}[${index}]`;
    if (!message || typeof message !== "object" || Array.isArray(message)) throw formatError(`${at} must be an object with role and content`);
    const { role, content, tool_calls: toolCalls } = message as Record<string, unknown>;
    if (typeof role !== "string" || !ROLES.has(role)) throw formatError(`${at}.role must be one of system, user, assistant, tool`);
    const contentOk =
      typeof content === "string" ||
      (Array.isArray(content) && content.every((chunk) => chunk !== null && typeof chunk === "object" && typeof (chunk as { type?: unknown }).type === "string")) ||
      ((content === null || content === undefined) && role === "assistant" && Array.isArray(toolCalls));
    if (!contentOk) throw formatError(`${at}.content must be a string or an array of content chunks (or null on an assistant turn with tool_calls)`);
  });
}

/** A chat message as a record payload holds it. */
export interface ChatMessage {
  role: string;
  content: string;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

interface GenAiPart {
  type?: string;
  content?: unknown;
  id?: string;
  name?: string;
  arguments?: unknown;
  response?: unknown;
  result?: unknown;
}

const asText = (value: unknown): string => (typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value));

function parseMessages(json: string): { role?: string; parts?: GenAiPart[] }[] {
  if (!json) return [];
  try {
    const parsed = JSON.parse(json) as unknown;
    return Array.isArray(parsed) ? (parsed as { role?: string; parts?: GenAiPart[] }[]) : [];
  } catch {
    return [];
  }
}

/**
 * GenAI semantic-conventions messages (`[{role, parts:[{type:"text", content}]}]`, the contract's form) as chat
 * messages: text parts joined with "\n"; `tool_call` parts become an assistant turn's tool_calls;
 * `tool_call_response` parts become tool messages.
 */
export function chatMessagesOf(json: string): ChatMessage[] {
  return parseMessages(json).flatMap((message): ChatMessage[] => {
    const parts = Array.isArray(message.parts) ? message.parts : [];
    const role = typeof message.role === "string" ? message.role : "user";
    const text = parts
      .filter((p) => p.type === "text" || p.type === "reasoning")
      .map((p) => asText(p.content))
      .join("\n");
    const calls = parts.filter((p) => p.type === "tool_call");
    const responses = parts.filter((p) => p.type === "tool_call_response");
    if (responses.length) return responses.map((p) => ({ role: "tool", content: asText(p.response ?? p.result ?? p.content), tool_call_id: p.id ?? "" }));
    const out: ChatMessage = { role, content: text };
    if (calls.length) out.tool_calls = calls.map((p) => ({ id: p.id ?? "", type: "function", function: { name: p.name ?? "", arguments: asText(p.arguments ?? {}) } }));
    return [out];
  });
}

/** GenAI system instructions: an array of parts (`[{type:"text", content}]`) as one system message's text. */
function systemText(json: string): string {
  try {
    const parts = JSON.parse(json || "[]") as unknown;
    return Array.isArray(parts) ? (parts as GenAiPart[]).map((p) => asText(p?.content)).filter(Boolean).join("\n") : "";
  } catch {
    return "";
  }
}

/** A span's conversation as a record payload: its system instructions, input messages, then output messages. */
export function payloadOfSpan(span: SpanRow): { messages: ChatMessage[] } {
  const system = systemText(span.system_instructions);
  return { messages: [...(system ? [{ role: "system", content: system }] : []), ...chatMessagesOf(span.input_messages), ...chatMessagesOf(span.output_messages)] };
}

/** What a record made from a span says about it in its properties (editable, informative; the origin itself is kept apart). */
export const spanProperties = (span: SpanRow): Record<string, unknown> => ({
  trace_id: span.trace_id,
  span_id: span.span_id,
  span_name: span.span_name,
  model: span.response_model || span.request_model,
  operation_name: span.operation_name,
});

/** The `next`/`previous` links of a page-number page, or null. */
export function pageLinks(path: string, page: number, size: number, count: number, extra: Record<string, string | string[] | undefined> = {}): { next: string | null; previous: string | null } {
  const link = (p: number) => {
    const query = new URLSearchParams({ page: String(p), page_size: String(size) });
    // A repeated parameter (a list's filter) is repeated in its links.
    for (const [k, v] of Object.entries(extra)) for (const one of v === undefined ? [] : [v].flat()) query.append(k, one);
    return `${path}?${query}`;
  };
  return { next: size > 0 && page * size < count ? link(page + 1) : null, previous: page > 1 ? link(page - 1) : null };
}

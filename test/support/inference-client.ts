import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { bookkeepingSettled } from "../../shared/observability/after-answer.js";
import { LOCAL_CATALOG, readCatalog } from "../../infra/catalog.js";
import type { RunningApi } from "../../infra/local/server.js";
import { documents } from "../../shared/store/client.js";
import type { UsageRecord } from "../../shared/domain/usage.js";
import { filesClient, type ApiReply, type Query } from "./files-client.js";
import type { TestTenant } from "./tenant.js";

/**
 * How long a test waits for any one thing (a response, a frame, a record) before it fails instead of hanging: a
 * hang limit, not a speed check (one of 20 racing PATCHes took over 5 s in a full run at load 10 on two cores).
 */
export const WAIT_MS = 15_000;

/** `promise`, or a rejection naming `what` after `ms`. */
export async function within<T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// ---- server-sent events, read as they arrive ----

/** One SSE event as written on the wire (up to its blank line), with its lines split into fields. */
export interface SseFrame {
  raw: string;
  /** Field name of every line (`data`, `event`, `id`, ...; `""` for a comment line). */
  fields: string[];
  /** The joined `data` lines; undefined when the event had none. */
  data: string | undefined;
  /** False for a last event the stream ended without its blank line. */
  terminated: boolean;
}

function toFrame(raw: string, terminated = true): SseFrame {
  const lines = raw.split("\n");
  const fields = lines.map((line) => (line.startsWith(":") ? "" : line.slice(0, line.includes(":") ? line.indexOf(":") : line.length)));
  const data = lines.filter((line) => line.startsWith("data:")).map((line) => line.slice(5).replace(/^ /, ""));
  return { raw, fields, data: data.length ? data.join("\n") : undefined, terminated };
}

/** The events of a response body, each yielded as soon as its terminating blank line has arrived. */
export async function* sseFrames(reader: ReadableStreamDefaultReader<Uint8Array>): AsyncGenerator<SseFrame> {
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const raw = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (raw) yield toFrame(raw);
    }
  }
  buffer += decoder.decode();
  if (buffer.trim()) yield toFrame(buffer.replace(/\n+$/, ""), false);
}

/** A chat completion chunk as the API streams it. */
export interface Chunk {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: { index: number; delta: { role?: string; content?: string; tool_calls?: unknown[] }; finish_reason: string | null }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** Reads a stream frame by frame, never waiting longer than `WAIT_MS` for the next one. */
export class SseReader {
  private readonly frames: AsyncGenerator<SseFrame>;
  readonly seen: SseFrame[] = [];

  constructor(body: ReadableStream<Uint8Array>) {
    this.frames = sseFrames(body.getReader());
  }

  /** The next frame, or undefined once the stream has ended. */
  async next(ms = WAIT_MS): Promise<SseFrame | undefined> {
    const next = await within(this.frames.next(), `frame ${this.seen.length + 1} of the stream`, ms);
    if (next.done) return undefined;
    this.seen.push(next.value);
    return next.value;
  }

  /** The next `count` frames; fails if the stream ends first. */
  async take(count: number, ms = WAIT_MS): Promise<SseFrame[]> {
    const out: SseFrame[] = [];
    while (out.length < count) {
      const frame = await this.next(ms);
      if (!frame) throw new Error(`the stream ended after ${this.seen.length} frames, ${count - out.length} short`);
      out.push(frame);
    }
    return out;
  }

  /** Every frame up to the end of the stream. */
  async rest(ms = WAIT_MS): Promise<SseFrame[]> {
    const out: SseFrame[] = [];
    for (let frame = await this.next(ms); frame; frame = await this.next(ms)) out.push(frame);
    return out;
  }
}

/** What a stream carried: its frames, the parsed chunks (without `[DONE]`), and the text of choice `index`. */
export function chunksOf(frames: SseFrame[]): Chunk[] {
  return frames.filter((f) => f.data !== undefined && f.data !== "[DONE]").map((f) => JSON.parse(f.data!) as Chunk);
}

export function streamedText(chunks: Chunk[], index = 0): string {
  return chunks
    .flatMap((c) => c.choices)
    .filter((c) => c.index === index)
    .map((c) => c.delta.content ?? "")
    .join("");
}

/** A streamed call: the response head, and either a frame reader (an event stream) or the parsed error body. */
export interface StreamReply {
  status: number;
  headers: Headers;
  /** Set when the answer is an event stream. */
  reader?: SseReader;
  /** Set otherwise: the body, parsed when it is JSON. */
  body?: any;
}

// ---- the API ----

export interface ChatOptions {
  signal?: AbortSignal;
  /** More request headers (the key and content type are set). */
  headers?: Record<string, string>;
}

/** The models and inference routes of one running server as one tenant sees them, over plain HTTP. */
export function inferenceClient(api: Pick<RunningApi, "url">, tenant: Pick<TestTenant, "key">) {
  const { request } = filesClient(api, tenant);

  /** POSTs with `stream: true` and answers as soon as the response head has arrived. */
  async function stream(path: string, body: Record<string, unknown>, options: ChatOptions = {}): Promise<StreamReply> {
    const response = await within(
      fetch(`${api.url}${path}`, {
        method: "POST",
        headers: { ...options.headers, authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
        body: JSON.stringify({ ...body, stream: true }),
        signal: options.signal,
      }),
      `the response head of POST ${path}`,
    );
    const type = response.headers.get("content-type") ?? "";
    if (type.startsWith("text/event-stream") && response.body) return { status: response.status, headers: response.headers, reader: new SseReader(response.body) };
    const text = await within(response.text(), `the body of POST ${path}`);
    return { status: response.status, headers: response.headers, body: type.includes("json") && text ? JSON.parse(text) : text };
  }

  /** A whole streamed call read to its end: frames, chunks and the text of choice 0. */
  async function streamed(path: string, body: Record<string, unknown>, options: ChatOptions = {}) {
    const reply = await stream(path, body, options);
    if (!reply.reader) throw new Error(`POST ${path} did not stream: ${reply.status} ${JSON.stringify(reply.body)}`);
    const frames = await reply.reader.rest();
    const chunks = chunksOf(frames);
    return { ...reply, frames, chunks, text: streamedText(chunks) };
  }

  const post = (path: string, json: unknown): Promise<ApiReply> => within(request("POST", path, { json }), `POST ${path}`);
  const encoded = (id: string) => encodeURIComponent(id);

  return {
    request,
    chat: (body: Record<string, unknown>) => post("/v1/chat/completions", body),
    fim: (body: Record<string, unknown>) => post("/v1/fim/completions", body),
    embeddings: (body: Record<string, unknown>) => post("/v1/embeddings", body),
    chatStream: (body: Record<string, unknown>, options?: ChatOptions) => stream("/v1/chat/completions", body, options),
    fimStream: (body: Record<string, unknown>, options?: ChatOptions) => stream("/v1/fim/completions", body, options),
    chatStreamed: (body: Record<string, unknown>, options?: ChatOptions) => streamed("/v1/chat/completions", body, options),
    fimStreamed: (body: Record<string, unknown>) => streamed("/v1/fim/completions", body),

    listModels: (query: Query = {}) => within(request("GET", "/v1/models", { query }), "GET /v1/models"),
    /** The id is percent-encoded, as the SDK sends it (fine-tuned ids hold `:`). */
    retrieveModel: (id: string) => within(request("GET", `/v1/models/${encoded(id)}`), "GET /v1/models/{id}"),
    deleteModel: (id: string) => within(request("DELETE", `/v1/models/${encoded(id)}`), "DELETE /v1/models/{id}"),
    updateModel: (id: string, body: Record<string, unknown>) =>
      within(request("PATCH", `/v1/fine_tuning/models/${encoded(id)}`, { json: body }), "PATCH /v1/fine_tuning/models/{id}"),
    archiveModel: (id: string) => within(request("POST", `/v1/fine_tuning/models/${encoded(id)}/archive`), "POST .../archive"),
    unarchiveModel: (id: string) => within(request("DELETE", `/v1/fine_tuning/models/${encoded(id)}/archive`), "DELETE .../archive"),
  };
}

export type InferenceClient = ReturnType<typeof inferenceClient>;

/** A one-message chat request. */
export const userSays = (model: string, content: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: "user", content }],
  ...extra,
});

/** The label and shape of the offline provider's chat answer. */
/** A model's context length in the offline catalog (config/models.offline.json), by id or alias. */
export function contextLengthOf(name: string): number {
  const model = readCatalog(LOCAL_CATALOG).models.find((m) => m.id === name || m.aliases.includes(name));
  if (!model) throw new Error(`no model ${name} in ${LOCAL_CATALOG}`);
  return model.max_context_length;
}

export const offlineEcho = (said: string) => `[offline] No language model is configured. You said: «${said}»`;
export const offlineFim = (lastLine: string) => `[offline] No code model is configured; the prompt ends with: «${lastLine}»`;

// ---- vectors ----

export const norm = (v: number[]) => Math.hypot(...v);
export const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0) / (norm(a) * norm(b));

// ---- usage records ----

const usageTable = () => {
  const name = process.env.TABLE_USAGE;
  if (!name) throw new Error("TABLE_USAGE is not set: the integration tests need the embedded backends");
  return name;
};

/** Every usage record of a workspace, oldest first (records sort by time, before the DAY#/MONTH# totals). */
export async function usageRecords(workspace: string): Promise<UsageRecord[]> {
  // Model calls write their records after the answer (decision 0045): wait for this process's bookkeeping.
  await bookkeepingSettled();
  const out = await documents.send(
    new QueryCommand({
      TableName: usageTable(),
      KeyConditionExpression: "workspace = :w AND sk < :totals",
      ExpressionAttributeValues: { ":w": workspace, ":totals": "A" },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []) as UsageRecord[];
}

/**
 * The records of one request, waiting (bounded) until at least one exists: a stream writes its record
 * after its last frame, so it may land just after the client has read `[DONE]`.
 */
export async function usageRecordsOf(workspace: string, requestId: string, ms = WAIT_MS): Promise<UsageRecord[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = (await usageRecords(workspace)).filter((r) => r.requestId === requestId);
    if (found.length || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

import type { ChatCompletionRequest, FimCompletionRequest, FinishReason, Message, ToolCall } from "../../schemas/inference.js";
import { sseData } from "../sse.js";
import {
  UnsupportedByProvider,
  UpstreamError,
  type CallOptions,
  type Completion,
  type CompletionChoiceResult,
  type CompletionEvent,
  type EmbedRequest,
  type Embeddings,
  type InferenceProvider,
  type ModerateRequest,
  type Moderation,
  type ProviderConfig,
} from "../types.js";

export type OpenAICompatibleConfig = Omit<Extract<ProviderConfig, { type: "openai-compatible" }>, "type"> & {
  type?: "openai-compatible";
};

type Dialect = "mistral" | "openai";
type Json = Record<string, unknown>;

const DEFAULT_TIMEOUT_MS = 60_000;

/** Mistral-only chat fields an OpenAI-style server would refuse or misread. */
const MISTRAL_ONLY_CHAT_FIELDS = new Set([
  "safe_prompt",
  "prompt_mode",
  "prediction",
  "guardrails",
  "reasoning_effort",
  "service_tier",
  "metadata",
  "prompt_cache_key",
]);

const FINISH_REASONS = new Map<string, FinishReason>([
  ["stop", "stop"],
  ["length", "length"],
  ["model_length", "model_length"],
  ["tool_calls", "tool_calls"],
  ["function_call", "tool_calls"],
  ["error", "error"],
  ["content_filter", "error"],
]);

/**
 * Any upstream that speaks the OpenAI (or Mistral) HTTP API: Mistral's own API, vLLM, Ollama, llama.cpp
 * server, Bedrock's OpenAI-compatible endpoint. `dialect: "mistral"` sends Mistral bodies unchanged and uses
 * the native FIM and moderation endpoints; `"openai"` (the default) maps the few fields that differ.
 *
 * `timeoutMs` bounds each wait on the upstream: for the whole answer of a plain call, and for the headers
 * and then each next piece of a stream (so a long but lively stream is never cut).
 */
export class OpenAICompatibleProvider implements InferenceProvider {
  readonly backend = "openai-compatible";
  private readonly baseUrl: string;
  private readonly dialect: Dialect;
  private readonly timeoutMs: number;
  private readonly apiKeyEnv: string | undefined;
  /** The base URL as it may appear in an error message (no credentials, no query). */
  private readonly where: string;

  constructor(config: OpenAICompatibleConfig) {
    this.baseUrl = config.baseUrl.replace(/\/+$/, "");
    this.dialect = config.dialect ?? "openai";
    this.timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.apiKeyEnv = config.apiKeyEnv;
    this.where = displayUrl(this.baseUrl);
  }

  async chat(request: ChatCompletionRequest, options: CallOptions): Promise<Completion> {
    const body = { ...this.chatBody(request), stream: false };
    return toCompletion(await this.postJson("/v1/chat/completions", body, options));
  }

  chatStream(request: ChatCompletionRequest, options: CallOptions): AsyncIterable<CompletionEvent> {
    return this.stream("/v1/chat/completions", this.chatBody(request), options);
  }

  async fim(request: FimCompletionRequest, options: CallOptions): Promise<Completion> {
    const body = { ...this.fimBody(request), stream: false };
    return toCompletion(await this.postJson(this.fimPath(), body, options));
  }

  fimStream(request: FimCompletionRequest, options: CallOptions): AsyncIterable<CompletionEvent> {
    return this.stream(this.fimPath(), this.fimBody(request), options);
  }

  async embed(request: EmbedRequest, options: CallOptions): Promise<Embeddings> {
    const body: Json = { model: request.model, input: request.inputs };
    if (request.dimensions !== undefined) body[this.dialect === "mistral" ? "output_dimension" : "dimensions"] = request.dimensions;
    const answer = await this.postJson("/v1/embeddings", body, options);
    const data = isRecord(answer) && Array.isArray(answer.data) ? answer.data : undefined;
    if (!data || data.length !== request.inputs.length) {
      throw malformed(`embeddings for ${request.inputs.length} inputs were expected`);
    }
    const items = data.map((item, position) => {
      const embedding = isRecord(item) ? item.embedding : undefined;
      if (!Array.isArray(embedding) || !embedding.every((value) => typeof value === "number")) {
        throw malformed("an embedding is not a list of numbers");
      }
      const index = isRecord(item) && typeof item.index === "number" ? item.index : position;
      return { index, embedding: embedding as number[] };
    });
    items.sort((a, b) => a.index - b.index);
    const promptTokens = isRecord(answer) && isRecord(answer.usage) ? answer.usage.prompt_tokens : undefined;
    return {
      vectors: items.map((item) => item.embedding),
      ...(typeof promptTokens === "number" ? { promptTokens } : {}),
    };
  }

  async moderate(request: ModerateRequest, options: CallOptions): Promise<Moderation[]> {
    if (this.dialect !== "mistral") throw new UnsupportedByProvider(this.backend, "moderation unless its dialect is mistral");
    const answer = await this.postJson("/v1/moderations", { model: request.model, input: request.inputs }, options);
    const results = isRecord(answer) && Array.isArray(answer.results) ? answer.results : undefined;
    if (!results || results.length !== request.inputs.length) {
      throw malformed(`moderation results for ${request.inputs.length} inputs were expected`);
    }
    return results.map((result) => ({
      categories: entriesOfType<boolean>(isRecord(result) ? result.categories : undefined, "boolean"),
      categoryScores: entriesOfType<number>(isRecord(result) ? result.category_scores : undefined, "number"),
    }));
  }

  // ---- request bodies ----

  private chatBody(request: ChatCompletionRequest): Json {
    const { stream: _stream, ...rest } = request;
    if (this.dialect === "mistral") return rest;
    const body: Json = {};
    for (const [key, value] of Object.entries(rest)) {
      if (value !== null && value !== undefined && !MISTRAL_ONLY_CHAT_FIELDS.has(key)) body[key] = value;
    }
    if ("random_seed" in body) {
      body.seed = body.random_seed;
      delete body.random_seed;
    }
    if (body.tool_choice === "any") body.tool_choice = "required";
    if (!request.tools?.length) {
      // OpenAI refuses tool settings without tools.
      delete body.tools;
      delete body.tool_choice;
      delete body.parallel_tool_calls;
    }
    if (isRecord(body.response_format)) body.response_format = withoutNulls(body.response_format);
    body.messages = request.messages.map(openAIMessage);
    return body;
  }

  private fimPath(): string {
    return this.dialect === "mistral" ? "/v1/fim/completions" : "/v1/completions";
  }

  private fimBody(request: FimCompletionRequest): Json {
    const common = {
      model: request.model,
      prompt: request.prompt,
      suffix: request.suffix,
      max_tokens: request.max_tokens,
      temperature: request.temperature,
      top_p: request.top_p,
      stop: request.stop,
    };
    return this.dialect === "mistral"
      ? withoutNulls({ ...common, min_tokens: request.min_tokens, random_seed: request.random_seed })
      : withoutNulls({ ...common, seed: request.random_seed });
  }

  // ---- transport ----

  private async postJson(path: string, body: Json, options: CallOptions): Promise<unknown> {
    const call = new UpstreamCall(this.timeoutMs, options.signal);
    try {
      const response = await this.send(path, body, call, "application/json");
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        throw this.networkFailure(error, call, "read");
      }
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw malformed("the body is not JSON");
      }
    } finally {
      call.dispose();
    }
  }

  private async *stream(path: string, body: Json, options: CallOptions): AsyncGenerator<CompletionEvent> {
    const payload: Json = { ...body, stream: true };
    if (this.dialect === "openai") payload.stream_options = { include_usage: true };
    const call = new UpstreamCall(this.timeoutMs, options.signal);
    try {
      const response = await this.send(path, payload, call, "text/event-stream");
      if (!response.body) throw malformed("the stream has no body");
      call.disarm();
      const reader = response.body.getReader();
      const readFailure = (error: unknown) => this.networkFailure(error, call, "read");
      /** The body's bytes, with the timeout running only while we wait for the next piece. */
      const bytes = async function* (): AsyncGenerator<Uint8Array> {
        for (;;) {
          call.arm();
          let next: ReadableStreamReadResult<Uint8Array>;
          try {
            next = await reader.read();
          } catch (error) {
            throw readFailure(error);
          }
          call.disarm();
          if (next.done) return;
          yield next.value;
        }
      };
      const choices = new StreamedChoices();
      for await (const data of sseData(bytes())) {
        if (data.trim() === "[DONE]") break;
        let chunk: unknown;
        try {
          chunk = JSON.parse(data);
        } catch {
          throw new UpstreamError(502, "The upstream sent a malformed stream chunk (not JSON)");
        }
        yield* choices.accept(chunk);
      }
      yield* choices.end();
    } finally {
      // Also closes the upstream connection when the consumer stops early.
      call.dispose();
    }
  }

  private async send(path: string, body: Json, call: UpstreamCall, accept: string): Promise<Response> {
    const headers: Record<string, string> = { "content-type": "application/json", accept };
    const key = this.apiKeyEnv ? process.env[this.apiKeyEnv] : undefined;
    if (key) headers.authorization = `Bearer ${key}`;
    call.arm();
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, { method: "POST", headers, body: JSON.stringify(body), signal: call.signal });
    } catch (error) {
      throw this.networkFailure(error, call, "connect");
    }
    if (response.ok) return response;
    let text = "";
    try {
      text = await response.text();
    } catch (error) {
      throw this.networkFailure(error, call, "read");
    }
    throw httpFailure(response.status, text, response.headers.get("retry-after"));
  }

  /** What a failed fetch or body read becomes: the caller's own abort, a timeout (504) or a broken connection (502). */
  private networkFailure(error: unknown, call: UpstreamCall, phase: "connect" | "read"): unknown {
    if (error instanceof UpstreamError) return error;
    if (call.callerAborted) return call.callerReason();
    if (call.timedOut) {
      return new UpstreamError(504, `The upstream at ${this.where} did not answer within ${this.timeoutMs} ms`);
    }
    if (phase === "read") return new UpstreamError(502, `The connection to the upstream at ${this.where} broke off mid-response`);
    const code = errorCode(error);
    return new UpstreamError(502, `Could not reach the upstream at ${this.where}${code ? ` (${code})` : ""}`);
  }
}

/** One upstream request: the caller's signal joined with our own timeout, which runs only while we wait. */
class UpstreamCall {
  readonly signal: AbortSignal;
  private readonly own = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  timedOut = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    this.signal = caller ? AbortSignal.any([caller, this.own.signal]) : this.own.signal;
  }

  get callerAborted(): boolean {
    return this.caller?.aborted ?? false;
  }

  callerReason(): unknown {
    const reason: unknown = this.caller?.reason;
    return reason instanceof Error ? reason : new DOMException("The operation was aborted", "AbortError");
  }

  arm(): void {
    this.disarm();
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.own.abort(new DOMException("The upstream did not answer in time", "TimeoutError"));
    }, this.timeoutMs);
  }

  disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Stops the timer and drops the connection if the response was not read to the end (a no-op otherwise). */
  dispose(): void {
    this.disarm();
    if (!this.own.signal.aborted) this.own.abort();
  }
}

// ---- responses ----

function toCompletion(answer: unknown): Completion {
  if (!isRecord(answer) || !Array.isArray(answer.choices)) throw malformed("there are no choices");
  const choices = answer.choices
    .map((choice, position) => ({ choice: isRecord(choice) ? choice : {}, position }))
    .map(({ choice, position }) => ({ index: typeof choice.index === "number" ? choice.index : position, choice }))
    .sort((a, b) => a.index - b.index)
    .map(({ choice }): CompletionChoiceResult => {
      const message = isRecord(choice.message) ? choice.message : {};
      return {
        content: textOf(message.content ?? choice.text),
        toolCalls: toolCallsOf(message.tool_calls),
        finishReason: finishReasonOf(choice.finish_reason),
      };
    });
  const usage = usageOf(answer.usage);
  return usage ? { choices, usage } : { choices };
}

/** Accumulates a stream's chunks into events: deltas as they come, tool calls whole when their choice ends. */
class StreamedChoices {
  private readonly open = new Map<number, Map<number, PartialToolCall>>();
  private readonly finished = new Set<number>();

  *accept(chunk: unknown): Generator<CompletionEvent> {
    if (!isRecord(chunk)) throw new UpstreamError(502, "The upstream sent a malformed stream chunk");
    if (chunk.error !== undefined && chunk.error !== null) {
      throw new UpstreamError(502, `The upstream failed mid-stream: ${messageIn(chunk.error) ?? "unknown error"}`);
    }
    if (chunk.object === "error") throw new UpstreamError(502, `The upstream failed mid-stream: ${messageIn(chunk) ?? "unknown error"}`);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const [position, raw] of choices.entries()) {
      if (!isRecord(raw)) continue;
      const index = typeof raw.index === "number" ? raw.index : position;
      const calls = this.open.get(index) ?? new Map<number, PartialToolCall>();
      this.open.set(index, calls);
      const delta = isRecord(raw.delta) ? raw.delta : {};
      const content = textOf(delta.content ?? raw.text);
      if (content) yield { type: "delta", index, content };
      if (Array.isArray(delta.tool_calls)) for (const fragment of delta.tool_calls) addFragment(calls, fragment);
      if (raw.finish_reason !== null && raw.finish_reason !== undefined) yield* this.finish(index, finishReasonOf(raw.finish_reason));
    }
    const usage = usageOf(chunk.usage);
    if (usage) yield { type: "usage", ...usage };
  }

  /** At the end of the stream, choices the upstream never finished end as `stop`. */
  *end(): Generator<CompletionEvent> {
    for (const index of [...this.open.keys()].sort((a, b) => a - b)) {
      if (!this.finished.has(index)) yield* this.finish(index, "stop");
    }
  }

  private *finish(index: number, reason: FinishReason): Generator<CompletionEvent> {
    if (this.finished.has(index)) return;
    this.finished.add(index);
    const calls = [...(this.open.get(index)?.entries() ?? [])].sort(([a], [b]) => a - b);
    if (calls.length > 0) {
      yield {
        type: "delta",
        index,
        toolCalls: calls.map(([position, call]) => ({
          ...(call.id ? { id: call.id } : {}),
          type: call.type ?? "function",
          function: { name: call.name, arguments: call.arguments },
          index: position,
        })),
      };
    }
    yield { type: "finish", index, reason };
  }
}

interface PartialToolCall {
  id?: string;
  type?: string;
  name: string;
  arguments: string | Record<string, unknown>;
}

/** OpenAI servers stream a call's `arguments` in pieces keyed by `index`; Mistral sends each call whole. */
function addFragment(calls: Map<number, PartialToolCall>, fragment: unknown): void {
  if (!isRecord(fragment)) return;
  const id = typeof fragment.id === "string" && fragment.id ? fragment.id : undefined;
  let position: number;
  if (typeof fragment.index === "number") position = fragment.index;
  else {
    const known = id ? [...calls].find(([, call]) => call.id === id)?.[0] : undefined;
    position = known ?? (id || calls.size === 0 ? calls.size : calls.size - 1);
  }
  const call = calls.get(position) ?? { name: "", arguments: "" };
  calls.set(position, call);
  if (id) call.id = id;
  if (typeof fragment.type === "string") call.type = fragment.type;
  const fn = isRecord(fragment.function) ? fragment.function : {};
  if (typeof fn.name === "string" && fn.name && !call.name) call.name = fn.name;
  if (typeof fn.arguments === "string") call.arguments = typeof call.arguments === "string" ? call.arguments + fn.arguments : fn.arguments;
  else if (isRecord(fn.arguments)) call.arguments = fn.arguments;
}

function toolCallsOf(value: unknown): ToolCall[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((raw): ToolCall[] => {
    if (!isRecord(raw) || !isRecord(raw.function) || typeof raw.function.name !== "string") return [];
    const args = raw.function.arguments;
    return [
      {
        ...(typeof raw.id === "string" && raw.id ? { id: raw.id } : {}),
        type: typeof raw.type === "string" ? raw.type : "function",
        function: { name: raw.function.name, arguments: typeof args === "string" || isRecord(args) ? args : "" },
      },
    ];
  });
}

/** A string, or the concatenated text of content chunks (thinking and other chunks are left out). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((chunk) => (isRecord(chunk) && chunk.type === "text" && typeof chunk.text === "string" ? chunk.text : ""))
    .join("");
}

function finishReasonOf(value: unknown): FinishReason {
  return (typeof value === "string" && FINISH_REASONS.get(value)) || "stop";
}

function usageOf(value: unknown): { promptTokens: number; completionTokens: number } | undefined {
  if (!isRecord(value) || typeof value.prompt_tokens !== "number") return undefined;
  return { promptTokens: value.prompt_tokens, completionTokens: typeof value.completion_tokens === "number" ? value.completion_tokens : 0 };
}

// ---- requests ----

function openAIMessage(message: Message): Json {
  const out = withoutNulls({ ...message });
  if (message.role === "assistant") {
    if (out.prefix === false) delete out.prefix;
    if (message.tool_calls?.length) {
      out.tool_calls = message.tool_calls.map((call) => ({
        ...(call.id ? { id: call.id } : {}),
        type: call.type,
        function: {
          name: call.function.name,
          arguments: typeof call.function.arguments === "string" ? call.function.arguments : JSON.stringify(call.function.arguments),
        },
      }));
    } else delete out.tool_calls;
  }
  if (Array.isArray(out.content)) {
    out.content = out.content.map((chunk: unknown) =>
      isRecord(chunk) && chunk.type === "image_url" && typeof chunk.image_url === "string" ? { ...chunk, image_url: { url: chunk.image_url } } : chunk,
    );
  }
  return out;
}

// ---- errors ----

function httpFailure(status: number, body: string, retryAfter: string | null): UpstreamError {
  const detail = upstreamMessage(body);
  if (status === 401 || status === 403) {
    return new UpstreamError(502, `The upstream refused our credentials (HTTP ${status}); its API key is missing or wrong in this deployment`);
  }
  if (status === 429) {
    return new UpstreamError(429, `The upstream is rate limiting requests${detail ? `: ${detail}` : ""}`, retryAfterSeconds(retryAfter));
  }
  if (status >= 400 && status < 500) return new UpstreamError(400, detail ?? `The upstream refused the request (HTTP ${status})`);
  return new UpstreamError(502, `The upstream failed (HTTP ${status})`);
}

function malformed(what: string): UpstreamError {
  return new UpstreamError(502, `The upstream sent an unexpected answer: ${what}`);
}

/** The human message in an error body: `message`, `error.message`, `error`, `detail` (FastAPI's list too) or short plain text. */
function upstreamMessage(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    const text = body.trim();
    return text && !text.startsWith("<") ? truncate(text) : undefined;
  }
  const message = messageIn(parsed);
  return message ? truncate(message) : undefined;
}

function messageIn(value: unknown, depth = 0): string | undefined {
  if (depth > 4) return undefined;
  if (typeof value === "string") return value.trim() || undefined;
  if (Array.isArray(value)) {
    const parts = value
      .map((item) => {
        if (isRecord(item) && typeof item.msg === "string") {
          return Array.isArray(item.loc) ? `${item.loc.join(".")}: ${item.msg}` : item.msg;
        }
        return messageIn(item, depth + 1);
      })
      .filter((part): part is string => !!part);
    return parts.length ? parts.join("; ") : undefined;
  }
  if (!isRecord(value)) return undefined;
  for (const key of ["message", "error", "detail", "msg"]) {
    const found = messageIn(value[key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

function retryAfterSeconds(header: string | null): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.ceil(seconds) : undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; isRecord(current) && depth < 4; current = current.cause, depth++) {
    if (typeof current.code === "string") return current.code;
  }
  return undefined;
}

// ---- helpers ----

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function withoutNulls(value: Record<string, unknown>): Json {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== null && entry !== undefined));
}

function entriesOfType<T>(value: unknown, type: "boolean" | "number"): Record<string, T> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => typeof entry === type)) as Record<string, T>;
}

function truncate(text: string, max = 1000): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function displayUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    url.username = "";
    url.password = "";
    url.search = "";
    url.hash = "";
    return url.toString().replace(/\/+$/, "");
  } catch {
    return "the configured base URL";
  }
}

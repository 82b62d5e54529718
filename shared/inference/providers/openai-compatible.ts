import { request as undiciRequest, type Dispatcher } from "undici";
import {
  UnsupportedByProvider,
  UpstreamError,
  type CallOptions,
  type Completion,
  type CompletionEvent,
  type EmbedRequest,
  type Embeddings,
  type InferenceProvider,
  type LiveAudio,
  type LiveTranscribeRequest,
  type ModerateRequest,
  type Moderation,
  type OcrCall,
  type OcrResult,
  type ProviderConfig,
  type SpeakRequest,
  type SpeechAudio,
  type TranscribeRequest,
  type TranscriptionEvent,
} from "../types.js";
import { speechBody, speechFromAnswer, transcriptionEvents, transcriptionForm } from "./openai-compatible/audio.js";
import { ocrBody, ocrResultOf } from "./openai-compatible/ocr.js";
import { realtimeTranscription } from "./openai-compatible/realtime.js";
import type { ChatCompletionRequest, FimCompletionRequest, Message } from "../../schemas/inference.js";
import { sseData } from "../sse.js";
import { UpstreamCall } from "./openai-compatible/transport.js";
import { StreamedChoices, toCompletion } from "./openai-compatible/answers.js";
import { errorCode, httpFailure, malformed } from "./openai-compatible/errors.js";
import { displayUrl, entriesOfType, headerOf, isRecord, withoutNulls, type Json } from "./openai-compatible/json.js";

export type OpenAICompatibleConfig = Omit<Extract<ProviderConfig, { type: "openai-compatible" }>, "type"> & {
  type?: "openai-compatible";
};

type Dialect = "mistral" | "openai";

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

  /** `/v1/audio/transcriptions` (whisper.cpp server, vLLM, Mistral's API), answered whole and replayed as events. */
  async *transcribe(request: TranscribeRequest, options: CallOptions): AsyncGenerator<TranscriptionEvent> {
    const answer = await this.postJson("/v1/audio/transcriptions", transcriptionForm(request, this.dialect), options);
    yield* transcriptionEvents(answer);
  }

  /** The upstream's realtime WebSocket (openai-compatible/realtime.ts): vLLM's `/v1/realtime`, or Mistral's own. */
  transcribeLive(request: LiveTranscribeRequest, audio: AsyncIterable<LiveAudio>, options: CallOptions): AsyncIterable<TranscriptionEvent> {
    const upstream = { baseUrl: this.baseUrl, dialect: this.dialect, apiKey: this.apiKey(), timeoutMs: this.timeoutMs, where: this.where };
    return realtimeTranscription(upstream, request, audio, options.signal);
  }

  /**
   * `/v1/ocr` (Mistral's API, a server that serves Mistral OCR): the request as the client sent it, but the document
   * always as a `data:` URL of the bytes the route read (a file of our workspace, a URL the outbound guard fetched),
   * so the upstream never fetches anything on a client's behalf. Its pages pass through as it answered them.
   */
  async ocr(request: OcrCall, options: CallOptions): Promise<OcrResult> {
    return ocrResultOf(await this.postJson("/v1/ocr", ocrBody(request), options));
  }

  /** `/v1/audio/speech`: Mistral's dialect answers `{audio_data}` (base64), the OpenAI dialect the audio bytes. */
  async speak(request: SpeakRequest, options: CallOptions): Promise<SpeechAudio> {
    const body = await speechBody(request, this.dialect);
    const call = new UpstreamCall(this.timeoutMs, options.signal);
    try {
      const response = await this.send("/v1/audio/speech", body, call, this.dialect === "mistral" ? "application/json" : "*/*");
      let bytes: Buffer;
      try {
        bytes = Buffer.from(await response.body.arrayBuffer());
        call.finished();
      } catch (error) {
        throw this.networkFailure(error, call, "read");
      }
      return speechFromAnswer(bytes, headerOf(response, "content-type"), request.format, this.dialect);
    } finally {
      call.dispose();
    }
  }

  // ---- request bodies ----

  private chatBody(request: ChatCompletionRequest): Json {
    // Guardrails are the platform's, run before any provider (docs/routing.md, "Guardrails"): a Mistral upstream given
    // them would moderate the same input again, at a second price.
    const { stream: _stream, guardrails: _guardrails, ...rest } = request;
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

  private async postJson(path: string, body: Json | FormData, options: CallOptions): Promise<unknown> {
    const call = new UpstreamCall(this.timeoutMs, options.signal);
    try {
      const response = await this.send(path, body, call, "application/json");
      let text: string;
      try {
        text = await response.body.text();
        call.finished();
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
      call.disarm();
      const reader = (response.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
      const readFailure = (error: unknown) => this.networkFailure(error, call, "read");
      /** The body's bytes, with the timeout running only while we wait for the next piece. */
      const bytes = async function* (): AsyncGenerator<Uint8Array> {
        for (;;) {
          call.arm();
          let next: IteratorResult<Uint8Array>;
          try {
            next = await reader.next();
          } catch (error) {
            throw readFailure(error);
          }
          call.disarm();
          if (next.done) return call.finished();
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

  /**
   * One POST through undici's dispatcher (`request`, not `fetch`: a quarter of fetch's CPU per call, measured in
   * docs/benchmarks.md §5; redirects are not followed, an upstream API has none to give). A 2xx answer is returned
   * with its body unread; any other is read and turned into the caller's error.
   */
  private async send(path: string, body: Json | FormData, call: UpstreamCall, accept: string): Promise<Dispatcher.ResponseData> {
    // A form (a transcription's audio, in memory already) is encoded by the platform's Response: its bytes and
    // its content type with the boundary. undici's own encoder takes only its own FormData class.
    const encoded = body instanceof FormData ? new Response(body) : undefined;
    const headers: Record<string, string> = { "content-type": encoded?.headers.get("content-type") ?? "application/json", accept };
    const key = this.apiKey();
    if (key) headers.authorization = `Bearer ${key}`;
    const payload = encoded ? Buffer.from(await encoded.arrayBuffer()) : JSON.stringify(body);
    call.arm();
    let response: Dispatcher.ResponseData;
    try {
      response = await undiciRequest(`${this.baseUrl}${path}`, { method: "POST", headers, body: payload, signal: call.signal });
    } catch (error) {
      throw this.networkFailure(error, call, "connect");
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return response;
    let text = "";
    try {
      text = await response.body.text();
      call.finished();
    } catch (error) {
      throw this.networkFailure(error, call, "read");
    }
    throw httpFailure(response.statusCode, text, headerOf(response, "retry-after"));
  }

  /** The key in the variable the config names; none when it is unset or empty. */
  private apiKey(): string | undefined {
    return this.apiKeyEnv ? process.env[this.apiKeyEnv] || undefined : undefined;
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


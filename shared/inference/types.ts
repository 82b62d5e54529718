import { ApiError } from "../domain/errors.js";
import type { ChatCompletionRequest, FimCompletionRequest, FinishReason, ToolCall } from "../schemas/inference.js";

/**
 * What every inference backend implements. Requests arrive validated, in Mistral's shape, with `model`
 * already replaced by the provider's own (upstream) model id. Providers return neutral results; the
 * routes turn them into the wire format (ids, `created`, the public model name, SSE frames).
 */
export interface InferenceProvider {
  /** Stable name, sent as the `x-inference-backend` header on every model call. */
  readonly backend: string;
  chat(request: ChatCompletionRequest, options: CallOptions): Promise<Completion>;
  chatStream(request: ChatCompletionRequest, options: CallOptions): AsyncIterable<CompletionEvent>;
  fim(request: FimCompletionRequest, options: CallOptions): Promise<Completion>;
  fimStream(request: FimCompletionRequest, options: CallOptions): AsyncIterable<CompletionEvent>;
  embed(request: EmbedRequest, options: CallOptions): Promise<Embeddings>;
  moderate(request: ModerateRequest, options: CallOptions): Promise<Moderation[]>;
  /** Absent on providers without a speech model; the catalog then never routes audio to them. */
  transcribe?(request: TranscribeRequest, options: CallOptions): Promise<Transcription>;
}

export interface CallOptions {
  /** Aborted when the client goes away or the function is about to time out. */
  signal?: AbortSignal;
  /** Counts tokens the way the model does (its Mistral tokenizer), for providers that must count themselves. */
  countTokens?: (text: string) => number;
}

export interface CompletionChoiceResult {
  content: string;
  /** A reasoning model's thinking, sent as a `thinking` chunk before the text (the content becomes chunks). */
  thinking?: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
}

export interface Completion {
  choices: CompletionChoiceResult[];
  /** Token counts as the upstream reported them; the route counts with the tokenizer when absent. */
  usage?: { promptTokens: number; completionTokens: number };
}

/** One step of a streamed completion, per choice index. */
export type CompletionEvent =
  | { type: "delta"; index: number; content?: string; thinking?: string; toolCalls?: ToolCall[] }
  | { type: "finish"; index: number; reason: FinishReason }
  | { type: "usage"; promptTokens: number; completionTokens: number };

export interface EmbedRequest {
  model: string;
  inputs: string[];
  /** `output_dimension`: only where the model can serve it (the catalog says which). */
  dimensions?: number;
}

export interface Embeddings {
  vectors: number[][];
  promptTokens?: number;
}

export interface ModerateRequest {
  model: string;
  inputs: string[];
}

export interface Moderation {
  categories: Record<string, boolean>;
  categoryScores: Record<string, number>;
}

export interface TranscribeRequest {
  model: string;
  audio: Uint8Array;
  filename: string;
  language?: string;
}

export interface Transcription {
  text: string;
  language: string | null;
  durationSeconds: number;
}

/** How a provider is configured (the catalog file's `providers` section; see docs/models.md). */
export type ProviderConfig =
  | { type: "offline" }
  | { type: "bedrock"; region?: string }
  | {
      type: "openai-compatible";
      baseUrl: string;
      /** Name of the environment variable holding the API key (never the key itself). */
      apiKeyEnv?: string;
      /** `mistral`: the upstream speaks Mistral's API and has /v1/fim/completions. */
      dialect?: "mistral" | "openai";
      timeoutMs?: number;
    };

// Providers raise it; it lives with the domain's errors so that retry rules (batch) can know it without importing providers.
export { UpstreamError } from "../domain/errors.js";

/** The provider cannot do this at all (e.g. FIM on Bedrock); the catalog should not have routed it here. */
export class UnsupportedByProvider extends ApiError {
  constructor(backend: string, what: string) {
    super(400, "invalid_request_error", `The ${backend} backend does not support ${what}`, "unsupported_by_backend");
  }
}

import { ApiError } from "../domain/errors.js";
import type { ChatCompletionRequest, FimCompletionRequest, FinishReason, ToolCall } from "../schemas/inference.js";
import type { ModerationScores } from "../domain/guardrails.js";
import type { DocumentKind } from "../domain/ocr.js";
import type { OcrPage, OcrPageDimensions, OcrRequest } from "../schemas/ocr.js";

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
  /** Speech to text; absent on providers without a transcription model (the catalog then never routes audio to them). */
  transcribe?(request: TranscribeRequest, options: CallOptions): AsyncIterable<TranscriptionEvent>;
  /**
   * Live speech to text (the realtime WebSocket, docs/audio.md "Realtime"): raw samples in the session's format as the
   * client sends them, events out as they are heard. The audio iterable ends when the client ends its audio; the
   * provider then finishes what it received and ends its events. Absent on providers without a realtime model.
   */
  transcribeLive?(request: LiveTranscribeRequest, audio: AsyncIterable<LiveAudio>, options: CallOptions): AsyncIterable<TranscriptionEvent>;
  /** Text to speech; absent on providers without a speech model. */
  speak?(request: SpeakRequest, options: CallOptions): Promise<SpeechAudio>;
  /** Reads a document's pages (OCR); absent on providers without an OCR model. */
  ocr?(request: OcrCall, options: CallOptions): Promise<OcrResult>;
}

export interface CallOptions {
  /** Aborted when the client goes away or the function is about to time out. */
  signal?: AbortSignal;
  /** Counts tokens the way the model does (its Mistral tokenizer), for providers that must count themselves. */
  countTokens?: (text: string) => number;
  /** Mark the prompt's stable prefix for the upstream's prompt cache, where the provider needs marks (Bedrock). */
  promptCaching?: boolean;
  /** The deployment's Bedrock Guardrail, named in each Converse call (Bedrock only). */
  guardrail?: { id: string; version: string };
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
  usage?: UpstreamUsage;
}

/** Tokens as an upstream reports them: `cachedTokens` of the prompt's were read from its prompt cache. */
export interface UpstreamUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
}

/** One step of a streamed completion, per choice index. */
export type CompletionEvent =
  | { type: "delta"; index: number; content?: string; thinking?: string; toolCalls?: ToolCall[] }
  | { type: "finish"; index: number; reason: FinishReason }
  | ({ type: "usage" } & UpstreamUsage);

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

/** One input's moderation: the shape guardrails read (shared/domain/guardrails.ts). */
export type Moderation = ModerationScores;

export interface TranscribeRequest {
  model: string;
  /** The audio as received (any format the route accepted), with what was measured of it. */
  audio: Uint8Array;
  filename: string;
  /** The container/codec the audio library read, e.g. `WAVE`, `MPEG`, `FLAC`, `Ogg`. */
  container: string;
  durationSeconds: number;
  language?: string;
  temperature?: number;
  diarize: boolean;
  contextBias: string[];
  timestampGranularities: ("segment" | "word")[];
}

/**
 * What a transcription provider reports, in order: the language when it knows it, text as it is
 * recognised (deltas that concatenate to the whole text), and finished segments with their times.
 */
export type TranscriptionEvent =
  | { type: "language"; language: string }
  | { type: "text"; text: string }
  | { type: "segment"; text: string; start: number; end: number; speakerId?: string | null };

// The sample encodings of a realtime session are the socket schema's (schemas are leaves).
export { LIVE_ENCODINGS, type LiveEncoding } from "../schemas/realtime.js";
import type { LiveEncoding } from "../schemas/realtime.js";

/** How a realtime session's audio is written: the encoding and the samples per second (mono). */
export interface LiveAudioFormat {
  encoding: LiveEncoding;
  sampleRate: number;
}

export interface LiveTranscribeRequest {
  /** The provider's own model id. */
  model: string;
  /** Fixed for the call: a session may change it only before its first audio. */
  format: LiveAudioFormat;
  language?: string;
}

/**
 * What the client sends, in order: audio as it arrives (whole samples in the session's format, any number of them)
 * and flush marks (`input_audio.flush`: the client wants what it sent so far transcribed without waiting for more).
 */
export type LiveAudio = { type: "audio"; data: Buffer } | { type: "flush" };

export interface SpeakRequest {
  model: string;
  input: string;
  /** What the request asked for; a provider answers the format it could make (SpeechAudio.format). */
  format: "mp3" | "wav" | "pcm" | "flac" | "opus";
  /** The voice the request named, when it named one: a preset or one of the workspace's custom voices. */
  voice?: VoiceReference;
}

export interface VoiceReference {
  id: string;
  name: string;
  slug: string | null;
  languages: string[];
  gender: string | null;
  /** The voice's WAV sample, for upstreams that clone a voice from reference audio. */
  sample: () => Promise<Buffer>;
}

export interface SpeechAudio {
  audio: Buffer;
  format: "mp3" | "wav" | "pcm" | "flac" | "opus" | "ogg";
}

export interface OcrCall {
  model: string;
  /** The document's bytes, fetched and checked by the route (its kind is judged by content, never by a declared type). */
  document: Uint8Array;
  kind: DocumentKind;
  mediaType: string;
  documentName?: string;
  /** An image's size as its header says it (undefined for PDFs and images whose header we do not read). */
  dimensions?: OcrPageDimensions;
  /** Pages from 0, ascending; undefined for all of them. */
  pages?: number[];
  /** The request's other fields as the client sent them (Mistral's names), for an upstream that serves Mistral OCR. */
  options: Omit<OcrRequest, "model" | "document" | "pages">;
}

/** The pages read, in order, and what an upstream adds (its annotation, its own count of pages). */
export interface OcrResult {
  pages: OcrPage[];
  documentAnnotation?: string | null;
  pagesProcessed?: number;
}

/** How a provider is configured (the catalog file's `providers` section; see docs/models.md). */
export type ProviderConfig =
  | { type: "offline" }
  | { type: "bedrock"; region?: string }
  | { type: "amazon-transcribe"; region?: string }
  | { type: "amazon-polly"; region?: string }
  | { type: "amazon-textract"; region?: string }
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

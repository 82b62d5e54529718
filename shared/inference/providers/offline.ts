import type { ChatCompletionRequest, FimCompletionRequest, Message, Tool, ToolCall, ToolChoice } from "../../schemas/inference.js";
import { hashEmbedding } from "../feature-hashing.js";
import { TRANSCRIBABLE_CONTAINERS } from "../../domain/audio.js";
import { wavOf } from "../audio/wav.js";
import { durationSeconds } from "../audio/live-pcm.js";
import { refuseAnnotations } from "./ocr-annotations.js";
import type {
  CallOptions,
  Completion,
  CompletionChoiceResult,
  CompletionEvent,
  EmbedRequest,
  Embeddings,
  InferenceProvider,
  LiveAudio,
  LiveTranscribeRequest,
  ModerateRequest,
  Moderation,
  OcrCall,
  OcrResult,
  SpeakRequest,
  SpeechAudio,
  TranscribeRequest,
  TranscriptionEvent,
} from "../types.js";

/** Every offline answer starts with this, so nobody mistakes it for model output. */
export const OFFLINE_LABEL = "[offline]";
const QUOTE_LIMIT = 2000;

/**
 * The embedded default backend: deterministic, never invents content, and says what it is. Chat and
 * FIM answer a labelled echo, chat following the protocol (tool calls, tool results, JSON mode, thinking);
 * embeddings are feature-hashing vectors; moderation is a keyword list.
 */
export class OfflineProvider implements InferenceProvider {
  readonly backend = "offline";

  async chat(request: ChatCompletionRequest, options: CallOptions): Promise<Completion> {
    const choice = chatChoice(request, options);
    return { choices: Array.from({ length: request.n ?? 1 }, () => choice) };
  }

  async *chatStream(request: ChatCompletionRequest, options: CallOptions): AsyncIterable<CompletionEvent> {
    yield* streamOf((await this.chat(request, options)).choices);
  }

  async fim(request: FimCompletionRequest, options: CallOptions): Promise<Completion> {
    const lastLine = request.prompt.split("\n").at(-1) ?? "";
    const text = `${OFFLINE_LABEL} No code model is configured; the prompt ends with: «${quote(lastLine)}»`;
    return { choices: [bounded(text, request.max_tokens, request.stop, options)] };
  }

  async *fimStream(request: FimCompletionRequest, options: CallOptions): AsyncIterable<CompletionEvent> {
    yield* streamOf((await this.fim(request, options)).choices);
  }

  async embed(request: EmbedRequest): Promise<Embeddings> {
    // `offline-hash-embed-1536` names its default size; plain `offline-hash-embed` is 1024.
    const size = request.dimensions ?? Number(/-(\d+)$/.exec(request.model)?.[1] ?? 1024);
    return { vectors: request.inputs.map((text) => hashEmbedding(text, size)) };
  }

  async moderate(request: ModerateRequest): Promise<Moderation[]> {
    return request.inputs.map((text) => {
      const lower = text.toLowerCase();
      const categoryScores = Object.fromEntries(
        Object.entries(request.model === V2_MODERATION ? MODERATION_KEYWORDS_V2 : MODERATION_KEYWORDS).map(([category, keywords]) => [category, keywords.some((k) => lower.includes(k)) ? 1 : 0]),
      );
      const categories = Object.fromEntries(Object.entries(categoryScores).map(([c, score]) => [c, score > 0]));
      return { categories, categoryScores };
    });
  }

  /** Never invents words: one labelled sentence saying what was received (its measured length) and that nothing heard it. */
  async *transcribe(request: TranscribeRequest): AsyncIterable<TranscriptionEvent> {
    yield { type: "text", text: offlineTranscript(request.durationSeconds, request.container) };
  }

  /** The same sentence for a live session, once its audio has ended: the seconds its bytes hold (flush marks change nothing). */
  async *transcribeLive(request: LiveTranscribeRequest, audio: AsyncIterable<LiveAudio>, options: CallOptions): AsyncIterable<TranscriptionEvent> {
    let bytes = 0;
    for await (const piece of audio) {
      options.signal?.throwIfAborted();
      if (piece.type === "audio") bytes += piece.data.length;
    }
    const { encoding, sampleRate } = request.format;
    yield { type: "text", text: offlineTranscript(durationSeconds(bytes, request.format), `${sampleRate / 1000} kHz ${encoding}`) };
  }

  /**
   * A real OCR engine, not a placeholder: Tesseract for images and scanned pages, the text layer of PDFs
   * (offline-ocr.ts, loaded on the first OCR call only). Annotations need a model and are refused.
   */
  async ocr(request: OcrCall): Promise<OcrResult> {
    refuseAnnotations(this.backend, request);
    const { readDocument } = await import("./offline-ocr.js");
    return readDocument(request);
  }

  /** A 0.6 s placeholder WAV (two soft tones, not speech) whose INFO comment says so; whatever format was asked. */
  async speak(request: SpeakRequest): Promise<SpeechAudio> {
    const comment = `${OFFLINE_LABEL} No speech model is configured: a placeholder tone, not speech${request.voice ? ` (voice: ${request.voice.name})` : ""}`;
    return { audio: wavOf(placeholderPcm(), PLACEHOLDER_RATE, comment), format: "wav" };
  }
}

export const offlineTranscript = (seconds: number, container: string) =>
  `${OFFLINE_LABEL} No speech-to-text model is configured; ${seconds.toFixed(1)} s of ${TRANSCRIBABLE_CONTAINERS[container] ?? container} audio were received and not transcribed.`;

const PLACEHOLDER_RATE = 16_000;

/** 0.3 s at 660 Hz then 0.3 s at 440 Hz, 20 ms fades, a quarter of full scale. */
function placeholderPcm(): Buffer {
  const half = PLACEHOLDER_RATE * 0.3;
  const fade = PLACEHOLDER_RATE * 0.02;
  const pcm = Buffer.alloc(half * 2 * 2);
  for (let i = 0; i < half * 2; i += 1) {
    const within = i % half;
    const envelope = Math.min(1, within / fade, (half - within) / fade);
    const frequency = i < half ? 660 : 440;
    pcm.writeInt16LE(Math.round(8000 * envelope * Math.sin((2 * Math.PI * frequency * i) / PLACEHOLDER_RATE)), i * 2);
  }
  return pcm;
}

const quote = (text: string) => (text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}…` : text);

function textOf(message: Message | undefined): string {
  if (!message?.content) return "";
  if (typeof message.content === "string") return message.content;
  return message.content.map((chunk) => (typeof chunk.text === "string" ? chunk.text : "")).join("");
}

/** What the offline "reasoning" says: there is none to show, and it says so. */
export const OFFLINE_THINKING = `${OFFLINE_LABEL} No reasoning model is configured: nothing was reasoned about.`;

/**
 * The protocol a client program depends on, with nothing invented (decision 28): a tool call when tools
 * are offered and allowed and no tool has answered since the user spoke; after a tool result, a labelled
 * text quoting it; JSON valid for the requested schema in JSON mode; the thinking shape for reasoning models.
 */
function chatChoice(request: ChatCompletionRequest, options: CallOptions): CompletionChoiceResult {
  const tool = toolToCall(request);
  if (tool) return { content: "", toolCalls: [placeholderCall(tool, request.messages.length)], finishReason: "tool_calls" };
  const last = request.messages.at(-1);
  const toolResults = last?.role === "tool" ? trailingToolResults(request.messages) : undefined;
  const said = textOf([...request.messages].reverse().find((m) => m.role === "user"));
  const text =
    request.response_format?.type === "json_schema"
      ? JSON.stringify(placeholder((request.response_format.json_schema?.schema ?? {}) as JsonSchema))
      : request.response_format?.type === "json_object"
        ? JSON.stringify(toolResults === undefined ? { offline: true, echo: quote(said) } : { offline: true, tool_results: toolResults.map(quote) })
        : toolResults === undefined
          ? `${OFFLINE_LABEL} No language model is configured. You said: «${quote(said)}»`
          : `${OFFLINE_LABEL} No language model is configured. The tool answered: «${quote(toolResults.join("\n"))}»`;
  const choice = bounded(text, request.max_tokens, request.stop, options);
  return thinks(request) ? { ...choice, thinking: OFFLINE_THINKING } : choice;
}

/** Reasoning models (upstream `offline-reasoning`) think unless told `none`; adjustable ones only when asked. */
function thinks(request: ChatCompletionRequest): boolean {
  const effort = request.reasoning_effort ?? undefined;
  if (request.model === "offline-reasoning") return effort !== "none";
  if (request.model === "offline-adjustable-reasoning") return (effort !== undefined && effort !== "none") || request.prompt_mode === "reasoning";
  return false;
}

/** The tool messages that end the conversation, oldest first. */
function trailingToolResults(messages: Message[]): string[] {
  const results: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === "tool"; i--) results.unshift(textOf(messages[i]));
  return results;
}

/** Cuts at the first stop sequence, then at `max_tokens` (counted with the model's tokenizer). */
function bounded(text: string, maxTokens: number | null | undefined, stop: string | string[] | null | undefined, options: CallOptions): CompletionChoiceResult {
  const stops = stop === undefined || stop === null ? [] : Array.isArray(stop) ? stop : [stop];
  const cut = Math.min(...stops.map((s) => (s ? text.indexOf(s) : -1)).filter((i) => i >= 0), text.length);
  let content = text.slice(0, cut);
  let finishReason: "stop" | "length" = "stop";
  const count = options.countTokens ?? ((t: string) => t.split(/\s+/).filter(Boolean).length);
  if (maxTokens !== null && maxTokens !== undefined && count(content) > maxTokens) {
    // The longest prefix of whole words within max_tokens: a binary search over the word count (counting each
    // prefix word by word was quadratic in the answer's length).
    const words = content.split(/(?<=\s)/);
    let [fits, over] = [0, words.length];
    while (over - fits > 1) {
      const middle = (fits + over) >> 1;
      if (count(words.slice(0, middle).join("")) > maxTokens) over = middle;
      else fits = middle;
    }
    content = words.slice(0, fits).join("");
    finishReason = "length";
  }
  return { content, toolCalls: [] as ToolCall[], finishReason };
}

/**
 * The tool to call this turn, if any: the one a named `tool_choice` forces, or the first for `any` /
 * `required`, every turn; for `auto` (the default) the first tool, unless a tool has answered last.
 */
function toolToCall(request: ChatCompletionRequest): Tool | undefined {
  const tools = (request.tools ?? []).filter((t) => t.type === "function");
  const choice: ToolChoice = request.tool_choice ?? "auto";
  if (!tools.length || choice === "none") return undefined;
  if (typeof choice === "object") return tools.find((t) => t.function.name === choice.function.name);
  if (choice === "any" || choice === "required") return tools[0];
  const last = request.messages.at(-1);
  return last?.role === "user" ? tools[0] : undefined;
}

/** A schema-valid call with placeholder arguments; its id (9 characters, as Mistral's) differs per turn. */
function placeholderCall(tool: Tool, turn: number): ToolCall {
  return {
    id: `offline${String(turn % 100).padStart(2, "0")}`,
    type: "function",
    function: { name: tool.function.name, arguments: JSON.stringify(placeholder(tool.function.parameters)) },
  };
}

type JsonSchema = Record<string, unknown>;

/** Values for string formats, chosen so nobody takes them for data. */
const FORMAT_PLACEHOLDERS: Record<string, string> = {
  "date-time": "1970-01-01T00:00:00Z",
  date: "1970-01-01",
  time: "00:00:00Z",
  duration: "PT0S",
  email: "offline@example.invalid",
  hostname: "offline.invalid",
  ipv4: "0.0.0.0",
  ipv6: "::",
  uri: "https://offline.invalid/",
  url: "https://offline.invalid/",
  uuid: "00000000-0000-0000-0000-000000000000",
};

/**
 * The smallest value a JSON schema accepts, for the schemas tool definitions and structured outputs use
 * in practice (types, enums, consts, defaults, anyOf/oneOf/allOf, local $refs, bounds, string formats).
 * Strings say `[offline]` where the schema lets them; `pattern` is not solved.
 */
export function placeholder(schema: JsonSchema, root: JsonSchema = schema, depth = 0): unknown {
  if (depth > 32) return null;
  const next = (s: unknown) => placeholder((s ?? {}) as JsonSchema, root, depth + 1);
  if (typeof schema.$ref === "string") return next(resolveRef(root, schema.$ref));
  if ("default" in schema) return schema.default;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (alternatives?.length) return next(alternatives.find((a) => a.type !== "null") ?? alternatives[0]);
  if (Array.isArray(schema.allOf) && schema.allOf.length) {
    const parts = (schema.allOf as JsonSchema[]).map(next);
    return parts.every((p) => p && typeof p === "object" && !Array.isArray(p)) ? Object.assign({}, ...parts) : parts[0];
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  const type = types.find((t) => t !== "null") ?? types[0] ?? (schema.properties ? "object" : schema.items ? "array" : undefined);
  switch (type) {
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((schema.required ?? Object.keys(properties)) as string[]);
      return Object.fromEntries(Object.entries(properties).filter(([k]) => required.has(k)).map(([k, v]) => [k, next(v)]));
    }
    case "array": {
      const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as JsonSchema[]).map(next) : [];
      const more = Math.max(0, Number(schema.minItems ?? 0) - prefix.length);
      return [...prefix, ...Array.from({ length: more }, () => next(schema.items))];
    }
    case "number":
    case "integer":
      return numberIn(schema, type === "integer");
    case "boolean":
      return false;
    case "null":
      return null;
    case "string":
      return stringIn(schema);
    default:
      return type === undefined ? {} : null;
  }
}

function resolveRef(root: JsonSchema, ref: string): unknown {
  if (!ref.startsWith("#")) return {};
  return ref
    .slice(1)
    .split("/")
    .filter(Boolean)
    .reduce<unknown>((node, key) => (node && typeof node === "object" ? (node as JsonSchema)[key.replaceAll("~1", "/").replaceAll("~0", "~")] : undefined), root);
}

function numberIn(schema: JsonSchema, integer: boolean): number {
  const step = integer ? 1 : 0.5;
  const num = (v: unknown) => (typeof v === "number" ? v : undefined);
  const low = num(schema.minimum) ?? (num(schema.exclusiveMinimum) !== undefined ? num(schema.exclusiveMinimum)! + step : undefined);
  const high = num(schema.maximum) ?? (num(schema.exclusiveMaximum) !== undefined ? num(schema.exclusiveMaximum)! - step : undefined);
  let value = low ?? (high !== undefined && high < 0 ? high : 0);
  if (integer) value = Math.ceil(value);
  const multiple = num(schema.multipleOf);
  if (multiple) value = Math.ceil(value / multiple) * multiple;
  return value;
}

function stringIn(schema: JsonSchema): string {
  const format = typeof schema.format === "string" ? FORMAT_PLACEHOLDERS[schema.format] : undefined;
  if (format !== undefined) return format;
  const min = Number(schema.minLength ?? 0);
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Infinity;
  const text = OFFLINE_LABEL.slice(0, max);
  return text.length >= min ? text : text + ".".repeat(min - text.length);
}

/** The same text as the plain call, in word-sized deltas, so streamed and plain answers agree. */
async function* streamOf(choices: Completion["choices"]): AsyncIterable<CompletionEvent> {
  for (const [index, choice] of choices.entries()) {
    if (choice.thinking !== undefined) yield { type: "delta", index, thinking: choice.thinking };
    for (const piece of choice.content.split(/(?<=\s)/)) if (piece) yield { type: "delta", index, content: piece };
    if (choice.toolCalls.length) yield { type: "delta", index, toolCalls: choice.toolCalls };
    yield { type: "finish", index, reason: choice.finishReason };
  }
}

const MODERATION_KEYWORDS: Record<string, string[]> = {
  sexual: ["explicit sex", "porn"],
  hate_and_discrimination: ["hate speech", "racial slur"],
  violence_and_threats: ["kill you", "i will hurt", "bomb threat"],
  dangerous_and_criminal_content: ["make a bomb", "buy drugs", "launder money"],
  selfharm: ["kill myself", "self-harm", "suicide"],
  health: ["diagnose", "prescription"],
  financial: ["investment advice", "guaranteed returns"],
  law: ["legal advice", "lawsuit"],
  pii: ["social security number", "credit card number", "passport number"],
};

/** The upstream id of the offline stand-in for Mistral's second moderation model (mistral-moderation-2603). */
const V2_MODERATION = "offline-keyword-moderation-v2";

/** The second model's categories: dangerous and criminal apart, and jailbreaking. */
const MODERATION_KEYWORDS_V2: Record<string, string[]> = {
  sexual: MODERATION_KEYWORDS.sexual!,
  hate_and_discrimination: MODERATION_KEYWORDS.hate_and_discrimination!,
  violence_and_threats: MODERATION_KEYWORDS.violence_and_threats!,
  dangerous: ["make a bomb", "build a weapon"],
  criminal: ["buy drugs", "launder money"],
  selfharm: MODERATION_KEYWORDS.selfharm!,
  health: MODERATION_KEYWORDS.health!,
  financial: MODERATION_KEYWORDS.financial!,
  law: MODERATION_KEYWORDS.law!,
  pii: MODERATION_KEYWORDS.pii!,
  jailbreaking: ["ignore all previous instructions", "ignore previous instructions", "developer mode"],
};

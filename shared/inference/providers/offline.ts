import type { ChatCompletionRequest, FimCompletionRequest, Message, Tool, ToolCall, ToolChoice } from "../../schemas/inference.js";
import { hashEmbedding } from "../feature-hashing.js";
import { TRANSCRIBABLE_CONTAINERS } from "../../domain/audio.js";
import { wavOf } from "../audio/wav.js";
import type {
  CallOptions,
  Completion,
  CompletionEvent,
  EmbedRequest,
  Embeddings,
  InferenceProvider,
  ModerateRequest,
  Moderation,
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
 * FIM answer a labelled echo; embeddings are feature-hashing vectors; moderation is a keyword list.
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
    return { vectors: request.inputs.map((text) => hashEmbedding(text, request.dimensions ?? 1024)) };
  }

  async moderate(request: ModerateRequest): Promise<Moderation[]> {
    return request.inputs.map((text) => {
      const lower = text.toLowerCase();
      const categoryScores = Object.fromEntries(
        Object.entries(MODERATION_KEYWORDS).map(([category, keywords]) => [category, keywords.some((k) => lower.includes(k)) ? 1 : 0]),
      );
      const categories = Object.fromEntries(Object.entries(categoryScores).map(([c, score]) => [c, score > 0]));
      return { categories, categoryScores };
    });
  }

  /** Never invents words: one labelled sentence saying what was received (its measured length) and that nothing heard it. */
  async *transcribe(request: TranscribeRequest): AsyncIterable<TranscriptionEvent> {
    yield { type: "text", text: offlineTranscript(request.durationSeconds, request.container) };
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

function chatChoice(request: ChatCompletionRequest, options: CallOptions) {
  const forced = forcedTool(request.tools ?? [], request.tool_choice);
  if (forced) {
    return { content: "", toolCalls: [placeholderCall(forced)], finishReason: "tool_calls" as const };
  }
  const said = textOf([...request.messages].reverse().find((m) => m.role === "user"));
  const echo = `${OFFLINE_LABEL} No language model is configured. You said: «${quote(said)}»`;
  const text = request.response_format?.type && request.response_format.type !== "text" ? JSON.stringify({ offline: true, echo: said }) : echo;
  return bounded(text, request.max_tokens, request.stop, options);
}

/** Cuts at the first stop sequence, then at `max_tokens` (counted with the model's tokenizer). */
function bounded(text: string, maxTokens: number | null | undefined, stop: string | string[] | null | undefined, options: CallOptions) {
  const stops = stop === undefined || stop === null ? [] : Array.isArray(stop) ? stop : [stop];
  const cut = Math.min(...stops.map((s) => (s ? text.indexOf(s) : -1)).filter((i) => i >= 0), text.length);
  let content = text.slice(0, cut);
  let finishReason: "stop" | "length" = "stop";
  const count = options.countTokens ?? ((t: string) => t.split(/\s+/).filter(Boolean).length);
  if (maxTokens !== null && maxTokens !== undefined && count(content) > maxTokens) {
    const words = content.split(/(?<=\s)/);
    content = "";
    for (const word of words) {
      if (count(content + word) > maxTokens) break;
      content += word;
    }
    finishReason = "length";
  }
  return { content, toolCalls: [] as ToolCall[], finishReason };
}

function forcedTool(tools: Tool[], choice: ToolChoice | undefined): Tool | undefined {
  if (!tools.length || choice === undefined || choice === "auto" || choice === "none") return undefined;
  if (typeof choice === "object") return tools.find((t) => t.function.name === choice.function.name);
  return tools[0];
}

/** A schema-valid call with placeholder arguments: defaults, consts, first enum values, minimal values. */
function placeholderCall(tool: Tool): ToolCall {
  return {
    id: "offline00",
    type: "function",
    function: { name: tool.function.name, arguments: JSON.stringify(placeholder(tool.function.parameters)) },
  };
}

type JsonSchema = Record<string, unknown>;

/** The smallest value a JSON schema accepts, for the schemas tool definitions use in practice. */
function placeholder(schema: JsonSchema): unknown {
  if ("default" in schema) return schema.default;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (alternatives?.length) return placeholder(alternatives[0]!);
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  const type = types.find((t) => t !== "null") ?? types[0];
  switch (type) {
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((schema.required ?? Object.keys(properties)) as string[]);
      return Object.fromEntries(Object.entries(properties).filter(([k]) => required.has(k)).map(([k, v]) => [k, placeholder(v)]));
    }
    case "array":
      return Array.from({ length: Number(schema.minItems ?? 0) }, () => placeholder((schema.items ?? {}) as JsonSchema));
    case "number":
    case "integer": {
      const low = typeof schema.minimum === "number" ? schema.minimum : typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + (type === "integer" ? 1 : 0.5) : 0;
      return type === "integer" ? Math.ceil(low) : low;
    }
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return "x".repeat(Number(schema.minLength ?? 0));
  }
}

/** The same text as the plain call, in word-sized deltas, so streamed and plain answers agree. */
async function* streamOf(choices: Completion["choices"]): AsyncIterable<CompletionEvent> {
  for (const [index, choice] of choices.entries()) {
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

import * as z from "zod";
import { GuardrailConfig } from "./guardrails.js";

/** A chunk of message content; text chunks carry the text, other kinds pass through to providers that take them. */
export const ContentChunk = z.looseObject({ type: z.string() });
const Content = z.union([z.string(), z.array(ContentChunk)]);

export const FunctionCall = z.strictObject({
  name: z.string(),
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
});

export const ToolCall = z.strictObject({
  id: z.string().optional(),
  type: z.string().default("function"),
  function: FunctionCall,
  index: z.number().int().optional(),
});
export type ToolCall = z.infer<typeof ToolCall>;

export const SystemMessage = z.strictObject({ role: z.literal("system"), content: Content });
export const UserMessage = z.strictObject({ role: z.literal("user"), content: Content.nullable() });
export const AssistantMessage = z.strictObject({
  role: z.literal("assistant"),
  content: Content.nullish(),
  tool_calls: z.array(ToolCall).nullish(),
  prefix: z.boolean().default(false),
});
export const ToolMessage = z.strictObject({
  role: z.literal("tool"),
  content: Content.nullable(),
  tool_call_id: z.string().nullish(),
  name: z.string().nullish(),
});

export const Message = z.discriminatedUnion("role", [SystemMessage, UserMessage, AssistantMessage, ToolMessage]);
export type Message = z.infer<typeof Message>;

export const Tool = z.strictObject({
  type: z.string().default("function"),
  function: z.strictObject({
    name: z.string().min(1),
    description: z.string().default(""),
    strict: z.boolean().default(false),
    parameters: z.record(z.string(), z.unknown()),
  }),
});
export type Tool = z.infer<typeof Tool>;

export const ToolChoice = z.union([
  z.enum(["auto", "none", "any", "required"]),
  z.strictObject({ type: z.string().default("function"), function: z.strictObject({ name: z.string() }) }),
]);
export type ToolChoice = z.infer<typeof ToolChoice>;

export const ResponseFormat = z.strictObject({
  type: z.enum(["text", "json_object", "json_schema"]).default("text"),
  json_schema: z
    .looseObject({ name: z.string(), schema: z.record(z.string(), z.unknown()).optional(), strict: z.boolean().optional() })
    .nullish(),
});

const Stop = z.union([z.string(), z.array(z.string())]).nullish();

/** Sampling fields chat and FIM share (OpenAPI ranges). */
const sampling = {
  model: z.string().min(1),
  temperature: z.number().min(0).max(1.5).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  max_tokens: z.number().int().min(0).nullish(),
  stream: z.boolean().default(false),
  stop: Stop,
  random_seed: z.number().int().min(0).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  prompt_cache_key: z.string().nullish(),
};

export const ChatCompletionRequest = z.strictObject({
  ...sampling,
  messages: z.array(Message).min(1),
  response_format: ResponseFormat.optional(),
  tools: z.array(Tool).nullish(),
  tool_choice: ToolChoice.optional(),
  presence_penalty: z.number().min(-2).max(2).nullish(),
  frequency_penalty: z.number().min(-2).max(2).nullish(),
  n: z.number().int().min(1).max(16).nullish(),
  prediction: z.looseObject({ type: z.string().optional(), content: z.string().optional() }).nullish(),
  parallel_tool_calls: z.boolean().default(true),
  reasoning_effort: z.string().nullish(),
  prompt_mode: z.string().nullish(),
  guardrails: z.array(GuardrailConfig).nullish(),
  service_tier: z.string().nullish(),
  safe_prompt: z.boolean().default(false),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

export const FimCompletionRequest = z.strictObject({
  ...sampling,
  prompt: z.string(),
  suffix: z.string().nullish(),
  min_tokens: z.number().int().min(0).nullish(),
});
export type FimCompletionRequest = z.infer<typeof FimCompletionRequest>;

/** The most inputs one embeddings call takes (Mistral's own API documents the same order of magnitude). */
export const MAX_EMBEDDING_INPUTS = 512;

export const EmbeddingRequest = z.strictObject({
  model: z.string().min(1),
  input: z.union([z.string().min(1, "input must not be empty"), z.array(z.string().min(1, "inputs must not be empty")).min(1).max(MAX_EMBEDDING_INPUTS)]),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  output_dimension: z.number().int().positive().nullish(),
  output_dtype: z.enum(["float", "int8", "uint8", "binary", "ubinary"]).default("float"),
  encoding_format: z.enum(["float", "base64"]).default("float"),
});
export type EmbeddingRequest = z.infer<typeof EmbeddingRequest>;

export const FinishReason = z.enum(["stop", "length", "model_length", "error", "tool_calls"]);
export type FinishReason = z.infer<typeof FinishReason>;

export const Usage = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  /** The SDK's PromptTokensDetails: how many prompt tokens the upstream read from its prompt cache (only when some were). */
  prompt_tokens_details: z.object({ cached_tokens: z.number().int() }).optional(),
});
export type Usage = z.infer<typeof Usage>;

/** A chunk of answer content: text, or a reasoning model's `thinking` (text chunks). */
export const ContentChunkOut = z.union([
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("thinking"), thinking: z.array(z.object({ type: z.literal("text"), text: z.string() })) }),
]);
export type ContentChunkOut = z.infer<typeof ContentChunkOut>;

export const CompletionChoice = z.object({
  index: z.number().int(),
  message: z.object({
    role: z.literal("assistant"),
    content: z.union([z.string(), z.array(ContentChunkOut)]).nullable(),
    tool_calls: z.array(ToolCall).nullable(),
    prefix: z.boolean(),
  }),
  finish_reason: FinishReason,
});
export type CompletionChoice = z.infer<typeof CompletionChoice>;

/** The completion response of chat, FIM and agent completions. */
export const CompletionOut = z.object({
  id: z.string(),
  object: z.literal("chat.completion"),
  model: z.string(),
  created: z.number().int(),
  usage: Usage,
  choices: z.array(CompletionChoice),
});
export type CompletionOut = z.infer<typeof CompletionOut>;

export interface CompletionChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: {
    index: number;
    delta: { role?: "assistant"; content?: string | ContentChunkOut[]; tool_calls?: ToolCall[] };
    finish_reason: FinishReason | null;
  }[];
  usage?: Usage;
}

export const EmbeddingOut = z.object({
  id: z.string(),
  object: z.literal("list"),
  model: z.string(),
  data: z.array(z.object({ object: z.literal("embedding"), index: z.number().int(), embedding: z.union([z.array(z.number()), z.string()]) })),
  usage: Usage,
});
export type EmbeddingOut = z.infer<typeof EmbeddingOut>;

/** The most inputs one moderation call takes (the same bound as embeddings). */
export const MAX_MODERATION_INPUTS = MAX_EMBEDDING_INPUTS;

export const ModerationRequest = z.strictObject({
  model: z.string().min(1),
  input: z.union([z.string().min(1, "input must not be empty"), z.array(z.string().min(1, "inputs must not be empty")).min(1).max(MAX_MODERATION_INPUTS)]),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});
export type ModerationRequest = z.infer<typeof ModerationRequest>;

export const ModerationOut = z.object({
  id: z.string(),
  model: z.string(),
  results: z.array(z.object({ categories: z.record(z.string(), z.boolean()), category_scores: z.record(z.string(), z.number()) })),
});
export type ModerationOut = z.infer<typeof ModerationOut>;

/** POST /v1/classifications takes the moderation request's shape (Mistral's ClassificationRequest). */
export const ClassificationRequest = ModerationRequest;
export type ClassificationRequest = ModerationRequest;

/** A conversation to moderate or classify: at least one message. */
const Conversation = z.array(Message).min(1, "a conversation needs at least one message");

/** POST /v1/chat/moderations: one conversation, or several. */
export const ChatModerationRequest = z.strictObject({
  model: z.string().min(1),
  input: z.union([Conversation, z.array(Conversation).min(1).max(MAX_MODERATION_INPUTS)]),
});
export type ChatModerationRequest = z.infer<typeof ChatModerationRequest>;

/** POST /v1/chat/classifications: one `{messages}` (an InstructRequest), or several. */
const InstructRequest = z.strictObject({ messages: Conversation });
export const ChatClassificationRequest = z.strictObject({
  model: z.string().min(1),
  input: z.union([InstructRequest, z.array(InstructRequest).min(1).max(MAX_MODERATION_INPUTS)]),
});
export type ChatClassificationRequest = z.infer<typeof ChatClassificationRequest>;

/** Per input, its targets' scores by label; the moderation models answer one target, `moderation`. */
export const ClassificationOut = z.object({
  id: z.string(),
  model: z.string(),
  results: z.array(z.record(z.string(), z.object({ scores: z.record(z.string(), z.number()) }))),
});
export type ClassificationOut = z.infer<typeof ClassificationOut>;

import type {
  ContentBlock,
  ConverseCommandInput,
  ConverseCommandOutput,
  ImageFormat,
  InferenceConfiguration,
  Message as ConverseMessage,
  StopReason,
  SystemContentBlock,
  Tool as ConverseTool,
  ToolChoice as ConverseToolChoice,
  ToolConfiguration,
  ToolUseBlock,
  TokenUsage,
} from "@aws-sdk/client-bedrock-runtime";
import type { ChatCompletionRequest, FinishReason, Message, ToolCall } from "../../../schemas/inference.js";
import { UpstreamError, type CompletionChoiceResult } from "../../types.js";

type Content = Extract<Message, { role: "user" }>["content"] | Extract<Message, { role: "assistant" }>["content"];
/** The SDK's JSON document type, which a `Record<string, unknown>` does not satisfy structurally. */
type Json = NonNullable<ToolUseBlock["input"]>;
type Turn = { role: "user" | "assistant"; content: ContentBlock[] };

const IMAGE_FORMATS: Record<string, ImageFormat> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};

/**
 * The Converse request for a validated Mistral chat request (see docs: inference-backends §2.2).
 * Fields with no Converse equivalent (random_seed, presence/frequency_penalty, safe_prompt, prompt_mode,
 * prediction, parallel_tool_calls, reasoning_effort, guardrails, service_tier, prompt_cache_key, metadata)
 * are ignored; `n` is handled by the caller with parallel calls.
 *
 * `guardrail` (a deployment whose catalog entry names one): the Bedrock Guardrail Converse applies to the input and
 * the answer; when it intervenes the answer is its blocked message, finish_reason `error` (toFinishReason).
 *
 * `cachePoints` (a model whose catalog entry says `prompt_caching`): a cache point ends the system prompt, the tools
 * and the conversation so far, so the next call that repeats that prefix reads it from Bedrock's prompt cache
 * (three of the four points a request may carry).
 */
export function toConverseInput(request: ChatCompletionRequest, options: { cachePoints?: boolean; guardrail?: { id: string; version: string } } = {}): ConverseCommandInput {
  const systemTexts: string[] = [];
  const turns: Turn[] = [];
  const pendingToolCalls: { id: string; name: string }[] = [];

  request.messages.forEach((message, messageIndex) => {
    switch (message.role) {
      case "system": {
        const text = flattenText(message.content, "system");
        if (text) systemTexts.push(text);
        break;
      }
      case "user":
        pushTurn(turns, "user", contentBlocks(message.content, "user"));
        break;
      case "assistant": {
        const blocks = contentBlocks(message.content, "assistant");
        (message.tool_calls ?? []).forEach((call, callIndex) => {
          const id = call.id || `call_${messageIndex}_${callIndex}`;
          pendingToolCalls.push({ id, name: call.function.name });
          blocks.push({ toolUse: { toolUseId: id, name: call.function.name, input: toolInput(call) as Json } });
        });
        pushTurn(turns, "assistant", blocks);
        break;
      }
      case "tool": {
        const toolUseId = resolveToolCallId(message.tool_call_id, message.name, pendingToolCalls);
        const text = flattenText(message.content, "tool");
        pushTurn(turns, "user", [{ toolResult: { toolUseId, content: [{ text }] } }]);
        break;
      }
    }
  });

  const system: SystemContentBlock[] = systemTexts.length ? [{ text: systemTexts.join("\n\n") }] : [];
  const jsonInstruction = responseFormatInstruction(request.response_format);
  if (jsonInstruction) system.push({ text: jsonInstruction });

  const messages: ConverseMessage[] = turns.filter((turn) => turn.content.length > 0);
  const input: ConverseCommandInput = { modelId: request.model, messages };
  if (system.length) input.system = system;
  const inferenceConfig = toInferenceConfig(request);
  if (inferenceConfig) input.inferenceConfig = inferenceConfig;
  const toolConfig = toToolConfig(request, historyUsesTools(messages) ? toolNamesIn(messages) : undefined);
  if (toolConfig) input.toolConfig = toolConfig;
  if (options.cachePoints) addCachePoints(input);
  if (options.guardrail) input.guardrailConfig = { guardrailIdentifier: options.guardrail.id, guardrailVersion: options.guardrail.version };
  return input;
}

const CACHE_POINT = { cachePoint: { type: "default" as const } };

function addCachePoints(input: ConverseCommandInput): void {
  if (input.system?.length) input.system.push(CACHE_POINT);
  if (input.toolConfig?.tools?.length) input.toolConfig.tools.push(CACHE_POINT);
  const last = input.messages?.at(-1);
  if (last?.content?.length) last.content.push(CACHE_POINT);
}

/** The message's text and images as Converse blocks; text chunks are joined into one text block. */
function contentBlocks(content: Content, role: string): ContentBlock[] {
  if (content == null) return [];
  if (typeof content === "string") return content ? [{ text: content }] : [];
  const blocks: ContentBlock[] = [];
  let text = "";
  const flush = () => {
    if (text) blocks.push({ text });
    text = "";
  };
  for (const chunk of content) {
    if (chunk.type === "text") {
      text += typeof chunk.text === "string" ? chunk.text : "";
    } else if (chunk.type === "image_url") {
      flush();
      blocks.push(imageBlock(chunk.image_url));
    } else if (chunk.type === "thinking") {
      // Reasoning from an earlier turn: Converse takes it back only with the model's signature, so drop it.
    } else {
      throw new UpstreamError(400, `The bedrock backend does not accept ${role} content chunks of type "${chunk.type}"`);
    }
  }
  flush();
  return blocks;
}

/** System and tool contents are text only. */
function flattenText(content: Content, role: string): string {
  if (content == null || typeof content === "string") return content ?? "";
  return content
    .map((chunk) => {
      if (chunk.type === "text") return typeof chunk.text === "string" ? chunk.text : "";
      throw new UpstreamError(400, `The bedrock backend accepts only text content in ${role} messages, not "${chunk.type}"`);
    })
    .join("");
}

/** Converse takes image bytes, not URLs: only `data:` URLs are accepted here (nothing is downloaded). */
function imageBlock(imageUrl: unknown): ContentBlock {
  const url = typeof imageUrl === "string" ? imageUrl : (imageUrl as { url?: unknown } | undefined)?.url;
  const match = typeof url === "string" ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
  const format = match ? IMAGE_FORMATS[match[1]!.toLowerCase()] : undefined;
  if (!match || !format) {
    throw new UpstreamError(400, "The bedrock backend accepts images only as base64 data URLs (png, jpeg, gif or webp)");
  }
  return { image: { format, source: { bytes: new Uint8Array(Buffer.from(match[2]!, "base64")) } } };
}

function toolInput(call: ToolCall): Record<string, unknown> {
  const args = call.function.arguments;
  if (typeof args !== "string") return args;
  if (!args.trim()) return {};
  try {
    return JSON.parse(args) as Record<string, unknown>;
  } catch {
    throw new UpstreamError(400, `The arguments of tool call "${call.function.name}" are not valid JSON`);
  }
}

/** `tool_call_id` when given; otherwise the first earlier call to a tool of that name, else the first earlier call. */
function resolveToolCallId(
  toolCallId: string | null | undefined,
  name: string | null | undefined,
  pending: { id: string; name: string }[],
): string {
  let index = -1;
  if (toolCallId) {
    index = pending.findIndex((call) => call.id === toolCallId);
  } else {
    index = pending.findIndex((call) => call.name === name);
    if (index < 0 && pending.length) index = 0;
  }
  if (index >= 0) return pending.splice(index, 1)[0]!.id;
  if (toolCallId) return toolCallId;
  throw new UpstreamError(400, "A tool message needs a tool_call_id that matches an earlier assistant tool call");
}

/** Converse wants strict user/assistant alternation: adjacent turns of one role become one turn. */
function pushTurn(turns: Turn[], role: Turn["role"], blocks: ContentBlock[]): void {
  const last = turns.at(-1);
  if (!last || last.role !== role) {
    turns.push({ role, content: blocks });
    return;
  }
  for (const block of blocks) {
    const previous = last.content.at(-1);
    if (block.text !== undefined && previous?.text !== undefined) {
      last.content[last.content.length - 1] = { text: `${previous.text}\n\n${block.text}` };
    } else {
      last.content.push(block);
    }
  }
}

/**
 * `response_format` is emulated: Converse has no JSON mode, so the model is told to answer with JSON only
 * (with the schema, for json_schema). The output is not validated here.
 */
function responseFormatInstruction(format: ChatCompletionRequest["response_format"]): string | undefined {
  if (!format || format.type === "text") return undefined;
  const base = "Respond only with a single valid JSON object: no prose before or after it and no Markdown code fences.";
  const schema = format.type === "json_schema" ? format.json_schema?.schema : undefined;
  return schema ? `${base} The JSON object must conform to this JSON schema:\n${JSON.stringify(schema)}` : base;
}

function toInferenceConfig(request: ChatCompletionRequest): InferenceConfiguration | undefined {
  const config: InferenceConfiguration = {};
  if (request.max_tokens != null && request.max_tokens > 0) config.maxTokens = request.max_tokens;
  if (request.temperature != null) config.temperature = request.temperature;
  if (request.top_p != null) config.topP = request.top_p;
  const stop = typeof request.stop === "string" ? [request.stop] : (request.stop ?? []);
  if (stop.length) config.stopSequences = stop;
  return Object.keys(config).length ? config : undefined;
}

function historyUsesTools(messages: ConverseMessage[]): boolean {
  return messages.some((message) => message.content?.some((block) => block.toolUse || block.toolResult));
}

function toolNamesIn(messages: ConverseMessage[]): string[] {
  const names = messages.flatMap((message) => message.content?.flatMap((block) => block.toolUse?.name ?? []) ?? []);
  return [...new Set(names)];
}

/**
 * `tools` and `tool_choice` as a Converse toolConfig. Converse rejects toolUse/toolResult blocks without a
 * toolConfig, so when the history has them the tools stay even for `tool_choice: "none"` (sent without a
 * toolChoice), and tools named in the history are declared with an open schema when the request has none.
 */
function toToolConfig(request: ChatCompletionRequest, historyToolNames: string[] | undefined): ToolConfiguration | undefined {
  let tools: ConverseTool[] = (request.tools ?? []).map(({ function: fn }) => ({
    toolSpec: { name: fn.name, ...(fn.description ? { description: fn.description } : {}), inputSchema: { json: fn.parameters as Json } },
  }));
  if (!tools.length && historyToolNames) {
    tools = historyToolNames.map((name) => ({ toolSpec: { name, inputSchema: { json: { type: "object", properties: {} } } } }));
  }
  if (!tools.length) return undefined;

  const choice = request.tool_choice;
  if (choice === "none") return historyToolNames ? { tools } : undefined;
  const toolChoice: ConverseToolChoice | undefined =
    choice === undefined
      ? undefined
      : choice === "auto"
        ? { auto: {} }
        : choice === "any" || choice === "required"
          ? { any: {} }
          : { tool: { name: choice.function.name } };
  return toolChoice ? { tools, toolChoice } : { tools };
}

/**
 * Converse stop reasons as Mistral finish reasons. Guardrail and content-filter stops become `error`
 * (the content, usually a canned refusal, is still returned); unknown values become `stop`.
 */
export function toFinishReason(reason: StopReason | string | undefined): FinishReason {
  switch (reason) {
    case "max_tokens":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "model_context_window_exceeded":
      return "model_length";
    case "guardrail_intervened":
    case "content_filtered":
      return "error";
    default:
      return "stop";
  }
}

export function toToolCall(toolUseId: string | undefined, name: string | undefined, input: unknown): ToolCall {
  return { id: toolUseId, type: "function", function: { name: name ?? "", arguments: JSON.stringify(input ?? {}) } };
}

/** One choice from a Converse response: text blocks joined, toolUse blocks as tool calls, reasoning dropped. */
export function fromConverseOutput(output: ConverseCommandOutput): CompletionChoiceResult {
  const blocks = output.output?.message?.content ?? [];
  return {
    content: blocks.map((block) => block.text ?? "").join(""),
    toolCalls: blocks.flatMap((block) => (block.toolUse ? [toToolCall(block.toolUse.toolUseId, block.toolUse.name, block.toolUse.input)] : [])),
    finishReason: toFinishReason(output.stopReason),
  };
}

/**
 * The prompt's tokens from a Converse usage: Bedrock counts the tokens read from and written to its prompt cache
 * apart from `inputTokens`, so the prompt is their sum, and the ones read are the cached ones.
 */
export function promptUsage(usage: Pick<TokenUsage, "inputTokens" | "cacheReadInputTokens" | "cacheWriteInputTokens">): { promptTokens: number; cachedTokens?: number } {
  const read = usage.cacheReadInputTokens ?? 0;
  return { promptTokens: (usage.inputTokens ?? 0) + read + (usage.cacheWriteInputTokens ?? 0), ...(read > 0 ? { cachedTokens: read } : {}) };
}

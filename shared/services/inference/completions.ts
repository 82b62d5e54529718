import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import { CLIENT_CLOSED } from "../../http/errors.js";
import { logger } from "../../observability/logger.js";
import { Reply } from "../../http/reply.js";
import { countTokens } from "../../inference/tokenizer.js";
import { providerNamed } from "../../inference/registry.js";
import type { Completion, CompletionEvent, InferenceProvider } from "../../inference/types.js";
import type { ChatCompletionRequest, CompletionChunk, CompletionOut, FimCompletionRequest, Message } from "../../schemas/inference.js";
import type { Endpoint } from "../../schemas/model.js";
import { usageStore } from "../../store/usage.js";
import { BadRequest } from "../../domain/errors.js";
import { resolve } from "../models/catalog.js";
import { requireEndpoint, type ModelEntry } from "../../domain/models.js";

export interface CallContext {
  caller: Caller;
  requestId: string;
  /** The route as the route table writes it, for usage records. */
  route: string;
  signal?: AbortSignal;
}

/** What the route needs to call a provider for one request, after every check that can fail early. */
interface Prepared {
  model: ModelEntry;
  provider: InferenceProvider;
  promptTokens: number;
  count: (text: string) => number;
}

const BACKEND_HEADER = "x-inference-backend";

function messageText(message: Message): string {
  const content = message.content;
  const text = typeof content === "string" ? content : (content ?? []).map((c) => (typeof c.text === "string" ? c.text : "")).join("");
  const calls = message.role === "assistant" ? (message.tool_calls ?? []).map((c) => JSON.stringify(c.function)).join("") : "";
  return text + calls;
}

/** The prompt as the model's tokenizer counts it: messages, plus tool definitions the model also reads. */
export function chatPromptText(request: Pick<ChatCompletionRequest, "messages" | "tools">): string {
  return request.messages.map(messageText).join("\n") + (request.tools?.length ? JSON.stringify(request.tools) : "");
}

async function prepare(ctx: CallContext, modelName: string, endpoint: Endpoint, promptText: string, maxTokens: number | null | undefined): Promise<Prepared> {
  const model = await resolve(ctx.caller, modelName);
  requireEndpoint(model, endpoint);
  const count = (text: string) => countTokens(model.tokenizer, text);
  const promptTokens = count(promptText);
  const wanted = promptTokens + (maxTokens ?? 0);
  if (wanted > model.maxContextLength) {
    throw new BadRequest(
      `Prompt (${promptTokens} tokens) plus max_tokens (${maxTokens ?? 0}) is ${wanted} tokens, over the ${model.maxContextLength}-token context of '${model.id}'`,
      "context_length_exceeded",
      "max_tokens",
    );
  }
  return { model, provider: await providerNamed(model.provider), promptTokens, count };
}

export async function chat(ctx: CallContext, request: ChatCompletionRequest): Promise<Reply> {
  const prepared = await prepare(ctx, request.model, "chat", chatPromptText(request), request.max_tokens);
  const upstream = { ...request, model: prepared.model.upstream };
  const options = { signal: ctx.signal, countTokens: prepared.count };
  return request.stream
    ? streamed(ctx, prepared, prepared.provider.chatStream(upstream, options))
    : answered(ctx, prepared, () => prepared.provider.chat(upstream, options));
}

export async function fim(ctx: CallContext, request: FimCompletionRequest): Promise<Reply> {
  const prepared = await prepare(ctx, request.model, "fim", request.prompt + (request.suffix ?? ""), request.max_tokens);
  const upstream = { ...request, model: prepared.model.upstream };
  const options = { signal: ctx.signal, countTokens: prepared.count };
  return request.stream
    ? streamed(ctx, prepared, prepared.provider.fimStream(upstream, options))
    : answered(ctx, prepared, () => prepared.provider.fim(upstream, options));
}

async function answered(ctx: CallContext, prepared: Prepared, call: () => Promise<Completion>): Promise<Reply> {
  const started = Date.now();
  const result = await failuresRecorded(ctx, prepared, started, call);
  const completionText = result.choices.map((c) => c.content + c.toolCalls.map((t) => JSON.stringify(t.function)).join("")).join("");
  // n completions bill the prompt once.
  const usage = {
    prompt_tokens: result.usage?.promptTokens ?? prepared.promptTokens,
    completion_tokens: result.usage?.completionTokens ?? prepared.count(completionText),
    total_tokens: 0,
  };
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  const out: CompletionOut = {
    id: completionId(),
    object: "chat.completion",
    model: prepared.model.id,
    created: Math.floor(started / 1000),
    usage,
    choices: result.choices.map((choice, index) => ({
      index,
      message: { role: "assistant", content: choice.content, tool_calls: choice.toolCalls.length ? choice.toolCalls : null, prefix: false },
      finish_reason: choice.finishReason,
    })),
  };
  await recordUsage(ctx, prepared, { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, started, status: 200 });
  return Reply.json(200, out, { [BACKEND_HEADER]: prepared.provider.backend });
}

/**
 * Starts the provider's stream and waits for its first event before answering, so that failures the
 * upstream reports up front (bad key, throttling, bad request) still get a normal status. After the
 * first byte an error can only end the stream: a last chunk with finish_reason "error", then [DONE].
 */
async function streamed(ctx: CallContext, prepared: Prepared, events: AsyncIterable<CompletionEvent>): Promise<Reply> {
  const started = Date.now();
  const iterator = events[Symbol.asyncIterator]();
  const first = await failuresRecorded(ctx, prepared, started, () => iterator.next());
  return Reply.events(sseFrames(ctx, prepared, iterator, first, started), { [BACKEND_HEADER]: prepared.provider.backend });
}

async function* sseFrames(
  ctx: CallContext,
  prepared: Prepared,
  iterator: AsyncIterator<CompletionEvent>,
  first: IteratorResult<CompletionEvent>,
  started: number,
): AsyncGenerator<string> {
  const id = completionId();
  const created = Math.floor(started / 1000);
  const chunk = (choices: CompletionChunk["choices"], usage?: CompletionChunk["usage"]): string =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: prepared.model.id, choices, ...(usage ? { usage } : {}) } satisfies CompletionChunk)}\n\n`;
  let completionText = "";
  let reported: { promptTokens: number; completionTokens: number } | undefined;
  const finishes = new Map<number, CompletionChunk["choices"][number]["finish_reason"]>();
  let status: number | "stream_error" = 200;

  yield chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]);
  try {
    for (let next = first; !next.done; next = await iterator.next()) {
      const event = next.value;
      if (event.type === "delta") {
        completionText += (event.content ?? "") + (event.toolCalls ?? []).map((t) => JSON.stringify(t.function)).join("");
        const delta = { ...(event.content !== undefined ? { content: event.content } : {}), ...(event.toolCalls ? { tool_calls: event.toolCalls } : {}) };
        yield chunk([{ index: event.index, delta, finish_reason: null }]);
      } else if (event.type === "finish") {
        finishes.set(event.index, event.reason);
      } else {
        reported = { promptTokens: event.promptTokens, completionTokens: event.completionTokens };
      }
    }
  } catch (error) {
    logger.warn("stream failed after its first byte", { error: error as Error });
    status = "stream_error";
    finishes.set(0, "error");
  }
  const usage = {
    prompt_tokens: reported?.promptTokens ?? prepared.promptTokens,
    completion_tokens: reported?.completionTokens ?? prepared.count(completionText),
    total_tokens: 0,
  };
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  const last = [...(finishes.size ? finishes : new Map([[0, "stop" as const]]))].map(([index, reason]) => ({ index, delta: {}, finish_reason: reason }));
  yield chunk(last, usage);
  yield "data: [DONE]\n\n";
  await recordUsage(ctx, prepared, { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, started, status });
}

/** A call that fails before answering still leaves its usage record, with the status the caller gets. */
export async function failuresRecorded<T>(ctx: CallContext, prepared: Pick<Prepared, "model" | "provider">, started: number, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const status = ctx.signal?.aborted ? CLIENT_CLOSED : (error as { status?: unknown }).status;
    await recordUsage(ctx, prepared, { promptTokens: 0, completionTokens: 0, started, status: typeof status === "number" ? status : 500 });
    throw error;
  }
}

const completionId = () => `cmpl-${randomUUID().replaceAll("-", "")}`;

/** One usage record per model call; a failure to record is logged, never turned into a failed call. */
export async function recordUsage(
  ctx: CallContext,
  prepared: Pick<Prepared, "model" | "provider">,
  call: { promptTokens: number; completionTokens: number; started: number; status: number | "stream_error" },
): Promise<void> {
  try {
    await usageStore.record({
      workspace: ctx.caller.workspace,
      organization: ctx.caller.organization,
      principal: ctx.caller.principal,
      requestId: ctx.requestId,
      model: prepared.model.id,
      route: ctx.route,
      promptTokens: call.promptTokens,
      completionTokens: call.completionTokens,
      latencyMs: Date.now() - call.started,
      status: call.status,
      backend: prepared.provider.backend,
      at: new Date().toISOString(),
    });
  } catch (error) {
    logger.error("usage record not written", { error: error as Error, requestId: ctx.requestId });
  }
}

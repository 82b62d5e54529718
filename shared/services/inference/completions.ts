import { randomUUID } from "node:crypto";
import { logger } from "../../observability/logger.js";
import { countTokens } from "../../inference/tokenizer.js";
import { providerNamed } from "../../inference/registry.js";
import type { CallOptions, Completion, CompletionEvent, InferenceProvider, UpstreamUsage } from "../../inference/types.js";
import type { ChatCompletionRequest, CompletionChunk, ContentChunkOut, CompletionOut, FimCompletionRequest, Message, Usage } from "../../schemas/inference.js";
import type { Endpoint } from "../../schemas/model.js";
import { BadRequest } from "../../domain/errors.js";
import { requireAnswerableEnd } from "../../domain/messages.js";
import { bodyModel } from "../models/catalog.js";
import { certainlyOverTokens, certainlyWithinTokens, MAX_BYTES_PER_TOKEN, requireEndpoint, type DeploymentEntry, type ModelEntry } from "../../domain/models.js";
import { invocationStartedAt } from "../../observability/after-answer.js";
import { assertWithinSpendLimit } from "../usage/spend.js";
import { failuresRecorded, recordUsage, type CallContext, type ModelCall } from "./usage.js";
import { chatSpan, completionEnd, fimSpan } from "../observability/model-spans.js";
import { startSpan, type ModelSpan, type SpanStart } from "../observability/span-writer.js";
import { RoutingExhausted, type Attempt } from "../../domain/routing/route-call.js";
import { routed, type RoutedCall } from "./routing.js";
import { anyChecks, enforceGuardrails, guardrailsFor } from "./guardrails.js";
import type { GuardrailConfig } from "../../schemas/guardrails.js";
import { cachedAnswer, cachingFor, eventsOf, keepAnswer, RESPONSE_CACHE_BACKEND, type CacheableCall } from "./response-cache.js";

/** What the route needs to call a provider for one request, after every check that can fail early. */
interface Prepared extends CacheableCall, ModelCall {
  /** The call's span (ended when the answer or the stream is done). */
  span: ModelSpan;
  /** The model asked for; once routed, the one that answered (a fallback, maybe): its price, its id in the answer. */
  model: ModelEntry;
  /** The first deployment's provider; once routed, the one that answered. */
  provider: InferenceProvider;
  endpoint: Endpoint;
  /** The prompt's tokens when the router must know them: over the first model's context, a fallback may hold it. */
  routingTokens?: number;
  /** The prompt's tokens, counted on first use: not at all when the upstream reports usage and the bytes settle the context check. */
  promptTokens: () => number;
  count: (text: string) => number;
  /** The spend-limit check, started with the model read (the reads before the upstream run together). */
  admitted: Promise<void>;
  /** When the call started, as `performance.now()` reads it (the invocation's start when there is one). */
  since: number;
}

/** Server-Timing's figures (ms): the platform's own time before the upstream, the upstream's, and (plain answers) the platform's after it. */
export interface CallTiming {
  before: number;
  upstream?: number;
  after?: number;
}

/** A model's answer, with the backend that gave it (routes send it as the x-inference-backend header). */
export interface ModelAnswer<T> {
  kind: "answer";
  body: T;
  backend: string;
  /** The catalog provider (deployment) that answered, when the call was routed (the x-inference-deployment header). */
  deployment?: string;
  timing?: CallTiming;
  /** Whether the response cache answered, when the call used it (the x-response-cache header). */
  cache?: "hit" | "miss";
}

/** Server-sent event frames, written as the model produces them. */
export interface ModelStream {
  kind: "stream";
  frames: AsyncIterable<string>;
  backend: string;
  deployment?: string;
  timing?: CallTiming;
  cache?: "hit" | "miss";
}

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

async function prepare(ctx: CallContext, span: ModelSpan, modelName: string, endpoint: Endpoint, promptText: string, maxTokens: number | null | undefined): Promise<Prepared> {
  const since = invocationStartedAt() ?? performance.now();
  // The model card and the spend limit are read together; a refusal about the request itself comes first.
  const admitted = assertWithinSpendLimit(ctx.caller);
  admitted.catch(() => undefined);
  const model = await bodyModel(ctx.caller, modelName);
  requireEndpoint(model, endpoint);
  const count = (text: string) => countTokens(model.tokenizer, text);
  const promptBytes = Buffer.byteLength(promptText);
  const room = model.maxContextLength - (maxTokens ?? 0);
  let counted: number | undefined;
  const promptTokens = () => (counted ??= count(promptText));
  if (model.fallbacks?.length && !certainlyWithinTokens(promptBytes, room)) {
    // Too long for this model may fit a fallback (the context-window fallback): the router decides, by the count.
    return { span, model, endpoint, routingTokens: promptTokens() + (maxTokens ?? 0), provider: await providerNamed(model.provider), promptTokens, count, admitted, since };
  }
  if (certainlyOverTokens(promptBytes, model.tokenizer, room)) {
    throw new BadRequest(
      `Prompt (${promptBytes} bytes, more than ${Math.floor(promptBytes / MAX_BYTES_PER_TOKEN[model.tokenizer])} tokens) plus max_tokens (${maxTokens ?? 0}) is over the ${model.maxContextLength}-token context of '${model.id}'`,
      "context_length_exceeded",
      "max_tokens",
    );
  }
  // Counted only when the bytes leave the answer open: a prompt of n bytes has at most n + 1 tokens.
  if (!certainlyWithinTokens(promptBytes, room)) {
    const wanted = promptTokens() + (maxTokens ?? 0);
    if (wanted > model.maxContextLength) {
      throw new BadRequest(
        `Prompt (${promptTokens()} tokens) plus max_tokens (${maxTokens ?? 0}) is ${wanted} tokens, over the ${model.maxContextLength}-token context of '${model.id}'`,
        "context_length_exceeded",
        "max_tokens",
      );
    }
  }
  return { span, model, endpoint, provider: await providerNamed(model.provider), promptTokens, count, admitted, since };
}

/**
 * Calls the model through the router (docs/routing.md): deployments, retries, fallbacks. The answer's model and
 * provider become the call's (its price, its id in the answer, its backend header); the attempts go on its span.
 */
async function routedCall<T>(ctx: CallContext, prepared: Prepared, call: (provider: InferenceProvider, upstream: string, model: ModelEntry, signal: AbortSignal | undefined, deployment: DeploymentEntry) => Promise<T>): Promise<RoutedCall<T>> {
  const result = await routed(ctx.caller, prepared.model, prepared.endpoint, { ...(prepared.routingTokens !== undefined ? { promptTokens: prepared.routingTokens } : {}), ...(ctx.signal ? { signal: ctx.signal } : {}) }, call);
  prepared.model = result.model;
  prepared.provider = result.provider;
  prepared.deployment = result.deployment.id;
  return result;
}

/** The span attributes of a routed call: the deployment that answered, and every attempt when there was more than one. */
export function routingAttributes(result: { deployment?: { id: string }; attempts: Attempt[] }): Record<string, string> {
  return {
    ...(result.deployment ? { "platform.routing.deployment": result.deployment.id } : {}),
    ...(result.attempts.length > 1 ? { "platform.routing.attempts": JSON.stringify(result.attempts.map((a) => ({ ...a, ms: Math.round(a.ms) }))) } : {}),
  };
}

/** The span of a model call, started now and ended with the error when the call fails before answering. */
export function spanOf(ctx: CallContext, start: Omit<SpanStart, "caller" | "parent">): ModelSpan {
  return startSpan({ ...start, caller: ctx.caller, parent: ctx.trace, fields: { ...start.fields, ...ctx.spanFields }, attributes: { ...start.attributes, "platform.route": ctx.route } });
}

/** Runs a call's steps up to its answer; a failure ends its span with the error (telemetry never changes the failure). */
export async function spanned<T>(span: ModelSpan, steps: () => Promise<T>): Promise<T> {
  try {
    return await steps();
  } catch (error) {
    await span.end({ error, ...(error instanceof RoutingExhausted ? { attributes: routingAttributes(error) } : {}) });
    throw error;
  }
}

export async function chat(ctx: CallContext, request: ChatCompletionRequest, operation = "chat"): Promise<ModelAnswer<CompletionOut> | ModelStream> {
  const noted: Record<string, string> = {};
  const span = noting(spanOf(ctx, chatSpan(request, operation)), noted);
  return spanned(span, async () => {
    requireAnswerableEnd(request.messages);
    const caching = cachingFor(ctx);
    const guarding = guardrailsFor(ctx, request.guardrails);
    guarding.catch(() => undefined);
    const prepared = await prepare(ctx, span, request.model, "chat", chatPromptText(request), request.max_tokens);
    await guarded(ctx, prepared, await guarding, request.messages, noted);
    const hit = await cachedAnswer(ctx, prepared, await caching, request);
    if (hit) return replayed(ctx, prepared, hit, request.stream);
    const options: CallOptions = { countTokens: prepared.count };
    return request.stream
      ? streamed(ctx, prepared, (provider, upstream, tried) => provider.chatStream({ ...request, model: upstream }, { ...options, ...tried }))
      : answered(ctx, prepared, (provider, upstream, tried) => provider.chat({ ...request, model: upstream }, { ...options, ...tried }));
  });
}

/**
 * The call's guardrails (docs/routing.md, "Guardrails"), before the cache or the model sees its input. A blocked call
 * fails with 403 and leaves a usage record of the chat model with that status; a call with no checks waits for nothing.
 */
async function guarded(ctx: CallContext, prepared: Prepared, configs: readonly GuardrailConfig[], messages: readonly Message[], noted: Record<string, string>): Promise<void> {
  if (!anyChecks(configs)) return;
  await failuresRecorded(ctx, prepared, Date.now(), () => enforceGuardrails(ctx, configs, messages, (attributes) => Object.assign(noted, attributes)), prepared.admitted);
}

/** A span whose end also carries what the call noted on its way (its guardrails' verdicts), however the call ends. */
function noting(span: ModelSpan, noted: Record<string, string>): ModelSpan {
  return { traceId: span.traceId, spanId: span.spanId, end: (outcome = {}) => span.end({ ...outcome, attributes: { ...noted, ...outcome.attributes } }) };
}

export async function fim(ctx: CallContext, request: FimCompletionRequest): Promise<ModelAnswer<CompletionOut> | ModelStream> {
  const span = spanOf(ctx, fimSpan(request));
  return spanned(span, async () => {
    const caching = cachingFor(ctx);
    const prepared = await prepare(ctx, span, request.model, "fim", request.prompt + (request.suffix ?? ""), request.max_tokens);
    const hit = await cachedAnswer(ctx, prepared, await caching, request);
    if (hit) return replayed(ctx, prepared, hit, request.stream);
    const options: CallOptions = { countTokens: prepared.count };
    return request.stream
      ? streamed(ctx, prepared, (provider, upstream, tried) => provider.fimStream({ ...request, model: upstream }, { ...options, ...tried }))
      : answered(ctx, prepared, (provider, upstream, tried) => provider.fim({ ...request, model: upstream }, { ...options, ...tried }));
  });
}

/**
 * Calls a model's provider for one try: the signal is the caller's, bounded by the deployment's timeout when it has
 * one; the options say what the model (the one asked for, or a fallback) takes.
 */
type TryCall<T> = (provider: InferenceProvider, upstream: string, options: Pick<CallOptions, "signal" | "promptCaching" | "guardrail">) => T;

const tryOptions = (model: ModelEntry, signal: AbortSignal | undefined, deployment: DeploymentEntry): Pick<CallOptions, "signal" | "promptCaching" | "guardrail"> => ({
  ...(signal ? { signal } : {}),
  ...(model.capabilities.prompt_caching ? { promptCaching: true } : {}),
  ...(deployment.guardrail ? { guardrail: deployment.guardrail } : {}),
});

async function answered(ctx: CallContext, prepared: Prepared, call: TryCall<Promise<Completion>>): Promise<ModelAnswer<CompletionOut>> {
  const started = Date.now();
  await prepared.admitted;
  const upstreamStart = performance.now();
  const routing = await failuresRecorded(ctx, prepared, started, () => routedCall(ctx, prepared, (provider, upstream, model, signal, deployment) => call(provider, upstream, tryOptions(model, signal, deployment))), prepared.admitted);
  const upstreamEnd = performance.now();
  const answer = await completed(ctx, prepared, routing.value, started, routingAttributes(routing));
  await keepAnswer(ctx, prepared, answer.completion);
  const timing = { before: upstreamStart - prepared.since, upstream: upstreamEnd - upstreamStart, after: performance.now() - upstreamEnd };
  return { kind: "answer", body: answer.body, backend: prepared.provider.backend, deployment: routing.deployment.provider, timing, ...(prepared.cache ? { cache: "miss" as const } : {}) };
}

/**
 * The answer's body from the provider's completion (or the cache's), its usage recorded and its span ended. The
 * completion is returned with the usage the caller saw, as the cache keeps it.
 */
async function completed(ctx: CallContext, prepared: Prepared, result: Completion, started: number, attributes: Record<string, string>): Promise<{ body: CompletionOut; completion: Completion }> {
  const completionText = result.choices.map((c) => (c.thinking ?? "") + c.content + c.toolCalls.map((t) => JSON.stringify(t.function)).join("")).join("");
  const usage = usageOut(prepared, result.usage, completionText);
  const out: CompletionOut = {
    id: completionId(),
    object: "chat.completion",
    model: prepared.model.id,
    created: Math.floor(started / 1000),
    usage,
    choices: result.choices.map((choice, index) => ({
      index,
      message: { role: "assistant", content: messageContent(choice), tool_calls: choice.toolCalls.length ? choice.toolCalls : null, prefix: false },
      finish_reason: choice.finishReason,
    })),
  };
  const usageTokens = { input: usage.prompt_tokens, output: usage.completion_tokens };
  await Promise.all([
    recordUsage(ctx, prepared, { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, cachedTokens: usage.prompt_tokens_details?.cached_tokens, started, status: 200 }),
    prepared.span.end({ ...completionEnd({ model: prepared.model.id, id: out.id, choices: result.choices, usage: usageTokens }), attributes: { "platform.inference.backend": backendOf(prepared), ...attributes } }),
  ]);
  return { body: out, completion: { choices: result.choices, usage: { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens } } };
}

/**
 * Starts the provider's stream and waits for its first event before answering, so that failures the
 * upstream reports up front (bad key, throttling, bad request) still get a normal status. After the
 * first byte an error can only end the stream: a last chunk with finish_reason "error", then [DONE].
 */
async function streamed(ctx: CallContext, prepared: Prepared, open: TryCall<AsyncIterable<CompletionEvent>>): Promise<ModelStream> {
  const started = Date.now();
  await prepared.admitted;
  // The headers leave once the upstream's first event is in: the platform's time before the upstream is all they can tell.
  const before = performance.now() - prepared.since;
  // A stream is routed (retried, sent to another deployment or a fallback) only up to its first event: after that
  // the caller has bytes, and a failure can only end the stream.
  const routing = await failuresRecorded(
    ctx,
    prepared,
    started,
    () =>
      routedCall(ctx, prepared, async (provider, upstream, model, signal, deployment) => {
        const iterator = open(provider, upstream, tryOptions(model, signal, deployment))[Symbol.asyncIterator]();
        return { iterator, first: await iterator.next() };
      }),
    prepared.admitted,
  );
  const { iterator, first } = routing.value;
  return {
    kind: "stream",
    frames: sseFrames(ctx, prepared, iterator, first, started, routingAttributes(routing)),
    backend: prepared.provider.backend,
    deployment: routing.deployment.provider,
    timing: { before },
    ...(prepared.cache ? { cache: "miss" as const } : {}),
  };
}

async function* sseFrames(
  ctx: CallContext,
  prepared: Prepared,
  iterator: AsyncIterator<CompletionEvent>,
  first: IteratorResult<CompletionEvent>,
  started: number,
  routing: Record<string, string>,
): AsyncGenerator<string> {
  const id = completionId();
  const created = Math.floor(started / 1000);
  const chunk = (choices: CompletionChunk["choices"], usage?: CompletionChunk["usage"]): string =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: prepared.model.id, choices, ...(usage ? { usage } : {}) } satisfies CompletionChunk)}\n\n`;
  let completionText = "";
  let reported: UpstreamUsage | undefined;
  const finishes = new Map<number, CompletionChunk["choices"][number]["finish_reason"]>();
  let status: number | "stream_error" = 200;
  let finished = false;
  const texts = new Map<number, { content: string; thinking: string; toolCalls: NonNullable<Extract<CompletionEvent, { type: "delta" }>["toolCalls"]> }>();
  const spanEnd = (usage: { input: number; output: number }, extra: Record<string, string> = {}) =>
    prepared.span.end({
      ...completionEnd({
        model: prepared.model.id,
        id,
        choices: [...texts].map(([index, text]) => ({ content: text.content, thinking: text.thinking || undefined, toolCalls: text.toolCalls, finishReason: finishes.get(index) ?? "stop" })),
        usage,
      }),
      ...(status === "stream_error" ? { error: new Error("The stream failed after its first byte") } : {}),
      attributes: { "platform.inference.backend": backendOf(prepared), "gen_ai.request.stream": "true", ...routing, ...extra },
    });

  try {
    yield chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]);
    try {
      for (let next = first; !next.done; next = await iterator.next()) {
        const event = next.value;
        if (event.type === "delta") {
          completionText += (event.thinking ?? "") + (event.content ?? "") + (event.toolCalls ?? []).map((t) => JSON.stringify(t.function)).join("");
          const text = texts.get(event.index) ?? { content: "", thinking: "", toolCalls: [] };
          text.content += event.content ?? "";
          text.thinking += event.thinking ?? "";
          text.toolCalls.push(...(event.toolCalls ?? []));
          texts.set(event.index, text);
          const content = event.thinking !== undefined ? [thinkingChunk(event.thinking)] : event.content;
          const delta = { ...(content !== undefined ? { content } : {}), ...(event.toolCalls ? { tool_calls: event.toolCalls } : {}) };
          yield chunk([{ index: event.index, delta, finish_reason: null }]);
        } else if (event.type === "finish") {
          finishes.set(event.index, event.reason);
        } else {
          const { type: _usage, ...tokens } = event;
          reported = tokens;
        }
      }
    } catch (error) {
      logger.warn("stream failed after its first byte", { error: error as Error });
      status = "stream_error";
      finishes.set(0, "error");
    }
    const usage = usageOut(prepared, reported, completionText);
    const last = [...(finishes.size ? finishes : new Map([[0, "stop" as const]]))].map(([index, reason]) => ({ index, delta: {}, finish_reason: reason }));
    yield chunk(last, usage);
    yield "data: [DONE]\n\n";
    await Promise.all([
      recordUsage(ctx, prepared, { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, cachedTokens: usage.prompt_tokens_details?.cached_tokens, started, status }),
      spanEnd({ input: usage.prompt_tokens, output: usage.completion_tokens }),
      status === 200 ? keepAnswer(ctx, prepared, { choices: [...texts].map(([index, text]) => ({ ...text, thinking: text.thinking || undefined, finishReason: finishes.get(index) ?? "stop" })), usage: { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens } }) : undefined,
    ]);
    finished = true;
  } finally {
    // A client that went away mid-stream: the span still ends, with what had arrived.
    if (!finished) await spanEnd({ input: reported?.promptTokens ?? prepared.promptTokens(), output: reported?.completionTokens ?? prepared.count(completionText) }, { "platform.stream.abandoned": "true" });
  }
}

/**
 * An answer from the response cache, in the shape the caller asked for (a stream for a streamed call): no upstream,
 * no spend check (it costs nothing), recorded as a cached call.
 */
async function replayed(ctx: CallContext, prepared: Prepared, hit: Completion, stream: boolean | null | undefined): Promise<ModelAnswer<CompletionOut> | ModelStream> {
  const started = Date.now();
  const attributes = { "platform.response_cache": "hit" };
  const timing = { before: performance.now() - prepared.since };
  if (!stream) {
    const { body } = await completed(ctx, prepared, hit, started, attributes);
    return { kind: "answer", body, backend: RESPONSE_CACHE_BACKEND, timing, cache: "hit" };
  }
  const iterator = eventsOf(hit)[Symbol.asyncIterator]();
  const first = await iterator.next();
  return { kind: "stream", frames: sseFrames(ctx, prepared, iterator, first, started, attributes), backend: RESPONSE_CACHE_BACKEND, timing, cache: "hit" };
}

const backendOf = (prepared: Prepared): string => (prepared.cacheHit ? RESPONSE_CACHE_BACKEND : prepared.provider.backend);

/** The answer's usage: the upstream's counts (with its prompt-cache reads), or the model's tokenizer's. n completions bill the prompt once. */
function usageOut(prepared: Prepared, reported: UpstreamUsage | undefined, completionText: string): Usage {
  const usage: Usage = {
    prompt_tokens: reported?.promptTokens ?? prepared.promptTokens(),
    completion_tokens: reported?.completionTokens ?? prepared.count(completionText),
    total_tokens: 0,
    ...(reported?.cachedTokens ? { prompt_tokens_details: { cached_tokens: reported.cachedTokens } } : {}),
  };
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  return usage;
}

/** Mistral's reasoning shape: a `thinking` chunk (itself text chunks), then the answer as a text chunk. */
const thinkingChunk = (text: string): ContentChunkOut => ({ type: "thinking", thinking: [{ type: "text", text }] });

function messageContent(choice: Completion["choices"][number]): string | ContentChunkOut[] {
  return choice.thinking === undefined ? choice.content : [thinkingChunk(choice.thinking), { type: "text", text: choice.content }];
}

const completionId = () => `cmpl-${randomUUID().replaceAll("-", "")}`;

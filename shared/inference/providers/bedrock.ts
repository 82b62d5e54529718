import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  type ConverseCommandOutput,
} from "@aws-sdk/client-bedrock-runtime";
import type { ChatCompletionRequest, FimCompletionRequest } from "../../schemas/inference.js";
import {
  UnsupportedByProvider,
  UpstreamError,
  type CallOptions,
  type Completion,
  type CompletionEvent,
  type EmbedRequest,
  type Embeddings,
  type InferenceProvider,
  type Moderation,
  type ModerateRequest,
} from "../types.js";
import { fromConverseOutput, promptUsage, toConverseInput } from "./bedrock/converse.js";
import { embeddingModel, parseJsonBody } from "./bedrock/embeddings.js";
import { toUpstreamError } from "./bedrock/errors.js";
import { completionEvents } from "./bedrock/stream.js";

/** InvokeModel calls in flight at once for one embeddings request. */
const EMBED_CONCURRENCY = 8;

/** One client per region per process, created on first use (exported for its test). */
const clients = new Map<string, BedrockRuntimeClient>();

export function sharedClient(region: string | undefined): BedrockRuntimeClient {
  const key = region ?? "";
  let client = clients.get(key);
  if (!client) {
    // The router owns retries (docs/routing.md): the SDK's own three tries would multiply its and hold a
    // deployment the router would rather leave.
    client = new BedrockRuntimeClient({ ...(region ? { region } : {}), maxAttempts: 1 });
    clients.set(key, client);
  }
  return client;
}

export interface BedrockProviderOptions {
  /** Defaults to the SDK's (AWS_REGION). */
  region?: string;
  client?: BedrockRuntimeClient;
}

/**
 * Amazon Bedrock: chat through Converse/ConverseStream, embeddings through InvokeModel (Titan, Cohere).
 * Bedrock has no FIM or moderation model, so those throw UnsupportedByProvider. Every call passes the
 * caller's signal to the SDK, so a client that goes away stops the upstream call (and its token bill).
 */
export class BedrockProvider implements InferenceProvider {
  readonly backend = "bedrock";
  readonly #region: string | undefined;
  #client: BedrockRuntimeClient | undefined;

  constructor(options: BedrockProviderOptions = {}) {
    this.#region = options.region;
    this.#client = options.client;
  }

  get #bedrock(): BedrockRuntimeClient {
    this.#client ??= sharedClient(this.#region);
    return this.#client;
  }

  /** `n > 1` becomes n parallel Converse calls; the prompt is counted once, completions are summed. */
  async chat(request: ChatCompletionRequest, { signal, promptCaching, guardrail }: CallOptions = {}): Promise<Completion> {
    const input = toConverseInput(request, { cachePoints: promptCaching, guardrail });
    const n = request.n ?? 1;
    const outputs = await allOrAbort(n, signal, (abortSignal) => this.#call((client) => client.send(new ConverseCommand(input), { abortSignal })));
    const usages = outputs.map((output) => output.usage);
    return {
      choices: outputs.map(fromConverseOutput),
      usage: usages.every((usage) => usage?.inputTokens !== undefined && usage.outputTokens !== undefined)
        ? { ...promptUsage(usages[0]!), completionTokens: usages.reduce((sum, usage) => sum + usage!.outputTokens!, 0) }
        : undefined,
    };
  }

  /**
   * Lazy like every stream: nothing happens before the first `next()`, which is where any refusal
   * (n > 1, a request Converse cannot take, an upstream error before the first event) is thrown, so the
   * route can still answer it with a status.
   */
  async *chatStream(request: ChatCompletionRequest, { signal, promptCaching, guardrail }: CallOptions = {}): AsyncGenerator<CompletionEvent> {
    if ((request.n ?? 1) > 1) {
      throw new UpstreamError(400, "n > 1 cannot be streamed by the bedrock backend (one Converse stream per choice); use n: 1 or stream: false");
    }
    const input = toConverseInput(request, { cachePoints: promptCaching, guardrail });
    // Our own controller as well, so a consumer that stops iterating early also stops the upstream stream.
    const controller = new AbortController();
    const abortSignal = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
    let finished = false;
    try {
      const output = await this.#call((client) => client.send(new ConverseStreamCommand(input), { abortSignal }));
      if (!output.stream) throw new UpstreamError(502, "The bedrock backend returned no stream");
      yield* completionEvents(output.stream);
      finished = true;
    } catch (error) {
      finished = true;
      throw toUpstreamError(error);
    } finally {
      if (!finished) controller.abort();
    }
  }

  async fim(_request: FimCompletionRequest, _options?: CallOptions): Promise<Completion> {
    throw new UnsupportedByProvider(this.backend, "fill-in-the-middle completion");
  }

  /** Refuses on the first `next()`, like chatStream. */
  async *fimStream(_request: FimCompletionRequest, _options?: CallOptions): AsyncGenerator<CompletionEvent> {
    throw new UnsupportedByProvider(this.backend, "fill-in-the-middle completion");
  }

  /** Titan: one call per input (bounded concurrency); Cohere: batches of 96. Vectors keep the input order. */
  async embed({ model, inputs, dimensions }: EmbedRequest, { signal }: CallOptions = {}): Promise<Embeddings> {
    const mapping = embeddingModel(model, dimensions);
    const batches: string[][] = [];
    for (let i = 0; i < inputs.length; i += mapping.batchSize) batches.push(inputs.slice(i, i + mapping.batchSize));

    const results = await mapLimit(batches, EMBED_CONCURRENCY, signal, async (texts, abortSignal) => {
      const command = new InvokeModelCommand({
        modelId: model,
        contentType: "application/json",
        accept: "application/json",
        body: new TextEncoder().encode(JSON.stringify(mapping.body(texts, dimensions))),
      });
      const output = await this.#call((client) => client.send(command, { abortSignal }));
      return mapping.parse(parseJsonBody(output.body), texts.length);
    });
    const tokens = results.map((result) => result.tokens);
    return {
      vectors: results.flatMap((result) => result.vectors),
      promptTokens: tokens.every((count) => count !== undefined) ? tokens.reduce((sum, count) => sum + count, 0) : undefined,
    };
  }

  async moderate(_request: ModerateRequest, _options?: CallOptions): Promise<Moderation[]> {
    throw new UnsupportedByProvider(this.backend, "moderation");
  }

  /** Every SDK call goes through here, so its errors come out as UpstreamError. */
  async #call<T>(send: (client: BedrockRuntimeClient) => Promise<T>): Promise<T> {
    try {
      return await send(this.#bedrock);
    } catch (error) {
      throw toUpstreamError(error);
    }
  }
}

/**
 * Runs `fn` over `items` with at most `limit` calls in flight, keeping the order of results. The first
 * failure aborts the calls still in flight and is rethrown; so does the caller's signal.
 */
async function mapLimit<T, R>(
  items: T[],
  limit: number,
  signal: AbortSignal | undefined,
  fn: (item: T, abortSignal: AbortSignal) => Promise<R>,
): Promise<R[]> {
  const controller = new AbortController();
  const abortSignal = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length && !abortSignal.aborted) {
      const index = next++;
      results[index] = await fn(items[index]!, abortSignal);
    }
  };
  signal?.throwIfAborted();
  try {
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  } catch (error) {
    controller.abort();
    throw error;
  }
  signal?.throwIfAborted();
  return results;
}

/** `n` parallel runs of `fn`; the first failure aborts the others. */
function allOrAbort(n: number, signal: AbortSignal | undefined, fn: (abortSignal: AbortSignal) => Promise<ConverseCommandOutput>) {
  return mapLimit(Array.from({ length: n }, (_, index) => index), n, signal, (_, abortSignal) => fn(abortSignal));
}

import { randomUUID } from "node:crypto";
import { providerNamed } from "../../inference/registry.js";
import type { EmbeddingOut, EmbeddingRequest } from "../../schemas/inference.js";
import { BadRequest } from "../../domain/errors.js";
import type { ModelAnswer } from "./completions.js";
import { failuresRecorded, recordUsage, type CallContext, type ModelCall } from "./usage.js";
import { mapBounded } from "../../domain/concurrency.js";
import { bodyModel } from "../models/catalog.js";
import { requireEndpoint } from "../../domain/models.js";
import { invocationStartedAt } from "../../observability/after-answer.js";
import { assertWithinSpendLimit } from "../usage/spend.js";
import { embeddingsSpan } from "../observability/model-spans.js";
import { spanned, spanOf } from "./completions.js";
import { routed } from "./routing.js";
import { tokensPerInput } from "./input-tokens.js";

/** Inputs per provider call, and provider calls in flight at once for one request. */
const BATCH_SIZE = 32;
const CONCURRENCY = 4;

export async function embed(ctx: CallContext, request: EmbeddingRequest): Promise<ModelAnswer<EmbeddingOut>> {
  const span = spanOf(ctx, embeddingsSpan(request));
  return spanned(span, async () => {
    const since = invocationStartedAt() ?? performance.now();
    const admitted = assertWithinSpendLimit(ctx.caller);
    admitted.catch(() => undefined);
    const model = await bodyModel(ctx.caller, request.model);
    requireEndpoint(model, "embeddings");
    const inputs = typeof request.input === "string" ? [request.input] : request.input;
    if (request.output_dtype !== "float") {
      throw new BadRequest(`output_dtype '${request.output_dtype}' is not served; use 'float' (optionally with encoding_format 'base64')`, "unsupported_output_dtype", "output_dtype");
    }
    const dimensions = request.output_dimension ?? undefined;
    if (dimensions !== undefined && !model.dimensions?.includes(dimensions)) {
      throw new BadRequest(
        `Model '${model.id}' cannot return ${dimensions} dimensions${model.dimensions ? `; it serves ${model.dimensions.join(", ")}` : ""}`,
        "unsupported_output_dimension",
        "output_dimension",
      );
    }
    const tokens = tokensPerInput(model, inputs);

    // The first deployment's provider names the backend of a call that fails before any batch is answered.
    let provider = await providerNamed(model.provider);
    const started = Date.now();
    const batches = Array.from({ length: Math.ceil(inputs.length / BATCH_SIZE) }, (_, i) => inputs.slice(i * BATCH_SIZE, (i + 1) * BATCH_SIZE));
    await admitted;
    const upstreamStart = performance.now();
    // Each batch is routed over the model's deployments (docs/routing.md), never to a fallback: one request's
    // vectors all come from the one model asked for.
    const routing = { withFallbacks: false, ...(ctx.signal ? { signal: ctx.signal } : {}) };
    const call: ModelCall = { model, provider, promptTokens: () => tokens().reduce((a, b) => a + b, 0) };
    const answers = await failuresRecorded(
      ctx,
      call,
      started,
      () => mapBounded(batches, CONCURRENCY, (batch) => routed(ctx.caller, model, "embeddings", routing, (upstreamProvider, upstream, _model, signal) => upstreamProvider.embed({ model: upstream, inputs: batch, dimensions }, { signal }))),
      admitted,
    );
    provider = answers[0]?.provider ?? provider;
    call.provider = provider;
    if (answers[0]) call.deployment = answers[0].deployment.id;
    const results = answers.map((answer) => answer.value);
    const upstreamEnd = performance.now();
    const vectors = results.flatMap((r) => r.vectors);
    const reported = results.every((r) => r.promptTokens !== undefined) ? results.reduce((sum, r) => sum + r.promptTokens!, 0) : undefined;
    const promptTokens = reported ?? tokens().reduce((a, b) => a + b, 0);
    const out: EmbeddingOut = {
      id: `embd-${randomUUID().replaceAll("-", "")}`,
      object: "list",
      model: model.id,
      data: vectors.map((vector, index) => ({
        object: "embedding",
        index,
        embedding: request.encoding_format === "base64" ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector,
      })),
      usage: { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens },
    };
    await Promise.all([
      recordUsage(ctx, call, { promptTokens, completionTokens: 0, started, status: 200 }),
      span.end({ responseModel: model.id, responseId: out.id, usage: { input: promptTokens, output: 0 }, attributes: { "platform.inference.backend": provider.backend } }),
    ]);
    return { kind: "answer", body: out, backend: provider.backend, ...(answers[0] ? { deployment: answers[0].deployment.provider } : {}), timing: { before: upstreamStart - since, upstream: upstreamEnd - upstreamStart, after: performance.now() - upstreamEnd } };
  });
}

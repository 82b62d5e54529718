import { randomUUID } from "node:crypto";
import { providerNamed } from "../../inference/registry.js";
import type { ModerationOut, ModerationRequest } from "../../schemas/inference.js";
import type { ModelAnswer } from "./completions.js";
import { failuresRecorded, recordUsage, type CallContext } from "./usage.js";
import { tokensPerInput } from "./embeddings.js";
import { resolve } from "../models/catalog.js";
import { requireEndpoint } from "../../domain/models.js";

/** POST /v1/moderations: one result per input, in input order, with a usage record like every model call. */
export async function moderate(ctx: CallContext, request: ModerationRequest): Promise<ModelAnswer<ModerationOut>> {
  const model = await resolve(ctx.caller, request.model);
  requireEndpoint(model, "moderations");
  const inputs = typeof request.input === "string" ? [request.input] : request.input;
  const tokens = tokensPerInput(model, inputs);
  const provider = await providerNamed(model.provider);
  const started = Date.now();
  const results = await failuresRecorded(ctx, { model, provider }, started, () => provider.moderate({ model: model.upstream, inputs }, { signal: ctx.signal }));
  const promptTokens = tokens.reduce((a, b) => a + b, 0);
  const out: ModerationOut = {
    id: `mod-${randomUUID().replaceAll("-", "")}`,
    model: model.id,
    results: results.map((r) => ({ categories: r.categories, category_scores: r.categoryScores })),
  };
  await recordUsage(ctx, { model, provider }, { promptTokens, completionTokens: 0, started, status: 200 });
  return { kind: "answer", body: out, backend: provider.backend };
}

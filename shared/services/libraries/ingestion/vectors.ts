/**
 * Chunk vectors, the second stage of ingestion: the chunks' text embedded by the catalog's embedding model, in
 * request-sized batches, each counted in the workspace's usage and spend as any embeddings call is.
 */
import { BadRequest } from "../../../domain/errors.js";
import type { TextChunk } from "../../../domain/libraries/text/chunks.js";
import { embed } from "../../inference/embeddings.js";
import type { CallContext } from "../../inference/usage.js";
import { serving } from "../../models/catalog.js";

/** Chunks per embeddings call (the call batches further towards the provider). */
const CHUNKS_PER_CALL = 128;

/** What Mistral's libraries embed with. */
const LIBRARY_EMBEDDING_MODEL = "mistral-embed";

/** The model libraries embed with: the one named, else mistral-embed when the catalog serves it, else its first embedding model. */
export async function embeddingModel(ctx: CallContext, name?: string): Promise<string> {
  if (name) return name;
  const embedders = await serving(ctx.caller, "embeddings");
  const model = embedders.find((m) => m.id === LIBRARY_EMBEDDING_MODEL || m.aliases?.includes(LIBRARY_EMBEDDING_MODEL)) ?? embedders[0];
  if (!model) throw new BadRequest("No embedding model is configured in this deployment: libraries cannot index documents", "model_capability_missing", "model");
  return model.id;
}

/**
 * The chunks' vectors, in order, and the tokens embedding them took. Each call is one model call of the run: its own
 * call index (after `firstCall`) keeps the usage records of one run apart.
 */
export async function chunkVectors(ctx: CallContext, model: string, chunks: readonly TextChunk[], firstCall = 1): Promise<{ vectors: number[][]; tokens: number }> {
  const vectors: number[][] = [];
  let tokens = 0;
  for (let at = 0, call = firstCall; at < chunks.length; at += CHUNKS_PER_CALL, call += 1) {
    const answer = await embed(
      { ...ctx, callIndex: call },
      { model, input: chunks.slice(at, at + CHUNKS_PER_CALL).map((c) => c.text), output_dtype: "float", encoding_format: "float" },
    );
    if (answer.kind !== "answer") throw new Error("Embeddings answered with a stream");
    for (const item of answer.body.data) vectors.push(item.embedding as number[]);
    tokens += answer.body.usage.prompt_tokens;
  }
  return { vectors, tokens };
}

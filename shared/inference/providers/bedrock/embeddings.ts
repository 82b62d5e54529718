import { UnsupportedByProvider, UpstreamError } from "../../types.js";

/** Cohere Embed takes at most 96 texts per InvokeModel call. */
export const COHERE_BATCH_SIZE = 96;

/**
 * How one Bedrock embedding model is called through InvokeModel (docs: inference-backends §2.5).
 * `batchSize` texts go into one request body; `parse` returns one vector per text and the tokens, if reported.
 */
export interface EmbeddingModel {
  batchSize: number;
  body(texts: string[], dimensions: number | undefined): Record<string, unknown>;
  parse(body: unknown, count: number): { vectors: number[][]; tokens: number | undefined };
}

/** The model id without an inference-profile region prefix (`us.`, `eu.`...) or an ARN's leading part. */
function baseModelId(modelId: string): string {
  const id = modelId.slice(modelId.lastIndexOf("/") + 1);
  return id.replace(/^(us|us-gov|eu|apac|jp|au|ca|global)\./, "");
}

function checkDimensions(modelId: string, dimensions: number | undefined, allowed: readonly number[]): void {
  if (dimensions !== undefined && !allowed.includes(dimensions)) {
    throw new UpstreamError(400, `Model ${modelId} cannot produce ${dimensions}-dimensional embeddings; output_dimension must be one of ${allowed.join(", ")}`);
  }
}

function titanParse(body: unknown): { vectors: number[][]; tokens: number | undefined } {
  const { embedding, inputTextTokenCount } = (body ?? {}) as { embedding?: unknown; inputTextTokenCount?: unknown };
  if (!isVector(embedding)) throw malformed("no embedding");
  return { vectors: [embedding], tokens: typeof inputTextTokenCount === "number" ? inputTextTokenCount : undefined };
}

/** The mapping for a model id; anything but Titan and Cohere embedding models is not served here. */
export function embeddingModel(modelId: string, dimensions: number | undefined): EmbeddingModel {
  const id = baseModelId(modelId);

  if (/^amazon\.titan-embed-(text-v1|g1-text)/.test(id)) {
    // Titan Text Embeddings G1: a fixed 1536 dimensions and no options.
    checkDimensions(modelId, dimensions, [1536]);
    return { batchSize: 1, body: ([inputText]) => ({ inputText }), parse: titanParse };
  }
  if (id.startsWith("amazon.titan-embed-image")) {
    // Titan Multimodal Embeddings G1, used for text.
    checkDimensions(modelId, dimensions, [256, 384, 1024]);
    return {
      batchSize: 1,
      body: ([inputText], dims) => ({ inputText, embeddingConfig: { outputEmbeddingLength: dims ?? 1024 } }),
      parse: titanParse,
    };
  }
  if (id.startsWith("amazon.titan-embed")) {
    // Titan Text Embeddings V2 (and later): 256, 512 or 1024 dimensions, 1024 by default like mistral-embed.
    checkDimensions(modelId, dimensions, [256, 512, 1024]);
    return {
      batchSize: 1,
      body: ([inputText], dims) => ({ inputText, dimensions: dims ?? 1024, normalize: true }),
      parse: titanParse,
    };
  }
  if (id.startsWith("cohere.embed")) {
    // Embed v4 has a configurable size (1536 by default) and names truncation LEFT/RIGHT; v3 is 1024 with START/END.
    const v4 = id.startsWith("cohere.embed-v4");
    checkDimensions(modelId, dimensions, v4 ? [256, 512, 1024, 1536] : [1024]);
    return {
      batchSize: COHERE_BATCH_SIZE,
      body: (texts, dims) => ({
        texts,
        input_type: "search_document",
        truncate: v4 ? "RIGHT" : "END",
        embedding_types: ["float"],
        ...(v4 && dims !== undefined ? { output_dimension: dims } : {}),
      }),
      parse: cohereParse,
    };
  }
  throw new UnsupportedByProvider("bedrock", `embeddings with ${modelId} (only amazon.titan-embed-* and cohere.embed-* models)`);
}

/** `embeddings` is `{float: [...]}` when embedding_types is sent (v4, and v3 with it), a plain array otherwise. */
function cohereParse(body: unknown, count: number): { vectors: number[][]; tokens: number | undefined } {
  const { embeddings, meta } = (body ?? {}) as {
    embeddings?: unknown;
    meta?: { billed_units?: { input_tokens?: unknown } };
  };
  const vectors = Array.isArray(embeddings) ? embeddings : (embeddings as { float?: unknown } | undefined)?.float;
  if (!Array.isArray(vectors) || !vectors.every(isVector)) throw malformed("no float embeddings");
  if (vectors.length !== count) throw malformed(`${vectors.length} embeddings for ${count} texts`);
  const tokens = meta?.billed_units?.input_tokens;
  return { vectors, tokens: typeof tokens === "number" ? tokens : undefined };
}

function isVector(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((x) => typeof x === "number");
}

function malformed(what: string): UpstreamError {
  return new UpstreamError(502, `The bedrock backend returned a malformed embeddings response (${what})`);
}

export function parseJsonBody(body: Uint8Array | undefined): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(body ?? new Uint8Array()));
  } catch {
    throw malformed("not JSON");
  }
}

/**
 * Library search (docs/libraries.md, "Search"): a query's nearest chunks among libraries the caller may read. The
 * `document_library` tool of conversations runs it (shared/services/conversations/tools/document-library.ts).
 *
 * Scope: every library is reached with `read` for the caller first (an id it may not see answers the same 404 as an
 * unknown one, a level too low the 403 reach gives), and each is searched in the index of the workspace it was created
 * in, which is where its documents were indexed. A library shared from another workspace of the organization is
 * therefore searched in that workspace's index, and only because the caller reached it: no other id ever names a
 * workspace's index here.
 */
import type { Caller } from "../../domain/caller.js";
import { BadRequest } from "../../domain/errors.js";
import type { LibraryRecord } from "../../domain/libraries/access.js";
import { VECTOR_LIMITS } from "../../domain/vector-filter.js";
import { vectorStore, type VectorHit } from "../../engine/vectors/index.js";
import { distinctLibraries, mergeHits } from "../../engine/vectors/store.js";
import type { VectorFilter } from "../../schemas/vector-search.js";
import { embed } from "../inference/embeddings.js";
import type { CallContext } from "../inference/usage.js";
import { embeddingModel } from "./ingestion/vectors.js";
import { reach } from "./libraries.js";

export const DEFAULT_TOP_K = 5;

export interface SearchOptions {
  /** Chunks answered, nearest first: 1 to 100, 5 when left out. */
  topK?: number;
  /** Kept chunks must pass it (shared/schemas/vector-search.ts). */
  filter?: VectorFilter;
}

/**
 * The libraries `ids` name, each one the caller may read, in order and each once; the first it may not read throws
 * (404 `library_not_found`, or 403 `library_access_denied`), so nothing is searched unless all of them can be.
 */
export async function readableLibraries(caller: Caller, ids: readonly string[]): Promise<LibraryRecord[]> {
  if (!ids.length) throw new BadRequest("A library search names at least one library", "missing_library_ids", "library_ids");
  const distinct = distinctLibraries(ids.map((id) => id.toLowerCase()));
  return Promise.all(distinct.map(async (id) => (await reach(caller, id, "read")).library));
}

/** The query's `topK` nearest chunks among the libraries (reached for ctx.caller first), nearest first. */
export async function searchLibraries(ctx: CallContext, libraryIds: readonly string[], query: string, options: SearchOptions = {}): Promise<VectorHit[]> {
  const topK = options.topK ?? DEFAULT_TOP_K;
  if (!Number.isInteger(topK) || topK < 1 || topK > VECTOR_LIMITS.maxTopK) throw new BadRequest(`top_k must be a whole number from 1 to ${VECTOR_LIMITS.maxTopK}, not ${topK}`, "invalid_top_k", "top_k");
  if (!query.trim()) throw new BadRequest("A library search needs a query to embed", "missing_query", "query");
  const libraries = await readableLibraries(ctx.caller, libraryIds);
  return searchReached(ctx, libraries, query, { ...options, topK });
}

/**
 * Searches libraries already reached for ctx.caller (readableLibraries): the query embedded once, with the model
 * libraries index with (a model call of ctx: usage, spend, span), then one vector query per owning workspace.
 */
export async function searchReached(ctx: CallContext, libraries: readonly LibraryRecord[], query: string, options: SearchOptions = {}): Promise<VectorHit[]> {
  const topK = options.topK ?? DEFAULT_TOP_K;
  const byWorkspace = new Map<string, string[]>();
  for (const library of libraries) byWorkspace.set(library.workspace, [...(byWorkspace.get(library.workspace) ?? []), library.id]);
  if (!byWorkspace.size) return [];
  const vector = await queryVector(ctx, query);
  const store = await vectorStore();
  const answers = await Promise.all(
    [...byWorkspace].map(([workspace, libraryIds]) => store.query({ workspace, libraryIds, vector, topK, ...(options.filter ? { filter: options.filter } : {}) })),
  );
  return mergeHits(answers, topK);
}

async function queryVector(ctx: CallContext, query: string): Promise<number[]> {
  const model = await embeddingModel(ctx);
  const answer = await embed(ctx, { model, input: [query], output_dtype: "float", encoding_format: "float" });
  if (answer.kind !== "answer") throw new Error("Embeddings answered with a stream");
  return answer.body.data[0]!.embedding as number[];
}

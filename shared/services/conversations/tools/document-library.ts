import { randomUUID } from "node:crypto";
import { ApiError } from "../../../domain/errors.js";
import type { VectorHit } from "../../../engine/vectors/index.js";
import type { AgentTool } from "../../../schemas/agent.js";
import type { CallContext } from "../../inference/usage.js";
import { readableLibraries, searchLibraries } from "../../libraries/search.js";
import type { Execution, ToolExecutor } from "./types.js";

type DocumentLibraryTool = Extract<AgentTool, { type: "document_library" }>;

/** The function's name: Mistral's built-in connector name, so the `tool.execution` entry is named `document_library`. */
export const DOCUMENT_LIBRARY_FUNCTION = "document_library";

/** Chunks the model reads per search. */
export const DOCUMENT_LIBRARY_TOP_K = 5;

/** The page a chunk comes from, when its document's attributes say (`page`, as given); ingestion keeps no page of its own. */
function pageOf(hit: VectorHit): string | number | undefined {
  const page = hit.attributes?.page;
  return typeof page === "number" || (typeof page === "string" && page) ? page : undefined;
}

/** What the model reads: each chunk with its document's name (and page when known), nearest first. */
export function resultText(query: string, hits: readonly VectorHit[]): string {
  if (!hits.length) return `No passage of the libraries matches "${query}".`;
  const passages = hits.map((hit, i) => {
    const page = pageOf(hit);
    return `[${i + 1}] ${hit.documentName ?? hit.documentId}${page !== undefined ? `, page ${page}` : ""}\n${hit.text}`;
  });
  return `Passages of the libraries nearest to "${query}", nearest first:\n\n${passages.join("\n\n")}`;
}

const hitInfo = (hit: VectorHit) => ({
  library_id: hit.libraryId,
  document_id: hit.documentId,
  document_name: hit.documentName,
  chunk_index: hit.chunkIndex,
  score: hit.score,
  ...(pageOf(hit) !== undefined ? { page: pageOf(hit) } : {}),
});

/**
 * document_library (docs/conversations.md): one function, `document_library(query)`, searching the tool's libraries
 * (shared/services/libraries/search.ts). Every library is reached for the caller when the tool is set up, so a turn
 * naming one the caller may not read fails before any model call with the 404 (or 403) naming it; each search reaches
 * them again, so access removed meanwhile is never searched. The query's embedding is a model call of the turn.
 */
export const documentLibraryTool: ToolExecutor<DocumentLibraryTool> = async (tool, { caller }) => {
  const libraries = await readableLibraries(caller, tool.library_ids);
  const libraryIds = libraries.map((l) => l.id);
  const names = libraries.map((l) => `'${l.name}'`).join(", ");
  // Outside a turn's loop (nothing else runs tools today) the embedding is still counted, under a request of its own.
  const standalone = (signal?: AbortSignal): CallContext => ({ caller, requestId: randomUUID(), route: "conversations", ...(signal ? { signal } : {}) });
  return [
    {
      source: "document_library" as const,
      definition: {
        type: "function",
        function: {
          name: DOCUMENT_LIBRARY_FUNCTION,
          description: `Searches the document libraries ${names} and answers the ${DOCUMENT_LIBRARY_TOP_K} passages nearest to the query, each with its document's name.`,
          strict: false,
          parameters: {
            type: "object",
            properties: { query: { type: "string", description: "What to look for, in the words the documents would use." } },
            required: ["query"],
            additionalProperties: false,
          },
        },
      },
      async execute(args, signal, modelCall): Promise<Execution> {
        const query = typeof args.query === "string" ? args.query.trim() : "";
        const info = { library_ids: libraryIds, query };
        if (!query) {
          const message = "The search needs a query: call document_library with {\"query\": \"…\"}.";
          return { result: message, info: { ...info, result: message, is_error: true } };
        }
        try {
          const hits = await searchLibraries(modelCall ? modelCall() : standalone(signal), libraryIds, query, { topK: DOCUMENT_LIBRARY_TOP_K });
          const text = resultText(query, hits);
          return { result: text, info: { ...info, result: text, results: hits.map(hitInfo), is_error: false } };
        } catch (error) {
          // A library that became unreadable since the turn started is the model's to read about; other failures
          // (the embedding model, the spend limit, the vector store) fail the turn as any model call of it does.
          if (!(error instanceof ApiError) || (error.status !== 403 && error.status !== 404)) throw error;
          const message = `The search failed: ${error.message}`;
          return { result: message, info: { ...info, result: message, is_error: true } };
        }
      },
    },
  ];
};

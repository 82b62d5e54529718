/** What documents leave outside the libraries table: their objects and their vectors (decision 71). */
import { documentBlobs } from "../../blobs/libraries.js";
import type { LibraryRecord } from "../../domain/libraries/access.js";
import { documentKeys, type DocumentRecord } from "../../domain/libraries/documents.js";
import { vectorStore } from "../../engine/vectors/index.js";

/** A deleted document's objects and chunks. */
export async function forgetDocument(document: DocumentRecord): Promise<void> {
  await documentBlobs.remove(Object.values(documentKeys(document)));
  await (await vectorStore()).deleteDocument(document.workspace, document.libraryId, document.id);
}

/** A deleted library's documents' objects, and its index with every chunk in it (when processing ever made one). */
export async function forgetLibrary(library: Pick<LibraryRecord, "workspace" | "id" | "indexed">, documents: readonly DocumentRecord[]): Promise<void> {
  await documentBlobs.remove(documents.flatMap((d) => Object.values(documentKeys(d))));
  if (library.indexed) await (await vectorStore()).deleteLibrary(library.workspace, library.id);
}

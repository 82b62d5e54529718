import { area } from "../route-row.js";

/**
 * Libraries (docs/libraries.md, decision 68): extensions of our spec, the SDK's `beta.libraries` and
 * `beta.libraries.accesses`. Rows ask the caller's permission; the service then asks its level on the library
 * (Viewer reads, Editor changes, Owner shares and deletes). Sharing names `libraries:share` (workspace admins);
 * sharing with the whole organization also takes `libraries:share-organization`, checked by the service. Share rows
 * read the tenancy table: a user, service account or workspace shared with must exist in the organization.
 */
const libraries = { tables: { libraries: "readwrite" } } as const;
const sharing = { tables: { libraries: "readwrite", tenancy: "read" } } as const;
/** Documents: the library's partition, their objects under the library's workspace prefix; deleting also removes vectors, queuing starts processing. */
const readDocuments = { tables: { libraries: "read" }, files: "read" } as const;
const queueDocuments = { tables: { libraries: "readwrite" }, executions: { libraryIngestion: "start-stop" } } as const;

export const libraryRoutes = area({ permissions: { read: "libraries:read", write: "libraries:write" } }, [
  { method: "GET", path: "/v1/libraries", handler: "libraries/list", grants: { tables: { libraries: "read" } }, extension: true },
  { method: "POST", path: "/v1/libraries", handler: "libraries/create", doc: { status: 201 }, grants: { tables: { libraries: "write" } }, extension: true },
  { method: "GET", path: "/v1/libraries/{library_id}", handler: "libraries/get", grants: { tables: { libraries: "read" } }, extension: true },
  { method: "PATCH", path: "/v1/libraries/{library_id}", handler: "libraries/update", grants: libraries, extension: true },
  // Mistral's deprecated PUT spelling of the same update (the SDK's librariesUpdateV1).
  { method: "PUT", path: "/v1/libraries/{library_id}", handler: "libraries/replace", grants: libraries, extension: true, doc: { deprecated: true } },
  // 200 with the deleted library, as Mistral answers today (the SDK also takes a 204).
  { method: "DELETE", path: "/v1/libraries/{library_id}", handler: "libraries/delete", grants: { ...libraries, files: "delete", vectors: "write" }, extension: true },
  { method: "GET", path: "/v1/libraries/{library_id}/share", handler: "libraries/list-accesses", grants: { tables: { libraries: "read" } }, extension: true },
  { method: "PUT", path: "/v1/libraries/{library_id}/share", handler: "libraries/share", grants: sharing, permission: "libraries:share", extension: true, audit: "library.share" },
  { method: "DELETE", path: "/v1/libraries/{library_id}/share", handler: "libraries/unshare", grants: libraries, permission: "libraries:share", extension: true, audit: "library.unshare" },
  // Documents (decision 71). Upload answers 201, or 200 with the library's document of the same bytes.
  { method: "GET", path: "/v1/libraries/{library_id}/documents", handler: "libraries/list-documents", grants: { tables: { libraries: "read" } }, extension: true },
  { method: "POST", path: "/v1/libraries/{library_id}/documents", handler: "libraries/upload-document", doc: { status: 201 }, grants: { ...queueDocuments, files: "write-delete" }, memoryMb: 1024, extension: true },
  { method: "GET", path: "/v1/libraries/{library_id}/documents/{document_id}", handler: "libraries/get-document", grants: { tables: { libraries: "read" } }, extension: true },
  { method: "PATCH", path: "/v1/libraries/{library_id}/documents/{document_id}", handler: "libraries/update-document", grants: queueDocuments, extension: true },
  { method: "PUT", path: "/v1/libraries/{library_id}/documents/{document_id}", handler: "libraries/replace-document", grants: queueDocuments, extension: true, doc: { deprecated: true } },
  { method: "DELETE", path: "/v1/libraries/{library_id}/documents/{document_id}", handler: "libraries/delete-document", doc: { status: 204 }, grants: { tables: { libraries: "readwrite" }, files: "delete", vectors: "write" }, extension: true },
  { method: "GET", path: "/v1/libraries/{library_id}/documents/{document_id}/status", handler: "libraries/document-status", grants: { tables: { libraries: "read" } }, extension: true },
  { method: "GET", path: "/v1/libraries/{library_id}/documents/{document_id}/text_content", handler: "libraries/document-text", grants: readDocuments, extension: true },
  { method: "GET", path: "/v1/libraries/{library_id}/documents/{document_id}/signed-url", handler: "libraries/document-url", grants: readDocuments, extension: true },
  { method: "GET", path: "/v1/libraries/{library_id}/documents/{document_id}/extracted-text-signed-url", handler: "libraries/document-text-url", grants: readDocuments, extension: true },
  { method: "POST", path: "/v1/libraries/{library_id}/documents/{document_id}/reprocess", handler: "libraries/reprocess-document", doc: { status: 204 }, grants: queueDocuments, extension: true },
]);

import { area } from "../route-row.js";

export const fileRoutes = area({ permissions: { read: "files:read", write: "files:write" } }, [
  { method: "GET", path: "/v1/files", handler: "files/list", grants: { tables: { files: "read" } } },
  { method: "POST", path: "/v1/files", handler: "files/upload", grants: { tables: { files: "write" }, files: "write-delete" }, memoryMb: 1024 },
  { method: "GET", path: "/v1/files/{file_id}", handler: "files/retrieve", grants: { tables: { files: "read" } } },
  { method: "DELETE", path: "/v1/files/{file_id}", handler: "files/delete", grants: { tables: { files: "readwrite" }, files: "delete" } },
  { method: "GET", path: "/v1/files/{file_id}/content", handler: "files/content", doc: { status: 302 }, grants: { tables: { files: "read" }, files: "read" } },
  { method: "GET", path: "/v1/files/{file_id}/url", handler: "files/signed-url", grants: { tables: { files: "read", tenancy: "read" } } },
  { method: "GET", path: "/v1/files/{file_id}/download", handler: "files/download", doc: { status: 302 }, grants: { tables: { files: "read", tenancy: "read" }, files: "read" }, auth: "public", extension: true },
  { method: "POST", path: "/v1/files/uploads", handler: "files/start-upload", grants: { tables: { files: "write" }, files: "write" }, extension: true },
  { method: "POST", path: "/v1/files/uploads/{upload_id}/complete", handler: "files/complete-upload", grants: { tables: { files: "readwrite" }, files: "readwrite-delete" }, memoryMb: 1024, extension: true },
]);

import { area } from "../route-row.js";

export const promptRoutes = area({ permissions: { read: "registry:read", write: "registry:write" } }, [
  { method: "GET", path: "/v2/prompts", handler: "prompts/list", grants: { tables: { registry: "read" } } },
  { method: "POST", path: "/v2/prompts", handler: "prompts/create", grants: { tables: { registry: "write" } } },
  { method: "GET", path: "/v2/prompts/{prompt_id}", handler: "prompts/retrieve", grants: { tables: { registry: "read" } } },
  { method: "DELETE", path: "/v2/prompts/{prompt_id}", handler: "prompts/delete", grants: { tables: { registry: "readwrite" } } },
  { method: "PATCH", path: "/v2/prompts/{prompt_id}", handler: "prompts/update", grants: { tables: { registry: "readwrite" } } },
  { method: "GET", path: "/v2/prompts/{prompt_id}/versions", handler: "prompts/list-versions", grants: { tables: { registry: "read" } } },
  { method: "POST", path: "/v2/prompts/{prompt_id}/versions", handler: "prompts/create-version", grants: { tables: { registry: "readwrite" } } },
  { method: "GET", path: "/v2/prompts/{prompt_id}/versions/{version}", handler: "prompts/retrieve-version", grants: { tables: { registry: "read" } } },
  { method: "PATCH", path: "/v2/prompts/{prompt_id}/versions/{version}", handler: "prompts/update-version", grants: { tables: { registry: "readwrite" } } },
]);

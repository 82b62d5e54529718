import { area } from "../route-row.js";

export const agentRoutes = area({ permissions: { read: "agents:read", write: "agents:write" } }, [
  { method: "GET", path: "/v1/agents", handler: "agents/list", grants: { tables: { agents: "read" } } },
  { method: "POST", path: "/v1/agents", handler: "agents/create", grants: { tables: { agents: "write", models: "read" } } },
  { method: "GET", path: "/v1/agents/pages", handler: "agents/list-pages", grants: { tables: { agents: "read" } } },
  { method: "GET", path: "/v1/agents/{agent_id}", handler: "agents/retrieve", grants: { tables: { agents: "read" } } },
  { method: "PATCH", path: "/v1/agents/{agent_id}", handler: "agents/update", grants: { tables: { agents: "readwrite", models: "read" } } },
  { method: "DELETE", path: "/v1/agents/{agent_id}", handler: "agents/delete", doc: { status: 204 }, grants: { tables: { agents: "readwrite" } } },
  { method: "PATCH", path: "/v1/agents/{agent_id}/version", handler: "agents/update-version", grants: { tables: { agents: "readwrite" } } },
  { method: "GET", path: "/v1/agents/{agent_id}/versions", handler: "agents/list-versions", grants: { tables: { agents: "read" } } },
  { method: "GET", path: "/v1/agents/{agent_id}/versions/{version}", handler: "agents/retrieve-version", grants: { tables: { agents: "read" } } },
  { method: "PUT", path: "/v1/agents/{agent_id}/aliases", handler: "agents/put-alias", grants: { tables: { agents: "readwrite" } }, extension: true },
  { method: "GET", path: "/v1/agents/{agent_id}/aliases", handler: "agents/list-aliases", grants: { tables: { agents: "read" } }, extension: true },
  { method: "DELETE", path: "/v1/agents/{agent_id}/aliases", handler: "agents/delete-alias", doc: { status: 204 }, grants: { tables: { agents: "readwrite" } }, extension: true },
  { method: "POST", path: "/v1/agents/completions", handler: "agents/completions", permission: "inference:invoke", grants: { tables: { agents: "read", models: "read", usage: "readwrite", tenancy: "read", telemetry: "write" }, models: "invoke", telemetry: "write" }, streaming: true, memoryMb: 1024 },
]);

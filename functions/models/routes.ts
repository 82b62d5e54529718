import { area } from "../route-row.js";

export const modelRoutes = area({ permissions: { read: "models:read", write: "models:write" } }, [
  { method: "GET", path: "/v1/models", handler: "models/list", grants: { tables: { models: "read" } } },
  { method: "GET", path: "/v1/models/{model_id}", handler: "models/retrieve", grants: { tables: { models: "read" } } },
  { method: "DELETE", path: "/v1/models/{model_id}", handler: "models/delete", grants: { tables: { models: "readwrite" } } },
  { method: "PATCH", path: "/v1/fine_tuning/models/{model_id}", handler: "models/update", grants: { tables: { models: "readwrite" } } },
  { method: "POST", path: "/v1/fine_tuning/models/{model_id}/archive", handler: "models/archive", grants: { tables: { models: "readwrite" } } },
  { method: "DELETE", path: "/v1/fine_tuning/models/{model_id}/archive", handler: "models/unarchive", grants: { tables: { models: "readwrite" } } },
]);

import { area } from "../route-row.js";

export const skillRoutes = area({ permissions: { read: "registry:read", write: "registry:write" } }, [
  { method: "GET", path: "/v2/skills", handler: "skills/list", grants: { tables: { registry: "read" } } },
  { method: "POST", path: "/v2/skills", handler: "skills/create", grants: { tables: { registry: "write" } } },
  // The rest of the SDK's beta.skills (Mistral's OpenAPI has them; our spec does not): the prompts' machinery.
  { method: "GET", path: "/v2/skills/{skill_id}", handler: "skills/retrieve", grants: { tables: { registry: "read" } }, extension: true },
  { method: "DELETE", path: "/v2/skills/{skill_id}", handler: "skills/delete", grants: { tables: { registry: "readwrite" } }, extension: true },
  { method: "PATCH", path: "/v2/skills/{skill_id}", handler: "skills/update", grants: { tables: { registry: "readwrite" } }, extension: true },
  { method: "GET", path: "/v2/skills/{skill_id}/versions", handler: "skills/list-versions", grants: { tables: { registry: "read" } }, extension: true },
  { method: "POST", path: "/v2/skills/{skill_id}/versions", handler: "skills/create-version", grants: { tables: { registry: "readwrite" } }, extension: true },
  { method: "GET", path: "/v2/skills/{skill_id}/versions/{version}", handler: "skills/retrieve-version", grants: { tables: { registry: "read" } }, extension: true },
  { method: "PATCH", path: "/v2/skills/{skill_id}/versions/{version}", handler: "skills/update-version", grants: { tables: { registry: "readwrite" } }, extension: true },
]);

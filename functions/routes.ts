/**
 * THE route table: one row per operation. CDK builds a function, role, integration and method per row
 * (infra/api-stack.ts), the local server mounts the same rows (infra/local/server.ts), and the coverage
 * tests read it. Adding an operation = one handler file under functions/ + one row here.
 */
import type { TableName } from "../shared/store/tables.js";

export type Access = "read" | "write" | "readwrite";
export type ObjectAccess = Access | "delete" | "write-delete" | "readwrite-delete";

export interface Grants {
  /** DynamoDB tables by logical name (shared/store/tables.ts). */
  tables?: Partial<Record<TableName, Access>>;
  /** The files bucket, limited to the workspace object prefix. */
  files?: ObjectAccess;
  /** Calls models through the providers: Bedrock invoke rights on the catalog's Bedrock models only. */
  models?: "invoke";
  /** Starts and stops executions of a state machine of functions/engine.ts (its ARN arrives in the row's `arnEnv`). */
  executions?: Partial<Record<"batch", "start-stop">>;
}

export interface RouteRow {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Written exactly as in the spec's operations.tsv. */
  path: string;
  /** Module under functions/, without extension; it exports `handler`. */
  handler: string;
  grants: Grants;
  /** Served as a response stream (SSE) through API Gateway REST STREAM mode. */
  streaming?: boolean;
  /** No authorizer: the route authenticates by other means (a signed token). */
  public?: boolean;
  memoryMb?: number;
  /** Set on routes that are ours, not the spec's (documented in the README). */
  extension?: boolean;
}

/** What every model-calling route needs: the catalog, the usage log, the models themselves. */
const inference: Grants = { tables: { models: "read", usage: "write" }, models: "invoke" };

export const routes: RouteRow[] = [
  // Files
  { method: "GET", path: "/v1/files", handler: "files/list", grants: { tables: { files: "read" } } },
  { method: "POST", path: "/v1/files", handler: "files/upload", grants: { tables: { files: "write" }, files: "write-delete" }, memoryMb: 1024 },
  { method: "GET", path: "/v1/files/{file_id}", handler: "files/retrieve", grants: { tables: { files: "read" } } },
  { method: "DELETE", path: "/v1/files/{file_id}", handler: "files/delete", grants: { tables: { files: "readwrite" }, files: "delete" } },
  { method: "GET", path: "/v1/files/{file_id}/content", handler: "files/content", grants: { tables: { files: "read" }, files: "read" } },
  { method: "GET", path: "/v1/files/{file_id}/url", handler: "files/signed-url", grants: { tables: { files: "read", tenancy: "read" } } },
  { method: "GET", path: "/v1/files/{file_id}/download", handler: "files/download", grants: { tables: { files: "read", tenancy: "read" }, files: "read" }, public: true, extension: true },
  { method: "POST", path: "/v1/files/uploads", handler: "files/start-upload", grants: { tables: { files: "write" }, files: "write" }, extension: true },
  { method: "POST", path: "/v1/files/uploads/{upload_id}/complete", handler: "files/complete-upload", grants: { tables: { files: "readwrite" }, files: "readwrite-delete" }, memoryMb: 1024, extension: true },

  // Models
  { method: "GET", path: "/v1/models", handler: "models/list", grants: { tables: { models: "read" } } },
  { method: "GET", path: "/v1/models/{model_id}", handler: "models/retrieve", grants: { tables: { models: "read" } } },
  { method: "DELETE", path: "/v1/models/{model_id}", handler: "models/delete", grants: { tables: { models: "readwrite" } } },
  { method: "PATCH", path: "/v1/fine_tuning/models/{model_id}", handler: "models/update", grants: { tables: { models: "readwrite" } } },
  { method: "POST", path: "/v1/fine_tuning/models/{model_id}/archive", handler: "models/archive", grants: { tables: { models: "readwrite" } } },
  { method: "DELETE", path: "/v1/fine_tuning/models/{model_id}/archive", handler: "models/unarchive", grants: { tables: { models: "readwrite" } } },

  // Inference
  { method: "POST", path: "/v1/chat/completions", handler: "inference/chat", grants: inference, streaming: true, memoryMb: 1024 },
  { method: "POST", path: "/v1/fim/completions", handler: "inference/fim", grants: inference, streaming: true, memoryMb: 1024 },
  { method: "POST", path: "/v1/embeddings", handler: "inference/embeddings", grants: inference, memoryMb: 1024 },

  // Batch (rows here)
  { method: "GET", path: "/v1/batch/jobs", handler: "batch/list", grants: { tables: { batch: "read" } } },
  // Create reads every input line before it answers (files up to 512 MB): 1769 MB is one full vCPU for it.
  { method: "POST", path: "/v1/batch/jobs", handler: "batch/create", grants: { tables: { batch: "write", files: "read", models: "read", agents: "read" }, files: "readwrite", executions: { batch: "start-stop" } }, memoryMb: 1769 },
  { method: "GET", path: "/v1/batch/jobs/{job_id}", handler: "batch/retrieve", grants: { tables: { batch: "read", files: "read" }, files: "read" } },
  { method: "DELETE", path: "/v1/batch/jobs/{job_id}", handler: "batch/delete", grants: { tables: { batch: "readwrite" }, files: "delete", executions: { batch: "start-stop" } } },
  { method: "POST", path: "/v1/batch/jobs/{job_id}/cancel", handler: "batch/cancel", grants: { tables: { batch: "readwrite" }, executions: { batch: "start-stop" } } },

  // Agents (rows here)
  { method: "GET", path: "/v1/agents", handler: "agents/list", grants: { tables: { agents: "read" } } },
  { method: "POST", path: "/v1/agents", handler: "agents/create", grants: { tables: { agents: "write", models: "read" } } },
  { method: "GET", path: "/v1/agents/pages", handler: "agents/list-pages", grants: { tables: { agents: "read" } } },
  { method: "GET", path: "/v1/agents/{agent_id}", handler: "agents/retrieve", grants: { tables: { agents: "read" } } },
  { method: "PATCH", path: "/v1/agents/{agent_id}", handler: "agents/update", grants: { tables: { agents: "readwrite", models: "read" } } },
  { method: "DELETE", path: "/v1/agents/{agent_id}", handler: "agents/delete", grants: { tables: { agents: "readwrite" } } },
  { method: "PATCH", path: "/v1/agents/{agent_id}/version", handler: "agents/update-version", grants: { tables: { agents: "readwrite" } } },
  { method: "GET", path: "/v1/agents/{agent_id}/versions", handler: "agents/list-versions", grants: { tables: { agents: "read" } } },
  { method: "GET", path: "/v1/agents/{agent_id}/versions/{version}", handler: "agents/retrieve-version", grants: { tables: { agents: "read" } } },
  { method: "PUT", path: "/v1/agents/{agent_id}/aliases", handler: "agents/put-alias", grants: { tables: { agents: "readwrite" } }, extension: true },
  { method: "GET", path: "/v1/agents/{agent_id}/aliases", handler: "agents/list-aliases", grants: { tables: { agents: "read" } }, extension: true },
  { method: "DELETE", path: "/v1/agents/{agent_id}/aliases", handler: "agents/delete-alias", grants: { tables: { agents: "readwrite" } }, extension: true },
  { method: "POST", path: "/v1/agents/completions", handler: "agents/completions", grants: { tables: { agents: "read", models: "read", usage: "write" }, models: "invoke" }, streaming: true, memoryMb: 1024 },

  // Prompts and skills (rows here)
  { method: "GET", path: "/v2/prompts", handler: "prompts/list", grants: { tables: { registry: "read" } } },
  { method: "POST", path: "/v2/prompts", handler: "prompts/create", grants: { tables: { registry: "write" } } },
  { method: "GET", path: "/v2/prompts/{prompt_id}", handler: "prompts/retrieve", grants: { tables: { registry: "read" } } },
  { method: "DELETE", path: "/v2/prompts/{prompt_id}", handler: "prompts/delete", grants: { tables: { registry: "readwrite" } } },
  { method: "PATCH", path: "/v2/prompts/{prompt_id}", handler: "prompts/update", grants: { tables: { registry: "readwrite" } } },
  { method: "GET", path: "/v2/prompts/{prompt_id}/versions", handler: "prompts/list-versions", grants: { tables: { registry: "read" } } },
  { method: "POST", path: "/v2/prompts/{prompt_id}/versions", handler: "prompts/create-version", grants: { tables: { registry: "readwrite" } } },
  { method: "GET", path: "/v2/prompts/{prompt_id}/versions/{version}", handler: "prompts/retrieve-version", grants: { tables: { registry: "read" } } },
  { method: "PATCH", path: "/v2/prompts/{prompt_id}/versions/{version}", handler: "prompts/update-version", grants: { tables: { registry: "readwrite" } } },
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
];

/** The authorizer is not a route but is built and granted the same way. */
export const authorizer = { handler: "auth/authorizer", grants: { tables: { tenancy: "read" } } satisfies Grants };

/** Where a row's handler sits for the local server and the tests. */
export const handlerModule = (handler: string) => `functions/${handler}.ts`;

/** The API area a row belongs to: one nested stack per area in CDK. */
export const areaOf = (row: Pick<RouteRow, "handler">) => row.handler.split("/")[0]!;

import * as z from "zod";
import { Uuid } from "./common.js";
import { queryBoolean, queryInt, repeated } from "./query.js";
import { DeploymentName } from "./workers.js";

/**
 * Workflow deployments (docs/workflows.md, "Deployments"): worker pools named by their workers, or managed
 * records created through the API. OpenAPI names in comments.
 */

export const DeploymentNameParams = z.object({ name: DeploymentName });
export const DeploymentIdParams = z.object({ deployment_id: Uuid });

export const DeploymentListQuery = z.object({
  active_only: queryBoolean(true),
  is_hardened: z.stringbool().optional(),
  workflow_name: z.string().max(256).optional(),
  /** The SDK's: the creator's user id, and location types (OR) a deployment must have a worker or a record on. */
  created_by: z.string().max(256).optional(),
  location_types: repeated(z.enum(["local", "k8s", "managed"])).optional(),
  search: z.string().max(256).optional(),
  order_by: z.enum(["updated_at", "created_at"]).optional(),
  order: z.enum(["asc", "desc"]).default("desc"),
  limit: queryInt().min(1).max(100).default(50),
  cursor: z.string().max(2048).optional(),
  workspace_id: Uuid.optional(),
});
export type DeploymentListQuery = z.infer<typeof DeploymentListQuery>;

export const DeploymentGetQuery = z.object({ workflow_name: z.string().max(256).optional() });

export const WorkerListQuery = z.object({
  worker_status: z.enum(["active", "inactive"]).optional(),
  limit: queryInt().min(1).max(100).default(50),
  cursor: z.string().max(2048).optional(),
});
export type WorkerListQuery = z.infer<typeof WorkerListQuery>;

export const DeleteQuery = z.object({ force: queryBoolean(false) });

const Url = z.string().min(1).max(2048);
const Quantity = z.string().max(64).nullish();

/** OA:DeploymentResourceConfig (and …Update: every field optional either way). */
export const ResourceConfig = z.strictObject({
  replicas: z.int().min(0).max(1000).nullish(),
  cpu_request: Quantity,
  cpu_limit: Quantity,
  memory_request: Quantity,
  memory_limit: Quantity,
});

/** OA:DeploymentWorkerSpecInput; the spec calls the repository `repo_url`, the OpenAPI `github_url`: either is taken. */
const SpecFields = {
  github_url: Url.optional(),
  repo_url: Url.optional(),
  revision: z.string().max(256).nullish(),
  entrypoint: z.string().max(256).nullish(),
  working_dir: z.string().max(1024).nullish(),
  /** The SDK may send a Koyeb or Kubernetes backend spec: accepted, not used (no build runtime here). */
  backend_spec: z.record(z.string(), z.unknown()).nullish(),
};

export const CreateDeploymentRequest = z.strictObject({
  name: DeploymentName,
  spec: z.strictObject(SpecFields).refine((s) => Boolean(s.github_url ?? s.repo_url), { message: "spec.github_url (or spec.repo_url) is required", path: ["github_url"] }),
  resources: ResourceConfig.nullish(),
  /** Absent or true: the creator is the first authorized principal; false (the SDK's default): the first worker to register is (decision 0042). */
  hardened: z.boolean().optional(),
});
export type CreateDeploymentRequest = z.infer<typeof CreateDeploymentRequest>;

export const UpdateDeploymentRequest = z.strictObject({
  spec: z.strictObject(SpecFields).nullish(),
  resources: ResourceConfig.nullish(),
});
export type UpdateDeploymentRequest = z.infer<typeof UpdateDeploymentRequest>;

const Resources = z.object({
  replicas: z.number().nullable(),
  cpu_request: z.string().nullable(),
  cpu_limit: z.string().nullable(),
  memory_request: z.string().nullable(),
  memory_limit: z.string().nullable(),
});

/** OA:ManagedDeploymentResponse: what the 202s answer (decision 0017). */
export const ManagedDeploymentOut = z.object({
  service_id: z.string(),
  name: z.string(),
  spec: z.object({
    github_url: z.string(),
    type: z.string(),
    revision: z.string().nullable(),
    backend_spec: z.null(),
    entrypoint: z.string().nullable(),
    working_dir: z.string().nullable(),
    restarted_at: z.string().nullable(),
    commit_sha: z.null(),
    commit: z.null(),
  }),
  resources: Resources,
  status: z.object({
    phase: z.string().nullable(),
    available_replicas: z.number(),
    ready_replicas: z.number(),
    endpoint: z.null(),
    message: z.string().nullable(),
    last_seen: z.string().nullable(),
    deployed_revision: z.null(),
    generation: z.null(),
    build_state: z.null(),
  }),
  created_at: z.string(),
  updated_at: z.string(),
  stopped: z.boolean(),
  rollout_status: z.string().nullable(),
  created_by: z.string().nullable(),
  updated_by: z.string().nullable(),
  deployed_by: z.null(),
  deployed_at: z.null(),
  is_hardened: z.boolean(),
});
export type ManagedDeploymentOut = z.infer<typeof ManagedDeploymentOut>;

const LocationType = z.enum(["local", "k8s", "managed"]);

/** OA:DeploymentWorkerResponse, with the spec's `last_heartbeat`. */
export const WorkerOut = z.object({
  name: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  last_heartbeat: z.string(),
  is_active: z.boolean(),
  location: z.object({ location_type: LocationType, k8s_cluster: z.null(), k8s_namespace: z.null() }).nullable(),
});

/** OA:DeploymentResponse, with the spec's `owner` and `last_heartbeat`. */
export const DeploymentOut = z.object({
  id: z.string(),
  name: z.string(),
  is_active: z.boolean(),
  is_hardened: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  last_heartbeat: z.string().nullable(),
  owner: z.string().nullable(),
  location: z.null(),
  worker_count: z.number(),
  active_worker_count: z.number(),
  locations: z.array(LocationType),
  stopped: z.boolean(),
  managed: ManagedDeploymentOut.nullable(),
});

export const DeploymentDetailOut = DeploymentOut.extend({ workers: z.array(WorkerOut) });

export const DeploymentListOut = z.object({ deployments: z.array(DeploymentOut), next_cursor: z.string().nullable(), workspace_id: z.string() });
export const WorkerListOut = z.object({ workers: z.array(WorkerOut), next_cursor: z.string().nullable() });

/** Extension: who may register into a hardened deployment (key ids or service account ids). */
const Principal = z.string().min(1).max(200);
export const PrincipalsRequest = z
  .strictObject({ add: z.array(Principal).max(100).optional(), remove: z.array(Principal).max(100).optional() })
  .refine((r) => Boolean(r.add?.length || r.remove?.length), { message: "Name principals to add or remove", path: ["add"] });
export type PrincipalsRequest = z.infer<typeof PrincipalsRequest>;

export const PrincipalsOut = z.object({ id: z.string(), name: z.string(), is_hardened: z.boolean(), authorized_principals: z.array(z.string()) });

/**
 * Retrieval (beta, `/v1/rag/...`): search-index deployments and ingestion pipeline configurations. Field
 * names, enums and required flags are the OpenAPI's; bodies accept unknown fields and drop them, as the
 * OpenAPI does not close these objects. docs/retrieval.md says what is kept and how.
 */
import * as z from "zod";
import { Uuid } from "./common.js";

/** Text kept in keys and shown in lists: no control characters. */
const printable = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[^\u0000-\u001f\u007f]*$/, { message: "String should not contain control characters" });

/** A registry name is its key in the workspace: 200 characters stay within DynamoDB's 1,024-byte sort key in any script. */
export const RegistryName = printable(200).min(1);

export const DeploymentStatus = z.enum(["online", "offline"]);
export type DeploymentStatus = z.infer<typeof DeploymentStatus>;

const Count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** Names must be unique in a list where they identify an item (indexes of a deployment, their metrics). */
function uniqueNames(what: string) {
  return (items: { name: string }[], ctx: z.RefinementCtx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      if (seen.has(item.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `${what} '${item.name}' is listed twice`, input: item.name });
      seen.add(item.name);
    });
  };
}

export const VespaField = z.object({
  name: printable(256).min(1),
  type: z.enum(["int", "bool", "string", "embedding", "long", "float"]),
  storage: z.enum(["in_memory", "on_disk"]),
  ranking: z.enum(["count", "embedding", "timestamp", "text", "string", "bool", "int", "language"]),
  index_type: z.enum(["ann", "bm25", "attribute"]).nullable(),
  multidimensional: z.boolean(),
});

export const VespaIndex = z.object({
  name: RegistryName,
  fields: z.array(VespaField).max(1000),
  /** The Vespa schema definition, as text. */
  sd: z.string().max(200_000),
  // Sent by the official SDK (2.7), not in the OpenAPI.
  embedding_dimensions: z.number().int().min(1).max(65_536).nullish(),
});
export type VespaIndex = z.infer<typeof VespaIndex>;

export const VespaDeployment = z.object({
  type: z.literal("vespa").default("vespa"),
  vespa_version: printable(100),
  indexes: z.array(VespaIndex).max(100).superRefine(uniqueNames("Index")),
  query_url: z.string().max(2048),
});
export type VespaDeployment = z.infer<typeof VespaDeployment>;

/** PUT /v1/rag/deployments: register, or re-register under the same name. */
export const RegisterDeploymentBody = z.object({
  name: RegistryName,
  status: DeploymentStatus.default("offline"),
  deployment: VespaDeployment,
});
export type RegisterDeploymentBody = z.infer<typeof RegisterDeploymentBody>;

export const RegisterDeploymentOut = z.object({ id: z.string() });

export const DeploymentParams = z.object({ deployment_id: Uuid });

const IndexMetrics = z.object({ name: RegistryName, document_count: Count });

/** PUT /v1/rag/deployments/{deployment_id}/metrics: online with counts, or offline (counts cleared on request). */
export const UpdateMetricsBody = z.discriminatedUnion("status", [
  z.object({ status: z.literal("online"), document_count: Count, index_metrics: z.array(IndexMetrics).max(100).superRefine(uniqueNames("Index")) }),
  z.object({ status: z.literal("offline"), clear_metrics: z.boolean().default(false) }),
]);
export type UpdateMetricsBody = z.infer<typeof UpdateMetricsBody>;

const DateTimeOut = z.string();

export const DeploymentSummary = z.object({
  id: z.string(),
  name: z.string(),
  creator_id: z.string(),
  document_count: z.number().int(),
  status: DeploymentStatus,
  created_at: DateTimeOut,
  modified_at: DateTimeOut,
  deployment: z.object({
    type: z.literal("vespa"),
    indexes: z.array(z.object({ id: z.string(), name: z.string(), document_count: z.number().int().nullable() })),
  }),
});
export type DeploymentSummary = z.infer<typeof DeploymentSummary>;

export const DeploymentSummariesOut = z.object({ deployments: z.array(DeploymentSummary) });

/** `pipeline_composition`: step name → component, both text. */
const Composition = z.record(printable(256).min(1), z.string().max(10_000));

/** PUT /v1/rag/ingestion_pipeline_configurations: register, or re-register under the same name. */
export const RegisterPipelineBody = z.object({
  name: RegistryName,
  pipeline_composition: Composition.nullish(),
  // Sent by the official SDK (2.7), not in the OpenAPI: kept with the configuration.
  target_indexes: z
    .array(z.object({ type: z.literal("vespa").default("vespa"), name: RegistryName }))
    .max(100)
    .nullish(),
});
export type RegisterPipelineBody = z.infer<typeof RegisterPipelineBody>;

export const PipelineParams = z.object({ id: Uuid });

/**
 * A date-time with an offset, or without one (read as UTC, as the OpenAPI's server does with a naive
 * time), normalized to `YYYY-MM-DDTHH:mm:ss.sssZ` so stored times compare as text.
 */
export const RunTime = z.iso.datetime({ offset: true, local: true, message: "Input should be a valid datetime" })
  .transform((text, ctx) => {
    const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(text);
    const date = new Date(hasZone ? text : `${text}Z`);
    if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 0 || date.getUTCFullYear() > 9999) {
      ctx.addIssue({ code: "custom", message: "Input should be a valid datetime", input: text });
      return z.NEVER;
    }
    return date.toISOString();
  });

/** PUT /v1/rag/ingestion_pipeline_configurations/{id}/run_info: one run's end time and chunk count. */
export const RunInfoBody = z.object({
  execution_time: RunTime,
  chunks_count: z.number().int().min(0).max(2_147_483_647),
});
export type RunInfoBody = z.infer<typeof RunInfoBody>;

export const PipelineOut = z.object({
  id: z.string(),
  author_id: z.string(),
  name: z.string(),
  created_at: DateTimeOut,
  modified_at: DateTimeOut,
  last_run_time: DateTimeOut.nullable(),
  last_run_chunks_count: z.number().int(),
  total_chunks_count: z.number().int(),
  pipeline_composition: z.record(z.string(), z.string()).nullable(),
});
export type PipelineOut = z.infer<typeof PipelineOut>;

export const PipelinesOut = z.array(PipelineOut);

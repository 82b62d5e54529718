/**
 * Evaluation pipeline configurations (`/v1/observability/pipeline-configs…`, docs/observability/pipelines.md, decision
 * 65): the wire shapes of the SDK's `beta.observability.evaluations` pipeline calls (CreatePipelineConfigRequest,
 * UpdatePipelineConfigRequest, PipelineConfig, PipelineConfigsResponse), snake_case as sent. The `definition` is taken
 * as an object here and checked against `pipeline_kind` by the domain (shared/domain/observability/pipelines.ts), so
 * a definition of another kind is a 422 naming the kind rather than a union's guess. Bodies drop unknown top-level
 * fields; definitions are strict (a judge's `prompt` in a moderation definition is refused, not dropped).
 */
import * as z from "zod";
import { Uuid } from "../common.js";

export const PipelineKind = z.enum(["detection", "moderation", "judge", "export"]);
export type PipelineKind = z.infer<typeof PipelineKind>;
export const SourceKind = z.enum(["span", "log", "metric"]);
export type SourceKind = z.infer<typeof SourceKind>;

export const PipelineSelector = z.object({
  source_kind: SourceKind,
  /** A search expression of the source's kind (docs/observability/engine.md); null or absent: every record. */
  filter: z.string().max(10_000).nullish(),
});
export type PipelineSelector = z.infer<typeof PipelineSelector>;

/** A target: a field of the source's catalogue (`input_messages`, `body`), a map key (`span_attributes['k']`), a GenAI name (`gen_ai.output.messages`) or an attribute key. */
const TargetAttribute = z.string().min(1).max(500);

export const DetectionPattern = z.strictObject({
  name: z.string().min(1).max(100),
  regex: z.string().min(1).max(1000),
  category: z.string().min(1).max(100),
  confidence: z.string().min(1).max(50),
});
export const DetectionDefinition = z.strictObject({
  target_attributes: z.array(TargetAttribute).min(1).max(20),
  patterns: z.array(DetectionPattern).min(1).max(50),
});
export type DetectionDefinition = z.infer<typeof DetectionDefinition>;

export const JudgePipelineDefinition = z.strictObject({ model: z.string().min(1).max(500), prompt: z.string().min(1).max(10_000) });
export type JudgePipelineDefinition = z.infer<typeof JudgePipelineDefinition>;

/** The SDK fills `model` with mistral-moderation-latest; a body without it gets the same. */
export const ModerationDefinition = z.strictObject({
  model: z.string().min(1).max(500).default("mistral-moderation-latest"),
  target_attributes: z.array(TargetAttribute).min(1).max(20).optional(),
});
export type ModerationDefinition = z.infer<typeof ModerationDefinition>;

/** OTLPDestination: accepted in shape only so that the refusal names the kind (export is not run here, decision 65). */
export const ExportDefinition = z.strictObject({
  destination: z.object({ protocol: z.string(), endpoint: z.string(), insecure: z.boolean().default(false), headers: z.record(z.string(), z.object({ value: z.string().nullish() })).optional() }),
});

export type PipelineDefinition = DetectionDefinition | JudgePipelineDefinition | ModerationDefinition;

const configFields = {
  name: z.string().min(1).max(200),
  description: z.string().max(2000).nullish(),
  slug: z.string().max(200).nullish(),
  group: z.string().max(200).nullish(),
  pipeline_kind: PipelineKind,
  selectors: z.array(PipelineSelector).min(1, "selectors must hold at least one selector").max(10),
  definition: z.record(z.string(), z.unknown()),
};

export const CreatePipelineConfigBody = z.object({ ...configFields, enabled: z.boolean().default(true) });
export type CreatePipelineConfigBody = z.infer<typeof CreatePipelineConfigBody>;
/** PUT replaces the whole configuration, `enabled` included (UpdatePipelineConfigRequest requires it). */
export const UpdatePipelineConfigBody = z.object({ ...configFields, enabled: z.boolean() });
export type UpdatePipelineConfigBody = z.infer<typeof UpdatePipelineConfigBody>;

export const PipelineConfigParams = z.object({ pipeline_config_id: Uuid });

const booleanParam = z.enum(["true", "false"]).transform((v) => v === "true");

/** The SDK's list query: page from 1, page_size 0..100 (50), and the filters it sends. */
export const PipelineConfigListQuery = z.object({
  page: z.coerce.number<string>().int().min(1).default(1),
  page_size: z.coerce.number<string>().int().min(0).max(100).default(50),
  pipeline_kind: PipelineKind.optional(),
  group: z.string().max(200).optional(),
  enabled: booleanParam.optional(),
  q: z.string().max(200).optional(),
});
export type PipelineConfigListQuery = z.infer<typeof PipelineConfigListQuery>;

export const PipelineConfigOut = z.object({
  id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  deleted_at: z.string().nullable(),
  scope: z.literal("workspace"),
  workspace_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  slug: z.string().nullable(),
  group: z.string().nullable(),
  pipeline_kind: PipelineKind,
  selectors: z.array(z.object({ source_kind: SourceKind, filter: z.string().nullable() })),
  enabled: z.boolean(),
  definition_hash: z.string(),
  definition: z.record(z.string(), z.unknown()),
});
export type PipelineConfigOut = z.infer<typeof PipelineConfigOut>;

export const PipelineConfigListOut = z.object({
  pipeline_configs: z.object({ results: z.array(PipelineConfigOut), count: z.number().int(), next: z.string().nullable(), previous: z.string().nullable() }),
});
export type PipelineConfigListOut = z.infer<typeof PipelineConfigListOut>;

/** What one sweep of a pipeline did (the extension route `…/{pipeline_config_id}/run`). */
export const PipelineRunOut = z.object({
  pipeline_config_id: z.string(),
  spans_read: z.number().int(),
  logs_read: z.number().int(),
  evaluations_written: z.number().int(),
  failed: z.number().int(),
  /** The first failures (at most 20), without content: the record's ids and the error's message. */
  failures: z.array(z.object({ source_kind: SourceKind, trace_id: z.string(), span_id: z.string(), message: z.string() })),
  /** More matching records were left for the next sweep (the sweep's bound or its time ran out, or a model was unavailable). */
  has_more: z.boolean(),
});
export type PipelineRunOut = z.infer<typeof PipelineRunOut>;

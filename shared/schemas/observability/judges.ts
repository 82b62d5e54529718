/**
 * Saved judges (`/v1/observability/judges…`, docs/observability/datasets.md "Judges", decision 61): field names,
 * bounds and defaults are the OpenAPI's (CreateJudgeRequest, UpdateJudgeRequest, Judge, ListJudgesResponse,
 * JudgeConversationRequest, JudgeOutput). A judge's definition is the one live judging of a record takes
 * (`JudgeDefinition`), so a saved judge and a judge given inline are checked alike. Bodies accept unknown fields and
 * drop them, as the OpenAPI's are open.
 */
import * as z from "zod";
import { Uuid } from "../common.js";
import { JudgeDefinition } from "./datasets.js";

export const JudgeOutputType = z.enum(["REGRESSION", "CLASSIFICATION"]);
export type JudgeOutputType = z.infer<typeof JudgeOutputType>;

export const JudgeParams = z.object({ judge_id: Uuid });

export const CreateJudgeBody = JudgeDefinition;
export type CreateJudgeBody = z.infer<typeof CreateJudgeBody>;
/** PUT: every field, as on create (UpdateJudgeRequest requires them all); the judge keeps its id. */
export const UpdateJudgeBody = JudgeDefinition;
export type UpdateJudgeBody = z.infer<typeof UpdateJudgeBody>;

/** A repeated query parameter, at most 100 values: DynamoDB's `IN` takes at most 100 operands. */
const filterOf = <T extends z.ZodType>(item: T) => z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(item).max(100).optional());

/** The OpenAPI's page-number paging (page from 1, page_size 0..100), `q` (name contains) and the repeated filters. */
export const JudgeListQuery = z.object({
  page: z.coerce.number<string>().int().min(1).default(1),
  page_size: z.coerce.number<string>().int().min(0).max(100).default(50),
  q: z.string().max(200).optional(),
  type_filter: filterOf(JudgeOutputType),
  model_filter: filterOf(z.string().min(1).max(500)),
});
export type JudgeListQuery = z.infer<typeof JudgeListQuery>;

/** The OpenAPI's Judge. Revisions are not kept (decision 61): `up_revision`, `down_revision`, `base_revision` are null. */
export const SavedJudgeOut = z.object({
  id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  deleted_at: z.string().nullable(),
  owner_id: z.string(),
  workspace_id: z.string(),
  ...JudgeDefinition.shape,
  up_revision: z.string().nullable(),
  down_revision: z.string().nullable(),
  base_revision: z.string().nullable(),
});
export type SavedJudgeOut = z.infer<typeof SavedJudgeOut>;

export const JudgeListOut = z.object({ judges: z.object({ results: z.array(SavedJudgeOut), count: z.number().int(), next: z.string().nullable(), previous: z.string().nullable() }) });
export type JudgeListOut = z.infer<typeof JudgeListOut>;

/** JudgeConversationRequest: the chat messages to judge (checked as a conversation) and optional properties the judge reads with them. */
export const JudgeConversationBody = z.object({
  messages: z.array(z.record(z.string(), z.unknown())).min(1, "messages must hold at least one message").max(1000),
  properties: z.record(z.string(), z.unknown()).nullish(),
});
export type JudgeConversationBody = z.infer<typeof JudgeConversationBody>;

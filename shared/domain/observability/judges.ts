/**
 * Saved judges (docs/observability/datasets.md "Judges", decision 61): what is stored, how it is answered, and the
 * errors of the judges' routes. Pure: the store and the services do the I/O.
 */
import { isDeepStrictEqual } from "node:util";
import type { JudgeDefinition } from "../../schemas/observability/datasets.js";
import type { SavedJudgeOut } from "../../schemas/observability/judges.js";
import { observabilityError } from "./datasets.js";

/** A judge of a workspace: its definition, owner and instants. Its `name` is unique in the workspace (evaluations are named after it). */
export interface Judge extends JudgeDefinition {
  workspace: string;
  id: string;
  ownerId: string;
  createdAt: string;
  updatedAt: string;
}

/** Deletes are hard deletes and revisions are not kept: `deleted_at` and the revision ids are always null. */
export const toJudgeOut = (judge: Judge): SavedJudgeOut => ({
  id: judge.id,
  created_at: judge.createdAt,
  updated_at: judge.updatedAt,
  deleted_at: null,
  owner_id: judge.ownerId,
  workspace_id: judge.workspace,
  name: judge.name,
  description: judge.description,
  model_name: judge.model_name,
  output: judge.output,
  instructions: judge.instructions,
  tools: judge.tools,
  up_revision: null,
  down_revision: null,
  base_revision: null,
});

/** The definition alone (of a judge, or of a body with more fields), as live judging runs it. */
export const definitionOf = ({ name, description, model_name, output, instructions, tools }: JudgeDefinition): JudgeDefinition => ({ name, description, model_name, output, instructions, tools });

/** Whether a PUT's definition is the judge's own (nothing to write); a stored map's keys come back in any order. */
export const sameDefinition = (judge: Judge, next: JudgeDefinition): boolean => isDeepStrictEqual(definitionOf(judge), definitionOf(next));

export const judgeNotFound = (id: string) => observabilityError(404, "JUDGE_NOT_FOUND", `No judge with id '${id}' exists in this workspace`);
export const judgeNameTaken = (name: string) => observabilityError(409, "JUDGE_NAME_ALREADY_EXISTS", `A judge named '${name}' already exists in this workspace`);
export const judgeChangedMeanwhile = (id: string) => observabilityError(409, "JUDGE_DID_NOT_CHANGE", `Judge '${id}' kept changing while this update was applied; read it again and retry`);
export const conversationFormatError = (message: string) => observabilityError(422, "JUDGE_CONVERSATION_FORMAT_ERROR", message);

/**
 * Saved judges (`/v1/observability/judges…`; docs/observability/datasets.md "Judges", decision 61): a workspace's
 * judge definitions, unique by name, created, listed, read, replaced and deleted by id, and run on a conversation
 * through the same model path as live judging of a dataset record.
 */
import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import { checkMessages, pageLinks } from "../../domain/observability/datasets.js";
import { conversationFormatError, definitionOf, judgeChangedMeanwhile, judgeNameTaken, judgeNotFound, sameDefinition, toJudgeOut, type Judge } from "../../domain/observability/judges.js";
import { checkJudge, conversationText } from "../../domain/observability/judging.js";
import type { JudgeOut } from "../../schemas/observability/datasets.js";
import type { CreateJudgeBody, JudgeConversationBody, JudgeListOut, JudgeListQuery, SavedJudgeOut, UpdateJudgeBody } from "../../schemas/observability/judges.js";
import { judgeStore, type StoredJudge } from "../../store/observability/judges.js";
import type { CallContext } from "../inference/usage.js";
import { judgeModel, runJudge } from "./judging.js";

/** Tries of an update or a delete that meets a concurrent change of the same judge before it answers 409. */
const ATTEMPTS = 3;

const now = () => new Date().toISOString();

async function judgeOf(caller: Caller, id: string): Promise<StoredJudge> {
  const judge = await judgeStore.get(caller.workspace, id.toLowerCase());
  if (!judge) throw judgeNotFound(id);
  return judge;
}

/** The definition as a saved judge holds it: its output rules and tools checked, its model one of the catalog's chat models. */
async function checkDefinition(caller: Caller, body: CreateJudgeBody): Promise<void> {
  checkJudge(body, ["body"]);
  await judgeModel({ caller }, body.model_name, ["body", "model_name"]);
}

export async function createJudge(caller: Caller, body: CreateJudgeBody): Promise<SavedJudgeOut> {
  await checkDefinition(caller, body);
  const at = now();
  const judge: Judge = { workspace: caller.workspace, id: randomUUID(), ownerId: caller.principal, createdAt: at, updatedAt: at, ...definitionOf(body) };
  if (!(await judgeStore.create(judge))) throw judgeNameTaken(body.name);
  return toJudgeOut(judge);
}

export async function listJudges(caller: Caller, query: JudgeListQuery): Promise<JudgeListOut> {
  const filter = { q: query.q || undefined, types: query.type_filter, models: query.model_filter };
  const { judges, count } = await judgeStore.page(caller.workspace, filter, (query.page - 1) * query.page_size, query.page_size);
  const links = pageLinks("/v1/observability/judges", query.page, query.page_size, count, { q: filter.q, type_filter: filter.types, model_filter: filter.models });
  return { judges: { results: judges.map(toJudgeOut), count, ...links } };
}

export const getJudge = async (caller: Caller, id: string): Promise<SavedJudgeOut> => toJudgeOut(await judgeOf(caller, id));

/**
 * Replaces the judge's definition (all fields, as PUT sends them); its id, owner and creation stay. The same
 * definition again changes nothing. A new name must be free in the workspace (409 JUDGE_NAME_ALREADY_EXISTS).
 */
export async function updateJudge(caller: Caller, id: string, body: UpdateJudgeBody): Promise<void> {
  // The judge first: another workspace's id is a 404 whatever the body says.
  let current = await judgeOf(caller, id);
  await checkDefinition(caller, body);
  for (let attempt = 1; ; attempt += 1) {
    if (sameDefinition(current, body)) return;
    const { revision: _revision, ...kept } = current;
    if (await judgeStore.replace(current, { ...kept, ...definitionOf(body), updatedAt: now() })) return;
    if (body.name !== current.name) {
      const holder = await judgeStore.idByName(caller.workspace, body.name);
      if (holder !== undefined && holder !== current.id) throw judgeNameTaken(body.name);
    }
    if (attempt === ATTEMPTS) throw judgeChangedMeanwhile(id);
    // Changed or deleted meanwhile: read it again (a deleted judge is a 404 there).
    current = await judgeOf(caller, id);
  }
}

export async function deleteJudge(caller: Caller, id: string): Promise<void> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    if (await judgeStore.remove(await judgeOf(caller, id))) return;
  }
  throw judgeChangedMeanwhile(id);
}

/**
 * The saved judge's judgement of a conversation (`messages` checked as chat messages, 422
 * JUDGE_CONVERSATION_FORMAT_ERROR), with the properties sent along. Answered, not stored: the conversation is no
 * record or span of the workspace for an evaluation to be filed under (decision 61); the model call itself is
 * a model call like any (usage, spend limit, its span).
 */
export async function judgeConversation(ctx: CallContext, id: string, body: JudgeConversationBody): Promise<JudgeOut> {
  // The judge first: another workspace's id is a 404 whatever the conversation holds.
  const judge = definitionOf(await judgeOf(ctx.caller, id));
  checkMessages(body.messages, "messages", conversationFormatError);
  const model = await judgeModel(ctx, judge.model_name, null);
  return runJudge(ctx, judge, model, { name: "conversation", text: conversationText(body.messages, body.properties) });
}

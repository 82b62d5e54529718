/**
 * Conversations (docs/conversations.md, decision 0070): server-side agent runs. A turn (start, append, restart) runs
 * the agent loop (loop.ts) and, unless `store: false`, keeps its inputs and outputs as the conversation's entries in
 * one transaction; a turn that fails keeps nothing. Every conversation belongs to a workspace; another workspace's
 * conversation is not found.
 */
import { logger } from "../../observability/logger.js";
import type { Caller } from "../../domain/caller.js";
import {
  checkFunctionResults,
  entriesThrough,
  entryOut,
  inputEntries,
  isMessage,
  newConversationId,
  pendingAfter,
  type ConversationHead,
  type Entry,
} from "../../domain/conversations.js";
import { ApiError, Conflict, NotFound, Unprocessable, asApiError } from "../../domain/errors.js";
import type {
  ConversationAppendRequest,
  ConversationListQuery,
  ConversationOut,
  ConversationRequest,
  ConversationResponse,
  ConversationRestartRequest,
} from "../../schemas/conversation.js";
import type { CompletionArgs } from "../../schemas/agent.js";
import type { GuardrailConfig } from "../../schemas/guardrails.js";
import { conversationStore, MAX_ENTRIES_PER_WRITE } from "../../store/conversations.js";
import { head as agentHead, versionOf } from "../agents/agents.js";
import { requireBodyModel } from "../models/catalog.js";
import type { CallContext } from "../inference/usage.js";
import { runTurn, toolsOf, type AgentAt, type Target, type Turn, type TurnEvent, type TurnResult } from "./loop.js";

const CONVERSATION_ID = /^conv_[0-9a-f]{32}$/;
const now = () => new Date().toISOString();

/** A turn's answer: the JSON body, or the stream of Mistral's conversation events. */
export type TurnAnswer = { kind: "answer"; body: ConversationResponse } | { kind: "stream"; frames: AsyncIterable<string> };

async function found(caller: Pick<Caller, "workspace">, id: string): Promise<ConversationHead> {
  const head = CONVERSATION_ID.test(id) ? await conversationStore.get(caller.workspace, id) : undefined;
  if (!head) throw new NotFound("conversation", id);
  return head;
}

const invalid = (loc: (string | number)[], msg: string) => new Unprocessable([{ loc, msg, type: "value_error" }]);

/** The agent at a version (number or alias), or its current one. */
async function agentAt(caller: Caller, id: string, ref: string | number | null | undefined): Promise<AgentAt> {
  const agent = await agentHead(caller, id);
  if (ref === null || ref === undefined) return { id: agent.id, name: agent.name, version: agent.version, config: agent };
  const version = await versionOf(caller, agent, String(ref));
  return { id: agent.id, name: version.name, version: version.version, config: version };
}

/** The agents a handoff may reach, at their current versions; one since deleted is left out (and logged). */
function agentsFor(caller: Caller) {
  return async (ids: readonly string[]): Promise<AgentAt[]> => {
    const agents = await Promise.all(
      ids.map((id) =>
        agentAt(caller, id, null).catch((error: unknown) => {
          if (asApiError(error).status !== 404) throw error;
          logger.warn("a handoff names an agent that does not exist", { agent: id });
          return undefined;
        }),
      ),
    );
    return agents.filter((agent): agent is AgentAt => agent !== undefined);
  };
}

/** Who answers a stored conversation now: its model, or its active agent (the started one at its version, or a handoff's). */
async function targetOf(caller: Caller, head: ConversationHead, version?: string | number | null): Promise<Target> {
  if (head.setup) return { kind: "model", setup: head.setup };
  const active = head.activeAgentId ?? head.agentId!;
  return { kind: "agent", agent: await agentAt(caller, active, active === head.agentId ? (version !== undefined ? version : head.agentVersion) : null) };
}

interface TurnPlan {
  ctx: CallContext;
  conversationId: string;
  history: Entry[];
  inputs: Entry[];
  target: Target;
  completionArgs?: CompletionArgs | null;
  guardrails?: GuardrailConfig[] | null;
  handoffExecution: "client" | "server";
  stream: boolean;
  /** Writes the turn's entries; absent with `store: false`. */
  keep?: (result: TurnResult) => Promise<void>;
}

/** Turns longer than one transaction are refused up front (inputs) or stop the loop (outputs). */
const MAX_INPUT_ENTRIES = 40;

function entriesOfInputs(inputs: ConversationRequest["inputs"]): Entry[] {
  const entries = inputEntries(inputs);
  if (entries.length > MAX_INPUT_ENTRIES) throw invalid(["body", "inputs"], `A turn takes at most ${MAX_INPUT_ENTRIES} input entries; got ${entries.length}`);
  return entries;
}

const responseOf = (conversationId: string, result: TurnResult): ConversationResponse => ({
  object: "conversation.response",
  conversation_id: conversationId,
  outputs: result.outputs.map(entryOut) as ConversationResponse["outputs"],
  usage: result.usage,
  guardrails: null,
});

const frame = (event: TurnEvent) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/**
 * Runs a planned turn. The tools are checked (and connectors listed) before anything is answered, so a refused tool
 * is a plain error status even when streamed; after the stream's first event a failure ends it with
 * `conversation.response.error`.
 */
async function run(plan: TurnPlan): Promise<TurnAnswer> {
  const turn: Turn = { ...plan, agentsFor: agentsFor(plan.ctx.caller) };
  const offered = await toolsOf(turn, plan.target);
  const events = runTurn(turn, offered);
  if (!plan.stream) {
    let next = await events.next();
    while (!next.done) next = await events.next();
    await plan.keep?.(next.value);
    return { kind: "answer", body: responseOf(plan.conversationId, next.value) };
  }
  return { kind: "stream", frames: streamed(plan, events) };
}

async function* streamed(plan: TurnPlan, events: AsyncGenerator<TurnEvent, TurnResult>): AsyncGenerator<string> {
  try {
    let next = await events.next();
    while (!next.done) {
      yield frame(next.value);
      next = await events.next();
    }
    await plan.keep?.(next.value);
    yield frame({ type: "conversation.response.done", created_at: now(), usage: next.value.usage });
  } catch (error) {
    const known = asApiError(error);
    if (known.status >= 500) logger.warn("a conversation stream failed", { error: error as Error });
    yield frame({ type: "conversation.response.error", created_at: now(), message: known.message, code: known.status });
  } finally {
    // The client went away mid-stream: the loop stops at its next event and keeps nothing.
    await events.return(undefined as never);
  }
}

function turnTooLong(count: number): void {
  if (count > MAX_ENTRIES_PER_WRITE) throw new ApiError(500, "server_error", `The turn made ${count} entries, more than the ${MAX_ENTRIES_PER_WRITE} one turn may keep; nothing was kept`, "conversation_turn_too_long");
}

/** POST /v1/conversations: a new conversation with a model (and its instructions and tools) or an agent. */
export async function start(ctx: CallContext, request: ConversationRequest): Promise<TurnAnswer> {
  const { caller } = ctx;
  if (Boolean(request.model) === Boolean(request.agent_id)) throw invalid(["body", request.model ? "agent_id" : "model"], "A conversation starts with either `model` or `agent_id`, not both and not neither");
  if (request.agent_id) {
    for (const field of ["instructions", "tools"] as const) if (request[field] !== undefined && request[field] !== null) throw invalid(["body", field], `\`${field}\` belong to the agent: a conversation with an agent takes none`);
  }
  const inputs = entriesOfInputs(request.inputs);
  checkFunctionResults([], inputs);
  let target: Target;
  if (request.model) {
    await requireBodyModel(caller, request.model, "chat");
    target = { kind: "model", setup: { model: request.model, instructions: request.instructions ?? null, tools: request.tools ?? [], completion_args: request.completion_args ?? {}, guardrails: request.guardrails ?? null } };
  } else {
    target = { kind: "agent", agent: await agentAt(caller, request.agent_id!, request.agent_version) };
  }
  const id = newConversationId();
  const at = now();
  const head: ConversationHead = {
    id,
    workspace: caller.workspace,
    organization: caller.organization,
    ownerId: caller.principal,
    createdAt: at,
    updatedAt: at,
    name: request.name ?? null,
    description: request.description ?? null,
    metadata: request.metadata ?? null,
    ...(target.kind === "model" ? { setup: target.setup } : { agentId: target.agent.id, agentVersion: request.agent_version ?? null, activeAgentId: target.agent.id }),
    entryCount: 0,
    pendingCalls: [],
  };
  return run({
    ctx,
    conversationId: id,
    history: [],
    inputs,
    target,
    completionArgs: target.kind === "agent" ? request.completion_args : null,
    guardrails: target.kind === "agent" ? request.guardrails : null,
    handoffExecution: request.handoff_execution ?? "server",
    stream: Boolean(request.stream),
    ...(request.store === false
      ? {}
      : {
          keep: async (result: TurnResult) => {
            const entries = [...inputs, ...result.outputs];
            turnTooLong(entries.length);
            await conversationStore.create({ ...head, updatedAt: now(), pendingCalls: pendingAfter([], entries), ...(result.activeAgentId ? { activeAgentId: result.activeAgentId } : {}) }, entries);
          },
        }),
  });
}

/** POST /v1/conversations/{id}: the next turn, after the conversation's entries. */
export async function append(ctx: CallContext, id: string, request: ConversationAppendRequest): Promise<TurnAnswer> {
  const head = await found(ctx.caller, id);
  const inputs = entriesOfInputs(request.inputs);
  checkFunctionResults(head.pendingCalls, inputs);
  const [history, target] = await Promise.all([conversationStore.entries(ctx.caller.workspace, head.id), targetOf(ctx.caller, head)]);
  return run({
    ctx,
    conversationId: head.id,
    history,
    inputs,
    target,
    completionArgs: request.completion_args,
    handoffExecution: request.handoff_execution,
    stream: request.stream,
    ...(request.store
      ? {
          keep: async (result: TurnResult) => {
            const entries = [...inputs, ...result.outputs];
            turnTooLong(entries.length);
            const kept = await conversationStore.append(head, entries, { updatedAt: now(), pendingCalls: pendingAfter(head.pendingCalls, entries), activeAgentId: result.activeAgentId ?? head.activeAgentId });
            if (!kept) throw new Conflict(`Conversation '${head.id}' changed while this turn ran (another turn, or a delete); nothing of this turn was kept`, "conversation_conflict");
          },
        }
      : {}),
  });
}

/**
 * POST /v1/conversations/{id}/restart: a branch. A new conversation whose history is the original's entries up to
 * and including `from_entry_id`, then the request's inputs; the original is left as it was.
 */
export async function restart(ctx: CallContext, id: string, request: ConversationRestartRequest): Promise<TurnAnswer> {
  const original = await found(ctx.caller, id);
  const history = entriesThrough(await conversationStore.entries(ctx.caller.workspace, original.id), request.from_entry_id);
  if (!history) throw invalid(["body", "from_entry_id"], `Conversation '${original.id}' has no entry '${request.from_entry_id}'`);
  const pending = pendingAfter([], history);
  const inputs = entriesOfInputs(request.inputs);
  checkFunctionResults(pending, inputs);
  const agentVersion = request.agent_version !== undefined ? request.agent_version : original.agentVersion;
  // The branch starts with the agent the original started with (a handoff in the kept history moved it: follow it).
  const lastHandoff = history.findLast((entry) => entry.type === "agent.handoff");
  const branchHead: ConversationHead = {
    ...original,
    id: newConversationId(),
    createdAt: now(),
    updatedAt: now(),
    metadata: request.metadata ?? original.metadata,
    ...(original.agentId ? { agentVersion, activeAgentId: lastHandoff ? String(lastHandoff.next_agent_id) : original.agentId } : {}),
    entryCount: 0,
    pendingCalls: pending,
  };
  const target = await targetOf(ctx.caller, branchHead, agentVersion);
  return run({
    ctx,
    conversationId: branchHead.id,
    history,
    inputs,
    target,
    completionArgs: request.completion_args,
    guardrails: request.guardrails,
    handoffExecution: request.handoff_execution,
    stream: request.stream,
    ...(request.store
      ? {
          keep: async (result: TurnResult) => {
            const entries = [...history, ...inputs, ...result.outputs];
            turnTooLong(entries.length);
            await conversationStore.create({ ...branchHead, pendingCalls: pendingAfter([], entries), activeAgentId: result.activeAgentId ?? branchHead.activeAgentId }, entries);
          },
        }
      : {}),
  });
}

/** ModelConversation or AgentConversation, as the OpenAPI writes them. */
export function toConversationOut(head: ConversationHead): ConversationOut {
  const common = { object: "conversation" as const, id: head.id, created_at: head.createdAt, updated_at: head.updatedAt, name: head.name, description: head.description, metadata: head.metadata };
  if (head.setup) {
    const { model, instructions, tools, completion_args, guardrails } = head.setup;
    return { ...common, model, instructions, tools, completion_args, guardrails };
  }
  return { ...common, agent_id: head.agentId!, agent_version: head.agentVersion ?? null };
}

export async function get(caller: Caller, id: string): Promise<ConversationOut> {
  return toConversationOut(await found(caller, id));
}

/** GET /v1/conversations: newest first, by page number; skipping costs reads, as for agents. */
export async function list(caller: Caller, query: ConversationListQuery): Promise<ConversationOut[]> {
  const heads = await conversationStore.listAt(caller.workspace, { offset: query.page * query.page_size, limit: query.page_size, metadata: query.metadata });
  return heads.map(toConversationOut);
}

export async function remove(caller: Caller, id: string): Promise<void> {
  const head = await found(caller, id);
  if (!(await conversationStore.remove(caller.workspace, head.id))) throw new NotFound("conversation", id);
}

export async function history(caller: Caller, id: string) {
  const head = await found(caller, id);
  const entries = await conversationStore.entries(caller.workspace, head.id);
  return { object: "conversation.history" as const, conversation_id: head.id, entries: entries.map(entryOut) };
}

export async function messages(caller: Caller, id: string) {
  const head = await found(caller, id);
  const entries = await conversationStore.entries(caller.workspace, head.id);
  return { object: "conversation.messages" as const, conversation_id: head.id, messages: entries.filter(isMessage).map(entryOut) };
}

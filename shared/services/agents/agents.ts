import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import type {
  AgentFilter,
  AgentListQuery,
  AgentOut,
  AgentPagesQuery,
  CompletionArgs,
  CreateAgentRequest,
  UpdateAgentRequest,
} from "../../schemas/agent.js";
import type { AgentAlias, AgentConfig, AgentHead, AgentVersion } from "../../domain/agents.js";
import { agentStore, type HeadFilter } from "../../store/agents.js";
import { ApiError, Conflict, NotFound, PayloadTooLarge } from "../../domain/errors.js";
import { requireBodyModel } from "../models/catalog.js";

/**
 * Agents and their numbered versions (docs/agents.md). Every agent belongs to a workspace and is seen by
 * every key of that workspace; another workspace's agent is not found.
 */

/** How often a PATCH re-reads and retries after losing a race to another writer before answering 409. */
export const MAX_VERSION_ATTEMPTS = 40;
/** DynamoDB items stop at 400 KB; an agent's fields must leave room for the keys and the head's extras. */
export const MAX_AGENT_BYTES = 300_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const now = () => new Date().toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class VersionNotFound extends ApiError {
  constructor(agent: string, version: string | number) {
    super(404, "not_found_error", `Agent '${agent}' has no version '${version}'`, "agent_version_not_found", "version");
  }
}

export class AliasNotFound extends ApiError {
  constructor(agent: string, alias: string) {
    super(404, "not_found_error", `Agent '${agent}' has no alias '${alias}'`, "agent_alias_not_found", "alias");
  }
}

function checkSize(config: AgentConfig): void {
  const bytes = Buffer.byteLength(JSON.stringify(config));
  if (bytes > MAX_AGENT_BYTES) throw new PayloadTooLarge(`The agent's fields take ${bytes} bytes, more than the ${MAX_AGENT_BYTES} an agent may hold`, "agent_too_large");
}

/** The agent as the caller may see it: its workspace's, by a well-formed id; anything else is not found. */
export async function head(caller: Pick<Caller, "workspace">, id: string): Promise<AgentHead> {
  const found = UUID.test(id) ? await agentStore.get(caller.workspace, id.toLowerCase()) : undefined;
  if (!found) throw new NotFound("agent", id);
  return found;
}

const range = (latest: number) => Array.from({ length: latest }, (_, i) => i + 1);

/** Unset arguments read as the completion API's defaults, as Mistral answers them. */
function completionArgsOut(args: CompletionArgs) {
  return {
    stop: null,
    presence_penalty: null,
    frequency_penalty: null,
    temperature: null,
    top_p: null,
    max_tokens: null,
    random_seed: null,
    prediction: null,
    reasoning_effort: null,
    ...args,
    response_format: args.response_format ?? { type: "text" },
    tool_choice: args.tool_choice ?? "auto",
  };
}

/** The wire Agent: `head` gives what belongs to the agent, `config` the fields of the version shown. */
function toAgentOut(agent: AgentHead, config: AgentConfig & { version: number }, updatedAt: string): AgentOut {
  return {
    id: agent.id,
    object: "agent",
    name: config.name,
    model: config.model,
    instructions: config.instructions,
    description: config.description,
    tools: config.tools,
    completion_args: completionArgsOut(config.completion_args),
    guardrails: config.guardrails,
    handoffs: config.handoffs,
    metadata: config.metadata,
    version: config.version,
    versions: range(agent.latestVersion),
    created_at: agent.createdAt,
    updated_at: updatedAt,
    deployment_chat: config.deployment_chat,
    source: agent.source,
    owner_id: agent.ownerId,
    version_message: config.version_message,
  };
}

export const current = (agent: AgentHead): AgentOut => toAgentOut(agent, agent, agent.updatedAt);
/** The agent as of one of its versions; `updated_at` is when that version was written. */
export const asOf = (agent: AgentHead, version: AgentVersion): AgentOut => toAgentOut(agent, version, version.createdAt);

export async function create(caller: Caller, request: CreateAgentRequest): Promise<AgentOut> {
  await requireBodyModel(caller, request.model, "chat");
  const config: AgentConfig = {
    name: request.name,
    model: request.model,
    instructions: request.instructions ?? null,
    description: request.description ?? null,
    tools: request.tools ?? [],
    completion_args: request.completion_args ?? {},
    guardrails: request.guardrails ?? null,
    handoffs: request.handoffs ?? null,
    metadata: request.metadata ?? null,
    deployment_chat: false,
    version_message: request.version_message ?? null,
  };
  checkSize(config);
  const at = now();
  const agent: AgentHead = {
    ...config,
    id: randomUUID(),
    workspace: caller.workspace,
    organization: caller.organization,
    ownerId: caller.principal,
    source: "api",
    createdAt: at,
    updatedAt: at,
    version: 1,
    latestVersion: 1,
  };
  await agentStore.create(agent, { ...config, id: agent.id, version: 1, createdAt: at });
  return current(agent);
}

/** A version number or an alias, as `agent_version` and the version path parameter take them. */
async function versionNumber(caller: Pick<Caller, "workspace">, agent: AgentHead, ref: string): Promise<number> {
  if (/^\d+$/.test(ref)) return Number(ref);
  const alias = await agentStore.getAlias(caller.workspace, agent.id, ref);
  if (!alias) throw new VersionNotFound(agent.id, ref);
  return alias.version;
}

/** One version of the agent, by number or alias (conversations run an agent at a named version too). */
export async function versionOf(caller: Pick<Caller, "workspace">, agent: AgentHead, ref: string): Promise<AgentVersion> {
  const number = await versionNumber(caller, agent, ref);
  const version = number >= 1 && number <= agent.latestVersion ? await agentStore.getVersion(caller.workspace, agent.id, number) : undefined;
  if (!version) throw new VersionNotFound(agent.id, ref);
  return version;
}

export async function get(caller: Caller, id: string, agentVersion?: string): Promise<AgentOut> {
  const agent = await head(caller, id);
  return agentVersion === undefined ? current(agent) : asOf(agent, await versionOf(caller, agent, agentVersion));
}

export async function getVersion(caller: Caller, id: string, version: string): Promise<AgentOut> {
  const agent = await head(caller, id);
  return asOf(agent, await versionOf(caller, agent, version));
}

/** The current fields with the PATCH applied: a field given replaces, one left out stays. */
function patched(agent: AgentHead, request: UpdateAgentRequest): AgentConfig {
  return {
    name: request.name ?? agent.name,
    model: request.model ?? agent.model,
    instructions: request.instructions !== undefined ? request.instructions : agent.instructions,
    description: request.description !== undefined ? request.description : agent.description,
    tools: request.tools ?? agent.tools,
    completion_args: request.completion_args ?? agent.completion_args,
    guardrails: request.guardrails !== undefined ? request.guardrails : agent.guardrails,
    handoffs: request.handoffs !== undefined ? request.handoffs : agent.handoffs,
    metadata: request.metadata !== undefined ? request.metadata : agent.metadata,
    deployment_chat: request.deployment_chat ?? agent.deployment_chat,
    // A message describes its own version; it is not inherited.
    version_message: request.version_message ?? null,
  };
}

/**
 * PATCH: a new version, built on the current one, becomes current. Read the head, write head and version
 * in one transaction conditioned on the head being unchanged; a writer that loses the race reads again
 * and builds on the winner's version, so concurrent PATCHes get distinct consecutive numbers and none is lost.
 */
export async function update(caller: Caller, id: string, request: UpdateAgentRequest): Promise<AgentOut> {
  if (request.model) await requireBodyModel(caller, request.model, "chat");
  for (let attempt = 0; attempt < MAX_VERSION_ATTEMPTS; attempt += 1) {
    if (attempt) await sleep(Math.random() * Math.min(200, 5 * 2 ** Math.min(attempt, 6)));
    const agent = await head(caller, id);
    const config = patched(agent, request);
    checkSize(config);
    const at = now();
    const next: AgentVersion = { ...config, id: agent.id, version: agent.latestVersion + 1, createdAt: at };
    if (await agentStore.addVersion(agent, next, at)) {
      return current({ ...agent, ...config, version: next.version, latestVersion: next.version, updatedAt: at });
    }
  }
  throw new Conflict(`Agent '${id}' is being changed by other requests; try again`, "agent_version_conflict");
}

/** PATCH .../version: an existing version becomes current (a conditional update of the head). */
export async function switchVersion(caller: Caller, id: string, version: number): Promise<AgentOut> {
  const agent = await head(caller, id);
  const target = version <= agent.latestVersion ? await agentStore.getVersion(caller.workspace, agent.id, version) : undefined;
  if (!target) throw new VersionNotFound(agent.id, version);
  const updated = await agentStore.setCurrent(caller.workspace, target, now());
  if (!updated) throw new NotFound("agent", id);
  return current(updated);
}

/** Newest first; versions are 1..latest, so a page is one key range. */
export async function listVersions(caller: Caller, id: string, page: number, pageSize: number): Promise<AgentOut[]> {
  const agent = await head(caller, id);
  const from = agent.latestVersion - page * pageSize;
  if (from < 1) return [];
  const to = Math.max(1, from - pageSize + 1);
  const versions = await agentStore.versionsBetween(caller.workspace, agent.id, from, to);
  return versions.map((v) => asOf(agent, v));
}

export async function remove(caller: Caller, id: string): Promise<void> {
  const agent = await head(caller, id);
  if (!(await agentStore.remove(caller.workspace, agent.id))) throw new NotFound("agent", id);
}

function headFilter(query: AgentFilter): HeadFilter {
  return {
    deploymentChat: query.deployment_chat,
    sources: query.sources,
    name: query.name,
    search: query.search,
    id: query.id,
    metadata: query.metadata,
  };
}

/** GET /v1/agents (deprecated): page numbers, newest first; skipping costs reads, as for files. */
export async function list(caller: Caller, query: AgentListQuery): Promise<AgentOut[]> {
  const heads = await agentStore.listHeadsAt(caller.workspace, headFilter(query), { offset: query.page * query.page_size, limit: query.page_size, newestFirst: true });
  return heads.map(current);
}

/** GET /v1/agents/pages: newest first, cursor-paged; the caller sees its workspace's agents. */
export async function listPage(caller: Caller, query: AgentPagesQuery) {
  const page = await agentStore.listHeads(caller.workspace, headFilter(query), { limit: query.page_size, pageToken: query.page_token, newestFirst: true });
  return { object: "list" as const, data: page.heads.map(current), next_page_token: page.nextPageToken };
}

// ---- aliases (the OpenAPI's /v1/agents/{agent_id}/aliases; an extension of our spec) ----

export const toAliasOut = (alias: AgentAlias) => ({ alias: alias.alias, version: alias.version, created_at: alias.createdAt, updated_at: alias.updatedAt });

export async function putAlias(caller: Caller, id: string, alias: string, version: number) {
  const agent = await head(caller, id);
  if (version > agent.latestVersion) throw new VersionNotFound(agent.id, version);
  const saved = await agentStore.putAlias(caller.workspace, agent.id, alias, version, now());
  if (!saved) {
    // The transaction's condition failed: the agent went away meanwhile (versions are never removed alone).
    throw new NotFound("agent", id);
  }
  return toAliasOut(saved);
}

export async function listAliases(caller: Caller, id: string) {
  const agent = await head(caller, id);
  return (await agentStore.listAliases(caller.workspace, agent.id)).map(toAliasOut);
}

export async function removeAlias(caller: Caller, id: string, alias: string): Promise<void> {
  const agent = await head(caller, id);
  if (!(await agentStore.removeAlias(caller.workspace, agent.id, alias))) throw new AliasNotFound(agent.id, alias);
}

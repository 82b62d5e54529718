/**
 * Connectors (beta): create, list, get, update, delete, sharing and activation (docs/connectors.md,
 * decision 30). A connector is read by (organization, id) and shown only to callers `visibleTo` allows;
 * any other id answers 404.
 */
import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import {
  applicable,
  consumerOf,
  consumerType,
  keptOnUnshare,
  ownerOf,
  UUID_PATTERN,
  visibleTo,
  type AuthMethodType,
  type ConnectionRecord,
  type ConnectorRecord,
  type ConnectorSecrets,
  type ConsumerScope,
} from "../../domain/connectors/records.js";
import { mayActOnBehalfOf, mayChange, mayCreateWith, sharingMove, type SharingMove } from "../../domain/connectors/sharing.js";
import { ApiError, BadRequest, Conflict } from "../../domain/errors.js";
import type { ConnectorOut, CreateConnectorBody, ListConnectorsQuery, UpdateConnectorBody } from "../../schemas/connector.js";
import { connectorsStore, createdKeyOf, type StoredConnector } from "../../store/connectors/index.js";
import { open, seal } from "../../store/connectors/secrets.js";
import { encodeCursor, readCursor } from "../../store/cursor.js";
import { changed } from "../../domain/audit.js";
import { recordAudit } from "../audit/record.js";
import * as z from "zod";

const SUPPORTED_METHODS: readonly AuthMethodType[] = ["oauth2", "bearer", "none"];
/** Attempts at a conditional change that a concurrent one keeps beating. */
const ATTEMPTS = 5;

class ConnectorNotFound extends ApiError {
  constructor(ref: string) {
    super(404, "not_found_error", `No connector '${ref}' exists that this key may see`, "connector_not_found");
  }
}

export const secretContext = (c: Pick<ConnectorRecord, "organization" | "id">) => ({ organization: c.organization, connector: c.id });

/** The connector a path names, by id or by name, if the caller may see it; 404 otherwise. */
export async function found(caller: Caller, ref: string): Promise<StoredConnector> {
  const id = UUID_PATTERN.test(ref) ? ref.toLowerCase() : await connectorsStore.idByName(caller.organization, ref);
  const connector = id && (await connectorsStore.get(caller.organization, id));
  if (!connector || !visibleTo(connector, caller)) throw new ConnectorNotFound(ref);
  return connector;
}

function authMethodsOf(body: { auth_methods?: { method_type: string }[] | null; auth_data?: unknown; oauth2_server_metadata?: unknown; oauth2_server_metadata_url?: string | null }): AuthMethodType[] {
  const named = (body.auth_methods ?? []).map((m) => m.method_type);
  for (const [i, method] of named.entries()) {
    if (!SUPPORTED_METHODS.includes(method as AuthMethodType)) {
      throw new BadRequest(`Authentication method '${method}' (auth_methods[${i}]) is not supported here: oauth2, bearer or none`, "unsupported_auth_method", "auth_methods");
    }
  }
  const methods = new Set(named as AuthMethodType[]);
  if (body.auth_data || body.oauth2_server_metadata || body.oauth2_server_metadata_url) methods.add("oauth2");
  if (!methods.size) methods.add("none");
  return [...methods];
}

export async function create(caller: Caller, body: CreateConnectorBody): Promise<ConnectorOut> {
  mayCreateWith(body.visibility, caller);
  const authMethods = authMethodsOf(body);
  if (authMethods.includes("oauth2") && !body.auth_data?.client_id) {
    throw new BadRequest("An oauth2 connector needs auth_data.client_id (the OAuth client registered with its authorization server)", "oauth_client_missing", "auth_data");
  }
  const id = randomUUID();
  const now = new Date().toISOString();
  const headers: Record<string, string> = { ...Object.fromEntries(Object.entries(body.headers ?? {}).map(([k, v]) => [k, String(v)])), ...Object.fromEntries(Object.entries(body.global_headers).map(([k, v]) => [k, v.value])) };
  const secrets: ConnectorSecrets = { headers, ...(body.auth_data?.client_secret ? { clientSecret: body.auth_data.client_secret } : {}) };
  const record: ConnectorRecord = {
    id,
    organization: caller.organization,
    workspace: caller.workspace,
    creatorId: caller.principal,
    name: body.name,
    title: body.title ?? null,
    description: body.description,
    iconUrl: body.icon_url ?? null,
    server: body.server,
    protocol: body.protocol,
    visibility: body.visibility,
    systemPrompt: body.system_prompt ?? null,
    authMethods,
    oauthClientId: body.auth_data?.client_id ?? null,
    oauthMetadata: (body.oauth2_server_metadata as ConnectorRecord["oauthMetadata"]) ?? null,
    oauthMetadataUrl: body.oauth2_server_metadata_url ?? null,
    headerNames: Object.keys(headers),
    secrets: Object.keys(headers).length || secrets.clientSecret ? await seal(JSON.stringify(secrets), secretContext({ organization: caller.organization, id })) : null,
    createdAt: now,
    modifiedAt: now,
  };
  if (!(await connectorsStore.create(record))) throw new Conflict(`A connector named '${body.name}' already exists in this organization`, "connector_name_taken");
  await recordAudit({ organization: record.organization, workspace: record.workspace, operation: "connector.create", targets: connectorTargets(record), after: connectorValues(record) });
  return toOut(record, [], caller);
}

/** The secret headers and OAuth client secret of a connector (for the calls it makes). */
export async function secretsOf(connector: ConnectorRecord): Promise<ConnectorSecrets> {
  return connector.secrets ? (JSON.parse(await open(connector.secrets, secretContext(connector))) as ConnectorSecrets) : { headers: {} };
}

const Position = z.object({ k: z.string(), i: z.string() });

/**
 * Keyset pages of the connectors the caller may see, oldest first. The organization's connectors are read
 * in index order and filtered by visibility (and `active`), so a page may take several reads; the cursor is
 * where the last one shown sat in the index.
 */
export async function list(caller: Caller, query: ListConnectorsQuery): Promise<{ items: ConnectorOut[]; pagination: { next_cursor: string | null; page_size: number } }> {
  const from = query.cursor !== undefined ? readCursor(query.cursor, Position, "cursor") : undefined;
  let position = from && { createdKey: from.k, id: from.i };
  // One more than a page tells whether another page follows.
  const shown: { connector: StoredConnector; connections: ConnectionRecord[] }[] = [];
  reading: for (;;) {
    const page = await connectorsStore.page(caller.organization, position, Math.min(1000, query.page_size + 1));
    for (const connector of page.items) {
      position = { createdKey: createdKeyOf(connector), id: connector.id };
      if (!visibleTo(connector, caller)) continue;
      const connections = await connectorsStore.connections(connector.id);
      if (query.active !== undefined && isActive(connections, caller) !== query.active) continue;
      shown.push({ connector, connections });
      if (shown.length > query.page_size) break reading;
    }
    if (!page.more) break;
  }
  const more = shown.length > query.page_size;
  const page = shown.slice(0, query.page_size);
  const last = page[page.length - 1]?.connector;
  const items = await Promise.all(page.map(({ connector, connections }) => toOut(connector, connections, caller)));
  return { items, pagination: { next_cursor: more && last ? encodeCursor({ k: createdKeyOf(last), i: last.id }) : null, page_size: query.page_size } };
}

const isActive = (connections: ConnectionRecord[], caller: Caller) => applicable(connections.filter((c) => c.kind === "activation"), caller).length > 0;

export async function get(caller: Caller, ref: string): Promise<ConnectorOut> {
  const connector = await found(caller, ref);
  return toOut(connector, await connectorsStore.connections(connector.id), caller);
}

export async function update(caller: Caller, id: string, body: UpdateConnectorBody): Promise<ConnectorOut> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const current = await found(caller, id);
    mayChange(current, caller);
    const authMethods = body.auth_methods ? authMethodsOf({ auth_methods: body.auth_methods }) : current.authMethods;
    if (authMethods.includes("oauth2") && !current.oauthClientId) {
      throw new BadRequest("This connector has no OAuth client (auth_data) to use oauth2 with", "oauth_client_missing", "auth_methods");
    }
    const next: ConnectorRecord = {
      ...stripRevision(current),
      name: body.name ?? current.name,
      title: body.title !== undefined ? body.title : current.title,
      description: body.description ?? current.description,
      iconUrl: body.icon_url !== undefined ? body.icon_url : current.iconUrl,
      server: body.server ?? current.server,
      protocol: body.protocol ?? current.protocol,
      systemPrompt: body.system_prompt !== undefined ? body.system_prompt : current.systemPrompt,
      authMethods,
      modifiedAt: new Date().toISOString(),
    };
    if (await connectorsStore.update(current, next)) {
      await recordAudit({ organization: next.organization, workspace: next.workspace, operation: "connector.update", targets: connectorTargets(next), ...changed(connectorValues(current), connectorValues(next)) });
      return toOut(next, await connectorsStore.connections(next.id), caller);
    }
    if (next.name !== current.name && (await connectorsStore.idByName(caller.organization, next.name))) {
      throw new Conflict(`A connector named '${next.name}' already exists in this organization`, "connector_name_taken");
    }
  }
  throw new Conflict("The connector changed while it was being updated; try again", "connector_changed");
}

function stripRevision(c: StoredConnector): ConnectorRecord {
  const { revision: _revision, ...record } = c;
  return record;
}

export async function remove(caller: Caller, id: string): Promise<{ message: string }> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const current = await found(caller, id);
    mayChange(current, caller);
    if (await connectorsStore.delete(current)) {
      await recordAudit({ organization: current.organization, workspace: current.workspace, operation: "connector.delete", targets: connectorTargets(current), before: connectorValues(current) });
      return { message: `Connector '${current.name}' deleted` };
    }
  }
  throw new Conflict("The connector changed while it was being deleted; try again", "connector_changed");
}

/** One move of the spec's state table; unsharing removes every connection but the creator's own. */
export async function share(caller: Caller, id: string, move: SharingMove): Promise<{ message: string }> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const current = await found(caller, id);
    const outcome = sharingMove(move, current, caller);
    const operation = move.startsWith("unshare") ? "connector.unshare" : "connector.share";
    const event = { organization: current.organization, workspace: current.workspace, operation, targets: connectorTargets(current), before: { visibility: current.visibility } } as const;
    // A move that changes nothing is recorded too: an admin asked for it, and the event says nothing changed.
    if (outcome.unchanged) {
      await recordAudit({ ...event, after: { visibility: current.visibility } });
      return { message: outcome.message };
    }
    if (!(await connectorsStore.setVisibility(current, outcome.to, new Date().toISOString()))) continue;
    let removed = 0;
    if (outcome.removesConnections) {
      const connections = (await connectorsStore.connections(current.id)).filter((c) => !keptOnUnshare(c, current));
      await connectorsStore.deleteConnections(connections);
      removed = connections.length;
    }
    await recordAudit({ ...event, after: { visibility: outcome.to, ...(outcome.removesConnections ? { connections_removed: removed } : {}) } });
    return { message: outcome.message };
  }
  throw new Conflict("The connector changed while it was being shared; try again", "connector_changed");
}

export async function activate(caller: Caller, id: string, scope: ConsumerScope, active: boolean): Promise<{ message: string }> {
  const connector = await found(caller, id);
  mayActOnBehalfOf(scope, caller);
  const consumer = consumerOf(scope, caller);
  const now = new Date().toISOString();
  const event = { organization: connector.organization, workspace: caller.workspace, targets: connectorTargets(connector), after: { scope, consumer } } as const;
  if (active) {
    await connectorsStore.putConnection({ connectorId: connector.id, kind: "activation", scope, consumer, createdAt: now, modifiedAt: now });
    await recordAudit({ ...event, operation: "connector.activate" });
    return { message: `Connector '${connector.name}' activated for the ${scope}` };
  }
  await connectorsStore.deleteConnection({ connectorId: connector.id, kind: "activation", scope, consumer });
  await recordAudit({ ...event, operation: "connector.deactivate" });
  return { message: `Connector '${connector.name}' deactivated for the ${scope}` };
}

export async function authenticationMethods(caller: Caller, ref: string): Promise<ConnectorOut["supported_auth_methods"]> {
  const connector = await found(caller, ref);
  return authMethodsOut(connector, await connectorsStore.connections(connector.id), caller);
}

function authMethodsOut(connector: ConnectorRecord, connections: ConnectionRecord[], caller: Caller): ConnectorOut["supported_auth_methods"] {
  const credentials = applicable(connections.filter((c) => c.kind === "credentials"), caller);
  return connector.authMethods.map((method) => ({
    method_type: method,
    headers: method === "bearer" ? [{ name: "Authorization", is_required: true, is_secret: true }] : null,
    global_headers: {},
    has_default_credentials: method === "none" || credentials.some((c) => c.authType === method && c.isDefault),
    oauth2_server_metadata: method === "oauth2" && connector.oauthMetadata ? connector.oauthMetadata : null,
  }));
}

export const credentialsOut = (c: ConnectionRecord) => ({
  name: c.name!,
  title: c.title ?? null,
  authentication_type: c.authType!,
  scope: consumerType(c.scope),
  status: c.expiresAt && c.expiresAt * 1000 < Date.now() ? { status_type: "invalid" as const, last_checked_at: c.modifiedAt, error_message: "expired" } : { status_type: "valid" as const, last_checked_at: c.modifiedAt },
  is_default: c.isDefault ?? false,
  creator_id: null,
});

export async function toOut(connector: ConnectorRecord, connections: ConnectionRecord[], caller: Caller): Promise<ConnectorOut> {
  const { ownerType, ownerId } = ownerOf(connector);
  const credentials = applicable(connections.filter((c) => c.kind === "credentials"), caller);
  return {
    id: connector.id,
    name: connector.name,
    title: connector.title,
    description: connector.description,
    created_at: connector.createdAt,
    modified_at: connector.modifiedAt,
    server: connector.server,
    protocol: connector.protocol,
    supports_mcp: connector.protocol === "mcp",
    icon_url: connector.iconUrl,
    server_card: null,
    owner_id: ownerId,
    owner_type: ownerType,
    visibility: connector.visibility,
    creator_id: connector.creatorId,
    locale: null,
    system_prompt: connector.systemPrompt,
    supported_auth_methods: authMethodsOut(connector, connections, caller),
    connection_preferences: null,
    connection_credentials: credentials.map(credentialsOut),
    active: isActive(connections, caller),
    private_tool_execution: false,
    mistral: false,
    is_authenticated: connector.authMethods.includes("none") || credentials.length > 0,
    tools: null,
    system_prompt_route: null,
    connection_config: null,
    execution_env: null,
  };
}

/** The audit log's targets of a connector change. */
export const connectorTargets = (c: Pick<ConnectorRecord, "id">) => [{ type: "connector", id: c.id }];

/** What the audit log keeps of a connector: its settings and the names of its secret headers, never their values. */
const connectorValues = (c: ConnectorRecord) => ({
  name: c.name,
  title: c.title,
  description: c.description,
  server: c.server,
  protocol: c.protocol,
  visibility: c.visibility,
  auth_methods: c.authMethods,
  oauth_client_id: c.oauthClientId,
  header_names: c.headerNames,
});

/**
 * Credentials a consumer (user, workspace, organization) keeps for a connector, sealed with the
 * connectors' envelope key and never returned: lists show their name, type, scope and status only.
 */
import type { Caller } from "../../domain/caller.js";
import { applicable, consumerOf, type ConnectionRecord, type ConnectorRecord, type ConsumerScope, type StoredCredentials } from "../../domain/connectors/records.js";
import { mayActOnBehalfOf } from "../../domain/connectors/sharing.js";
import { ApiError, BadRequest, Conflict } from "../../domain/errors.js";
import type { CredentialsBody } from "../../schemas/connector.js";
import { connectorsStore } from "../../store/connectors/index.js";
import { open, seal } from "../../store/connectors/secrets.js";
import { recordAudit } from "../audit/record.js";
import { connectorTargets, credentialsOut, found } from "./connectors.js";

class CredentialsNotFound extends ApiError {
  constructor(name: string) {
    super(404, "not_found_error", `No credentials named '${name}' exist for this connector and consumer`, "credentials_not_found");
  }
}

/** What a credentials record is sealed to: its connector, scope, consumer and name. */
export const credentialsContext = (c: Pick<ConnectionRecord, "connectorId" | "scope" | "consumer" | "name">, organization: string) => ({
  organization,
  connector: c.connectorId,
  scope: c.scope,
  consumer: c.consumer,
  credentials: c.name ?? "",
});

const ownCredentials = (connections: ConnectionRecord[], scope: ConsumerScope, consumer: string) =>
  connections.filter((c) => c.kind === "credentials" && c.scope === scope && c.consumer === consumer);

/** Stores credentials (sealed) for the consumer; `is_default` takes the default from the consumer's others. */
export async function store(
  connector: ConnectorRecord,
  caller: Pick<Caller, "organization" | "workspace" | "principal">,
  scope: ConsumerScope,
  entry: { name: string; title: string | null; isDefault: boolean | null; authType: ConnectionRecord["authType"]; secret: StoredCredentials; expiresAt?: number | null },
  mode: "create" | "update" | "upsert",
): Promise<void> {
  const consumer = consumerOf(scope, caller);
  const own = ownCredentials(await connectorsStore.connections(connector.id), scope, consumer);
  const existing = own.find((c) => c.name === entry.name);
  if (mode === "create" && existing) throw new Conflict(`Credentials named '${entry.name}' already exist for this ${scope}`, "credentials_exist");
  if (mode === "update" && !existing) throw new CredentialsNotFound(entry.name);
  const now = new Date().toISOString();
  const isDefault = entry.isDefault ?? existing?.isDefault ?? own.length === 0;
  const record: ConnectionRecord = {
    connectorId: connector.id,
    kind: "credentials",
    scope,
    consumer,
    name: entry.name,
    title: entry.title ?? existing?.title ?? null,
    authType: entry.authType,
    isDefault,
    expiresAt: entry.expiresAt ?? null,
    createdAt: existing?.createdAt ?? now,
    modifiedAt: now,
  };
  record.secret = await seal(JSON.stringify(entry.secret), credentialsContext(record, connector.organization));
  await connectorsStore.putConnection(record);
  if (isDefault) {
    for (const other of own.filter((c) => c.name !== entry.name && c.isDefault)) await connectorsStore.putConnection({ ...other, isDefault: false });
  }
}

function secretOf(body: CredentialsBody): { authType: ConnectionRecord["authType"]; secret: StoredCredentials } {
  const given = body.credentials ?? {};
  if (given.oauth) {
    throw new BadRequest("OAuth credentials are obtained through the connector's auth_url, not sent here", "oauth_credentials_not_accepted", "credentials");
  }
  if (!given.bearer_token && !given.headers) {
    throw new BadRequest("Credentials need a bearer_token or headers", "credentials_missing", "credentials");
  }
  return { authType: given.bearer_token ? "bearer" : "none", secret: { ...(given.bearer_token ? { bearerToken: given.bearer_token } : {}), ...(given.headers ? { headers: given.headers } : {}) } };
}

export async function put(caller: Caller, ref: string, scope: ConsumerScope, body: CredentialsBody, mode: "create" | "update"): Promise<{ message: string }> {
  mayActOnBehalfOf(scope, caller);
  const connector = await found(caller, ref);
  const { authType, secret } = secretOf(body);
  await store(connector, caller, scope, { name: body.name, title: body.title ?? null, isDefault: body.is_default ?? null, authType, secret }, mode);
  await recordAudit({
    organization: connector.organization,
    workspace: caller.workspace,
    operation: "connector-credentials.store",
    targets: connectorTargets(connector),
    after: { scope, consumer: consumerOf(scope, caller), name: body.name, auth_type: authType, mode },
  });
  return { message: `Credentials '${body.name}' ${mode === "create" ? "created" : "updated"} for the ${scope}` };
}

export async function list(caller: Caller, ref: string, scope: ConsumerScope, query: { auth_type?: string; fetch_default: boolean }) {
  const connector = await found(caller, ref);
  const own = ownCredentials(await connectorsStore.connections(connector.id), scope, consumerOf(scope, caller));
  const shown = own.filter((c) => (!query.auth_type || c.authType === query.auth_type) && (!query.fetch_default || c.isDefault));
  return { credentials: shown.map(credentialsOut), connector_preset_credentials_for_auth: [] as string[] };
}

export async function remove(caller: Caller, ref: string, scope: ConsumerScope, name: string | undefined): Promise<{ message: string }> {
  mayActOnBehalfOf(scope, caller);
  const connector = await found(caller, ref);
  const own = ownCredentials(await connectorsStore.connections(connector.id), scope, consumerOf(scope, caller));
  const doomed = name === undefined ? own : own.filter((c) => c.name === name);
  if (name !== undefined && !doomed.length) throw new CredentialsNotFound(name);
  await connectorsStore.deleteConnections(doomed);
  await recordAudit({
    organization: connector.organization,
    workspace: caller.workspace,
    operation: "connector-credentials.remove",
    targets: connectorTargets(connector),
    before: { scope, consumer: consumerOf(scope, caller), names: doomed.map((c) => c.name ?? "") },
  });
  return { message: name === undefined ? `Deleted ${doomed.length} credentials of the ${scope}` : `Credentials '${name}' deleted` };
}

/** The credentials a call uses: the named ones, else the caller's default, its workspace's, its organization's. */
export async function credentialsFor(connector: ConnectorRecord, caller: Caller, name?: string): Promise<{ record: ConnectionRecord; secret: StoredCredentials } | undefined> {
  const candidates = applicable((await connectorsStore.connections(connector.id)).filter((c) => c.kind === "credentials"), caller);
  const record = name !== undefined ? candidates.find((c) => c.name === name) : (candidates.find((c) => c.isDefault) ?? candidates[0]);
  if (name !== undefined && !record) throw new CredentialsNotFound(name);
  if (!record?.secret) return undefined;
  return { record, secret: JSON.parse(await open(record.secret, credentialsContext(record, connector.organization))) as StoredCredentials };
}

import { randomUUID } from "node:crypto";
import type { Caller } from "../../shared/domain/caller.js";
import type { ConnectionRecord, ConnectorRecord } from "../../shared/domain/connectors/records.js";

/** A connector record as the service stores it, created by `creator` in its workspace. */
export function aConnectorRecord(creator: Pick<Caller, "organization" | "workspace" | "principal">, overrides: Partial<ConnectorRecord> = {}): ConnectorRecord {
  const now = "2026-01-02T03:04:05.000Z";
  return {
    id: randomUUID(),
    organization: creator.organization,
    workspace: creator.workspace,
    creatorId: creator.principal,
    name: `connector-${randomUUID().slice(0, 8)}`,
    title: null,
    description: "A connector",
    iconUrl: null,
    server: "http://127.0.0.1:9/mcp",
    protocol: "mcp",
    visibility: "private",
    systemPrompt: null,
    authMethods: ["none"],
    oauthClientId: null,
    oauthMetadata: null,
    oauthMetadataUrl: null,
    headerNames: [],
    secrets: null,
    createdAt: now,
    modifiedAt: now,
    ...overrides,
  };
}

/** The connectors-table items of a connector: the record (revision 1) and its name claim. */
export const aConnectorItems = (record: ConnectorRecord) => [
  { pk: `ORG#${record.organization}`, sk: `C#${record.id}`, createdKey: `${record.createdAt}#${record.id}`, ...record, revision: 1 },
  { pk: `ORG#${record.organization}`, sk: `NAME#${record.name}`, id: record.id },
];

/** A connection item (activation, or credentials without a secret unless given). */
export function aConnectionItem(connection: Omit<ConnectionRecord, "createdAt" | "modifiedAt"> & Partial<ConnectionRecord>) {
  const sk = connection.kind === "activation" ? `ACT#${connection.scope}#${connection.consumer}` : `CRED#${connection.scope}#${connection.consumer}#${connection.name}`;
  return { pk: `CONN#${connection.connectorId}`, sk, createdAt: "2026-01-02T03:04:05.000Z", modifiedAt: "2026-01-02T03:04:05.000Z", ...connection };
}

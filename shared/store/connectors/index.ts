/**
 * The connectors table (shared/store/tables.ts `connectorsTable`, decision 30): connectors and their name
 * pointers in one partition per organization, connections (activations, credentials) in one partition
 * per connector, pending OAuth authorizations under their state until their `ttl`.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import type { ConnectionRecord, ConnectorRecord, ConnectorVisibility, ConsumerScope, OAuthStateRecord } from "../../domain/connectors/records.js";
import { documents, ifConditionHolds, ifTransactionHolds } from "../client.js";
import { queryAll } from "../query.js";

const table = () => tableName("connectors");
type Item = Record<string, unknown>;

const orgPk = (organization: string) => `ORG#${organization}`;
const connectorKey = (organization: string, id: string) => ({ pk: orgPk(organization), sk: `C#${id}` });
const nameKey = (organization: string, name: string) => ({ pk: orgPk(organization), sk: `NAME#${name}` });
const connPk = (connectorId: string) => `CONN#${connectorId}`;
const connectionSk = (c: Pick<ConnectionRecord, "kind" | "scope" | "consumer" | "name">) =>
  c.kind === "activation" ? `ACT#${c.scope}#${c.consumer}` : `CRED#${c.scope}#${c.consumer}#${c.name}`;
export const createdKeyOf = (c: Pick<ConnectorRecord, "createdAt" | "id">) => `${c.createdAt}#${c.id}`;

/** A stored connector: the record and its revision (every change is conditional on it). */
export interface StoredConnector extends ConnectorRecord {
  revision: number;
}

function toConnector(item: Item): StoredConnector {
  const { pk: _pk, sk: _sk, createdKey: _c, ...rest } = item;
  return rest as unknown as StoredConnector;
}

function toConnection(item: Item): ConnectionRecord {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest as unknown as ConnectionRecord;
}

/** Where a page of a list ended: the index key of its last connector. */
export interface ConnectorPosition {
  createdKey: string;
  id: string;
}

export const connectorsStore = {
  /** Creates the connector and claims its name in the organization; false if the name is taken. */
  async create(record: ConnectorRecord): Promise<boolean> {
    const put = { Put: { TableName: table(), Item: { ...connectorKey(record.organization, record.id), createdKey: createdKeyOf(record), ...record, revision: 1 }, ConditionExpression: "attribute_not_exists(pk)" } };
    const claim = { Put: { TableName: table(), Item: { ...nameKey(record.organization, record.name), id: record.id }, ConditionExpression: "attribute_not_exists(pk)" } };
    return (await ifTransactionHolds(documents.send(new TransactWriteCommand({ TransactItems: [put, claim] })))) !== undefined;
  },

  async get(organization: string, id: string): Promise<StoredConnector | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: connectorKey(organization, id), ConsistentRead: true }));
    return out.Item && toConnector(out.Item);
  },

  async idByName(organization: string, name: string): Promise<string | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: nameKey(organization, name), ConsistentRead: true }));
    return out.Item?.id as string | undefined;
  },

  /**
   * Up to `limit` connectors of the organization after `after`, oldest first, and whether more follow.
   * Who may see which is the service's filter (shared/domain/connectors/records.ts visibleTo).
   */
  async page(organization: string, after: ConnectorPosition | undefined, limit: number): Promise<{ items: StoredConnector[]; more: boolean }> {
    const out = await documents.send(
      new QueryCommand({
        TableName: table(),
        IndexName: "byCreated",
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": orgPk(organization) },
        ExclusiveStartKey: after && { ...connectorKey(organization, after.id), createdKey: after.createdKey },
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    return { items: (out.Items ?? []).map(toConnector), more: out.LastEvaluatedKey !== undefined };
  },

  /** Replaces the changeable fields, moving the name claim when the name changes; false if it changed meanwhile or the new name is taken. */
  async update(current: StoredConnector, next: ConnectorRecord): Promise<boolean> {
    const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]["TransactItems"]> = [
      {
        Put: {
          TableName: table(),
          Item: { ...connectorKey(next.organization, next.id), createdKey: createdKeyOf(next), ...next, revision: current.revision + 1 },
          ConditionExpression: "revision = :revision",
          ExpressionAttributeValues: { ":revision": current.revision },
        },
      },
    ];
    if (next.name !== current.name) {
      items.push(
        { Put: { TableName: table(), Item: { ...nameKey(next.organization, next.name), id: next.id }, ConditionExpression: "attribute_not_exists(pk)" } },
        { Delete: { TableName: table(), Key: nameKey(current.organization, current.name), ConditionExpression: "id = :id", ExpressionAttributeValues: { ":id": current.id } } },
      );
    }
    return (await ifTransactionHolds(documents.send(new TransactWriteCommand({ TransactItems: items })))) !== undefined;
  },

  /** Moves the connector to `visibility` if it is still at `revision`; false otherwise. */
  async setVisibility(current: StoredConnector, visibility: ConnectorVisibility, now: string): Promise<boolean> {
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: connectorKey(current.organization, current.id),
          UpdateExpression: "SET visibility = :visibility, modifiedAt = :now ADD revision :one",
          ConditionExpression: "revision = :revision",
          ExpressionAttributeValues: { ":visibility": visibility, ":now": now, ":one": 1, ":revision": current.revision },
        }),
      ),
    );
    return out !== undefined;
  },

  /** Deletes the connector and its name claim (if it is still at `revision`), then its connections. */
  async delete(current: StoredConnector): Promise<boolean> {
    const removed = await ifTransactionHolds(
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { Delete: { TableName: table(), Key: connectorKey(current.organization, current.id), ConditionExpression: "revision = :revision", ExpressionAttributeValues: { ":revision": current.revision } } },
            { Delete: { TableName: table(), Key: nameKey(current.organization, current.name), ConditionExpression: "id = :id", ExpressionAttributeValues: { ":id": current.id } } },
          ],
        }),
      ),
    );
    if (removed === undefined) return false;
    await this.deleteConnections(await this.connections(current.id));
    return true;
  },

  async connections(connectorId: string): Promise<ConnectionRecord[]> {
    const items = await queryAll({ TableName: table(), KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": connPk(connectorId) }, ConsistentRead: true });
    return items.map(toConnection);
  },

  async putConnection(connection: ConnectionRecord): Promise<void> {
    await documents.send(new PutCommand({ TableName: table(), Item: { pk: connPk(connection.connectorId), sk: connectionSk(connection), ...connection } }));
  },

  /** Removes one connection; false if there was none. */
  async deleteConnection(connection: Pick<ConnectionRecord, "connectorId" | "kind" | "scope" | "consumer" | "name">): Promise<boolean> {
    const out = await documents.send(new DeleteCommand({ TableName: table(), Key: { pk: connPk(connection.connectorId), sk: connectionSk(connection) }, ReturnValues: "ALL_OLD" }));
    return out.Attributes !== undefined;
  },

  /** Removes these connections (a connector has a few per consumer: one delete each, in parallel). */
  async deleteConnections(connections: ConnectionRecord[]): Promise<void> {
    await Promise.all(connections.map((c) => documents.send(new DeleteCommand({ TableName: table(), Key: { pk: connPk(c.connectorId), sk: connectionSk(c) } }))));
  },

  async putOAuthState(state: OAuthStateRecord): Promise<void> {
    await documents.send(new PutCommand({ TableName: table(), Item: { pk: `OAUTH#${state.state}`, sk: "STATE", ...state, ttl: state.expiresAt }, ConditionExpression: "attribute_not_exists(pk)" }));
  },

  /** The pending authorization, as the consent page reads it (strongly consistent: it was just written). */
  async getOAuthState(state: string): Promise<OAuthStateRecord | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: { pk: `OAUTH#${state}`, sk: "STATE" }, ConsistentRead: true }));
    return out.Item ? stateOf(out.Item) : undefined;
  },

  /** Binds the authorization to one browser: only once (a second confirmation of the same state is refused). */
  async confirmOAuthState(state: string, nonceHash: string): Promise<OAuthStateRecord | undefined> {
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: { pk: `OAUTH#${state}`, sk: "STATE" },
          UpdateExpression: "SET nonceHash = :h",
          ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(nonceHash)",
          ExpressionAttributeValues: { ":h": nonceHash },
          ReturnValues: "ALL_NEW",
        }),
      ),
    );
    return out?.Attributes ? stateOf(out.Attributes) : undefined;
  },

  /**
   * The pending authorization, removed as it is read, when the browser's nonce matches: a state is good for one
   * callback, from the browser that confirmed it. `mismatch` leaves it in place (a stranger cannot spend it).
   */
  async takeOAuthState(state: string, nonceHash: string): Promise<{ taken: OAuthStateRecord } | "mismatch" | "unknown"> {
    const out = await ifConditionHolds(
      documents.send(
        new DeleteCommand({
          TableName: table(),
          Key: { pk: `OAUTH#${state}`, sk: "STATE" },
          ConditionExpression: "nonceHash = :h",
          ExpressionAttributeValues: { ":h": nonceHash },
          ReturnValues: "ALL_OLD",
        }),
      ),
    );
    if (out?.Attributes) return { taken: stateOf(out.Attributes) };
    return (await connectorsStore.getOAuthState(state)) ? "mismatch" : "unknown";
  },
};

const stateOf = (item: Record<string, unknown>): OAuthStateRecord => {
  const { pk: _pk, sk: _sk, ttl: _ttl, ...rest } = item;
  return rest as unknown as OAuthStateRecord;
};

export type ScopedConnection = Pick<ConnectionRecord, "scope" | "consumer">;
export type { ConsumerScope };

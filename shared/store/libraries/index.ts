/**
 * The libraries table (shared/store/tables.ts, decision 68). A library's partition `ORG#<org>#LIB#<id>` holds its head
 * (`LIBRARY`), its accesses (`ACCESS#<type>#<id>`) and its documents (documents.ts); each access has a grantee item
 * in the partition of whom it names (`ORG#<org>#GRANTEE#<type>#<id>`, sort `LIB#<id>`) carrying the library's
 * `createdKey`, so the libraries a caller may see are a Query of the `byCreated` index per entity it is.
 */
import { DeleteCommand, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import type { AccessRecord, AccessRole, Entity, LibraryRecord } from "../../domain/libraries/access.js";
import type { DocumentRecord } from "../../domain/libraries/documents.js";
import { batchGetAll, documents, ifConditionHolds, ifTransactionHolds } from "../client.js";
import { queryAll } from "../query.js";

const table = () => tableName("libraries");
const HEAD = "LIBRARY";
export const libraryPartition = (organization: string, id: string) => `ORG#${organization}#LIB#${id}`;
const granteePartition = (organization: string, entity: Entity) => `ORG#${organization}#GRANTEE#${entity.type}#${entity.id}`;
export const headKey = (organization: string, id: string) => ({ pk: libraryPartition(organization, id), sk: HEAD });
const accessKey = (organization: string, id: string, entity: Entity) => ({ pk: libraryPartition(organization, id), sk: `ACCESS#${entity.type}#${entity.id}` });
const granteeKey = (organization: string, id: string, entity: Entity) => ({ pk: granteePartition(organization, entity), sk: `LIB#${id}` });

/** Newest first on the byCreated index (read backwards); the id breaks ties within one millisecond. */
export const createdKeyOf = (library: Pick<LibraryRecord, "createdAt" | "id">) => `${String(Date.parse(library.createdAt)).padStart(15, "0")}#${library.id}`;

/** One entry of a grantee partition: a library shared with (or owned by) that entity, and the role it has. */
export interface GranteeEntry {
  libraryId: string;
  createdKey: string;
  role: AccessRole;
}

const entityOf = (access: Pick<AccessRecord, "entityType" | "entityId">): Entity => ({ type: access.entityType, id: access.entityId });

function headOf(item: Record<string, unknown>): LibraryRecord {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record as unknown as LibraryRecord;
}

function accessOf(item: Record<string, unknown>): AccessRecord {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record as unknown as AccessRecord;
}

const accessItem = (access: AccessRecord) => ({ ...accessKey(access.organization, access.libraryId, entityOf(access)), ...access });
const granteeItem = (access: AccessRecord, createdKey: string) => ({
  ...granteeKey(access.organization, access.libraryId, entityOf(access)),
  createdKey,
  libraryId: access.libraryId,
  role: access.role,
});

/** What one access change does to the head's counters (`userShares`, `workspaceShares`) and `orgRole`. */
function headChange(access: AccessRecord, delta: 1 | 0 | -1, updatedAt: string) {
  const names: Record<string, string> = { "#updatedAt": "updatedAt" };
  const values: Record<string, unknown> = { ":updatedAt": updatedAt };
  const set = ["#updatedAt = :updatedAt"];
  let add = "";
  if (access.entityType === "Org") {
    names["#orgRole"] = "orgRole";
    values[":orgRole"] = delta === -1 ? null : access.role;
    set.push("#orgRole = :orgRole");
  } else if (delta !== 0) {
    names["#count"] = access.entityType === "User" ? "userShares" : "workspaceShares";
    values[":delta"] = delta;
    add = " ADD #count :delta";
  }
  return { UpdateExpression: `SET ${set.join(", ")}${add}`, ExpressionAttributeNames: { ...names, "#pk": "pk" }, ExpressionAttributeValues: values, ConditionExpression: "attribute_exists(#pk)" };
}

export const librariesStore = {
  /** The head, the owner's access and its grantee entry appear together. */
  async create(library: LibraryRecord, owner: AccessRecord): Promise<void> {
    await documents.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table(), Item: { ...headKey(library.organization, library.id), ...library }, ConditionExpression: "attribute_not_exists(pk)" } },
          { Put: { TableName: table(), Item: accessItem(owner), ConditionExpression: "attribute_not_exists(pk)" } },
          { Put: { TableName: table(), Item: granteeItem(owner, createdKeyOf(library)) } },
        ],
      }),
    );
  },

  async get(organization: string, id: string): Promise<LibraryRecord | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: headKey(organization, id), ConsistentRead: true }));
    return out.Item ? headOf(out.Item) : undefined;
  },

  /** The heads of these libraries that still exist (in no particular order). */
  async heads(organization: string, ids: readonly string[]): Promise<LibraryRecord[]> {
    if (!ids.length) return [];
    const items = await batchGetAll(table(), ids.map((id) => headKey(organization, id)));
    return items.map(headOf);
  },

  /** Every access of a library, the owner's included (at most MAX_ACCESSES). */
  async accesses(organization: string, id: string): Promise<AccessRecord[]> {
    const items = await queryAll({
      TableName: table(),
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :access)",
      ExpressionAttributeValues: { ":pk": libraryPartition(organization, id), ":access": "ACCESS#" },
      ConsistentRead: true,
    });
    return items.map(accessOf);
  },

  /** Up to `limit` libraries an entity has an access to, newest first, created before `before` (a createdKey) when given. */
  async granted(organization: string, entity: Entity, before: string | undefined, limit: number): Promise<{ entries: GranteeEntry[]; more: boolean }> {
    const out = await documents.send(
      new QueryCommand({
        TableName: table(),
        IndexName: "byCreated",
        KeyConditionExpression: before === undefined ? "pk = :pk" : "pk = :pk AND createdKey < :before",
        ExpressionAttributeValues: { ":pk": granteePartition(organization, entity), ...(before === undefined ? {} : { ":before": before }) },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: limit,
      }),
    );
    const entries = (out.Items ?? []).map((item) => ({ libraryId: String(item.libraryId), createdKey: String(item.createdKey), role: item.role as AccessRole }));
    return { entries, more: out.LastEvaluatedKey !== undefined };
  },

  /** Sets name and description; undefined when the library is gone. */
  async update(organization: string, id: string, fields: Partial<Pick<LibraryRecord, "name" | "description">>, updatedAt: string): Promise<LibraryRecord | undefined> {
    const entries = Object.entries({ ...fields, updatedAt }).filter(([, value]) => value !== undefined);
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: headKey(organization, id),
          UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(", ")}`,
          ConditionExpression: "attribute_exists(#pk)",
          ExpressionAttributeNames: { "#pk": "pk", ...Object.fromEntries(entries.map(([name], i) => [`#f${i}`, name])) },
          ExpressionAttributeValues: Object.fromEntries(entries.map(([, value], i) => [`:v${i}`, value])),
          ReturnValues: "ALL_NEW",
        }),
      ),
    );
    return out?.Attributes ? headOf(out.Attributes) : undefined;
  },

  /**
   * Writes an access (new, or a changed role of `seen`) with its grantee entry and the head's counters, if the
   * library still exists and the access is still as it was read. False on a lost race: read again and retry.
   */
  async putAccess(library: LibraryRecord, access: AccessRecord, seen: AccessRecord | undefined): Promise<boolean> {
    const condition = seen
      ? { ConditionExpression: "#role = :seen", ExpressionAttributeNames: { "#role": "role" }, ExpressionAttributeValues: { ":seen": seen.role } }
      : { ConditionExpression: "attribute_not_exists(pk)" };
    const out = await ifTransactionHolds(
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { Update: { TableName: table(), Key: headKey(library.organization, library.id), ...headChange(access, seen ? 0 : 1, access.updatedAt) } },
            { Put: { TableName: table(), Item: accessItem(access), ...condition } },
            { Put: { TableName: table(), Item: granteeItem(access, createdKeyOf(library)) } },
          ],
        }),
      ),
    );
    return out !== undefined;
  },

  /** Removes an access as it was read, its grantee entry and its count on the head. False on a lost race. */
  async deleteAccess(library: LibraryRecord, access: AccessRecord, updatedAt: string): Promise<boolean> {
    const out = await ifTransactionHolds(
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { Update: { TableName: table(), Key: headKey(library.organization, library.id), ...headChange(access, -1, updatedAt) } },
            {
              Delete: {
                TableName: table(),
                Key: accessKey(access.organization, access.libraryId, entityOf(access)),
                ConditionExpression: "#role = :seen",
                ExpressionAttributeNames: { "#role": "role" },
                ExpressionAttributeValues: { ":seen": access.role },
              },
            },
            { Delete: { TableName: table(), Key: granteeKey(access.organization, access.libraryId, entityOf(access)) } },
          ],
        }),
      ),
    );
    return out !== undefined;
  },

  /** Notes that the library has an index in the vector store (its delete removes it); a deleted head stays deleted. */
  async markIndexed(organization: string, id: string): Promise<void> {
    await ifConditionHolds(
      documents.send(
        new UpdateCommand({ TableName: table(), Key: headKey(organization, id), UpdateExpression: "SET #indexed = :yes", ConditionExpression: "attribute_exists(pk)", ExpressionAttributeNames: { "#indexed": "indexed" }, ExpressionAttributeValues: { ":yes": true } }),
      ),
    );
  },

  /** Deletes the head, if it still exists: from then on the library is gone for every reader. False when it already was. */
  async deleteHead(organization: string, id: string): Promise<boolean> {
    const out = await ifConditionHolds(documents.send(new DeleteCommand({ TableName: table(), Key: headKey(organization, id), ConditionExpression: "attribute_exists(pk)" })));
    return out !== undefined;
  },

  /**
   * Removes what a deleted library leaves: the grantee entries of its accesses, then every item of its partition
   * (accesses, documents and their hash items). Answers the documents removed, whose objects and vectors the service
   * deletes. Safe to run again.
   */
  async purge(organization: string, id: string): Promise<DocumentRecord[]> {
    const keys: Record<string, unknown>[] = [];
    const removed: DocumentRecord[] = [];
    for (const item of await queryAll({ TableName: table(), KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": libraryPartition(organization, id) }, ConsistentRead: true })) {
      const sk = String(item.sk);
      if (sk.startsWith("ACCESS#")) keys.push(granteeKey(organization, id, entityOf(accessOf(item))));
      if (sk.startsWith("DOC#")) removed.push(headOf(item) as unknown as DocumentRecord);
      keys.push({ pk: item.pk, sk: item.sk });
    }
    await deleteAll(keys);
    return removed;
  },
};

/** BatchWriteItem deletes, 25 at a time, retrying what DynamoDB leaves unprocessed. */
async function deleteAll(keys: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 25) {
    let batch: Record<string, unknown>[] = keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; batch.length; attempt += 1) {
      if (attempt > 8) throw new Error("DynamoDB kept returning unprocessed library items");
      if (attempt) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
      const out = await documents.send(new BatchWriteCommand({ RequestItems: { [table()]: batch } }));
      batch = (out.UnprocessedItems?.[table()] ?? []) as Record<string, unknown>[];
    }
  }
}

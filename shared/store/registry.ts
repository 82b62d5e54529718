import { ConditionalCheckFailedException, TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type QueryCommandInput,
} from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import { decodePageToken, encodePageToken, type Sort } from "./registry-paging.js";
import type { RegistryHead, RegistryKindName, RegistryVersion } from "../domain/registry/records.js";
import type { ShareRelation, SharingScope, SortField } from "../schemas/registry.js";
import { batchGetAll, documents } from "./client.js";

const table = () => tableName("registry");

/** Heads: one partition per kind and workspace, the one the sort indexes list. */
export const headKey = (kind: RegistryKindName, workspace: string, id: string) => ({ pk: `${kind}#${workspace}`, sk: `HEAD#${id}` });
/** Versions: one partition per entry, outside the heads' item collection (and its 10 GB limit). */
export const versionKey = (kind: RegistryKindName, workspace: string, id: string, version: number) => ({
  pk: `${kind}#${workspace}#${id}`,
  sk: `V#${String(version).padStart(10, "0")}`,
});

/** The local index and its sort attribute for each sort field; the id ends every key, so ties never reorder. */
export const SORT_INDEX: Record<SortField, { index: string; attribute: string }> = {
  created_at: { index: "byCreated", attribute: "createdKey" },
  last_modified_at: { index: "byModified", attribute: "modifiedKey" },
  name: { index: "byName", attribute: "nameKey" },
  title: { index: "byTitle", attribute: "titleKey" },
};

/**
 * Below every character a name or title may hold (control characters are refused), so `ab` sorts
 * before `ab!`. Text sorts case-insensitively; a missing title sorts as empty, first in ascending order.
 */
const SEPARATOR = "\u0001";
/** Key attributes of a local index stop at 1 KB: 200 characters decide the order, the id the rest. */
const SORT_PREFIX_CHARS = 200;
export const textKey = (text: string | null, id: string) =>
  `${Array.from((text ?? "").toLowerCase()).slice(0, SORT_PREFIX_CHARS).join("")}${SEPARATOR}${id}`;
/** ISO 8601 from toISOString() has a fixed width, so text order is time order. */
export const timeKey = (iso: string, id: string) => `${iso}#${id}`;

export function headItem(head: RegistryHead): Record<string, unknown> {
  const { title, description, workspaceRelation, ...rest } = head;
  return {
    ...headKey(head.kind, head.workspace, head.id),
    ...rest,
    ...(title === null ? {} : { title }),
    ...(description === null ? {} : { description }),
    ...(workspaceRelation === null ? {} : { workspaceRelation }),
    createdKey: timeKey(head.createdAt, head.id),
    modifiedKey: timeKey(head.updatedAt, head.id),
    nameKey: textKey(head.name, head.id),
    titleKey: textKey(head.title, head.id),
  };
}

function headFrom(item: Record<string, unknown>): RegistryHead {
  const { pk: _pk, sk: _sk, createdKey: _c, modifiedKey: _m, nameKey: _n, titleKey: _t, ...head } = item;
  return { title: null, description: null, workspaceRelation: null, ...head } as RegistryHead;
}

export function versionItem(kind: RegistryKindName, workspace: string, version: RegistryVersion): Record<string, unknown> {
  const { notes, ...rest } = version;
  return { ...versionKey(kind, workspace, version.id, version.version), ...rest, ...(notes === null ? {} : { notes }) };
}

function versionFrom<D>(item: Record<string, unknown>): RegistryVersion<D> {
  const { pk: _pk, sk: _sk, ...version } = item;
  return { notes: null, ...version } as RegistryVersion<D>;
}

/** What a head write changes; undefined leaves a field alone, null removes it. */
export interface HeadChanges {
  title?: string | null;
  description?: string | null;
  sharingScope?: SharingScope;
  workspaceRelation?: ShareRelation | null;
  latestVersion?: number;
  latestHash?: string;
  setAliases?: Record<string, number>;
  removeAliases?: string[];
}

function applied(seen: RegistryHead, changes: HeadChanges, now: string): RegistryHead {
  const aliases = { ...seen.aliases, ...changes.setAliases };
  for (const alias of changes.removeAliases ?? []) delete aliases[alias];
  const pick = <K extends keyof HeadChanges & keyof RegistryHead>(key: K) => (changes[key] === undefined ? seen[key] : changes[key]) as RegistryHead[K];
  return {
    ...seen,
    title: pick("title"),
    description: pick("description"),
    sharingScope: pick("sharingScope"),
    workspaceRelation: pick("workspaceRelation"),
    latestVersion: pick("latestVersion"),
    latestHash: pick("latestHash"),
    aliases,
    updatedAt: now,
    revision: seen.revision + 1,
  };
}

/**
 * The head write for `changes`, conditioned on the revision the caller read: it fails if anyone wrote
 * the head since (or deleted it), and the caller reads again and retries. Returns the head as written.
 */
function headUpdate(seen: RegistryHead, changes: HeadChanges, now: string) {
  const next = applied(seen, changes, now);
  const names: Record<string, string> = { "#revision": "revision", "#updatedAt": "updatedAt", "#modifiedKey": "modifiedKey" };
  const values: Record<string, unknown> = { ":seen": seen.revision, ":revision": next.revision, ":updatedAt": now, ":modifiedKey": timeKey(now, seen.id) };
  const set = ["#revision = :revision", "#updatedAt = :updatedAt", "#modifiedKey = :modifiedKey"];
  const remove: string[] = [];
  const field = (name: string, value: unknown) => {
    if (value === undefined) return;
    names[`#${name}`] = name;
    if (value === null) {
      remove.push(`#${name}`);
    } else {
      values[`:${name}`] = value;
      set.push(`#${name} = :${name}`);
    }
  };
  field("title", changes.title);
  if (changes.title !== undefined) field("titleKey", textKey(changes.title, seen.id));
  field("description", changes.description);
  field("sharingScope", changes.sharingScope);
  field("workspaceRelation", changes.workspaceRelation);
  field("latestVersion", changes.latestVersion);
  field("latestHash", changes.latestHash);
  const setAliases = Object.entries(changes.setAliases ?? {});
  const removeAliases = changes.removeAliases ?? [];
  if (setAliases.length || removeAliases.length) names["#aliases"] = "aliases";
  setAliases.forEach(([alias, version], i) => {
    names[`#a${i}`] = alias;
    values[`:a${i}`] = version;
    set.push(`#aliases.#a${i} = :a${i}`);
  });
  removeAliases.forEach((alias, i) => {
    names[`#r${i}`] = alias;
    remove.push(`#aliases.#r${i}`);
  });
  return {
    next,
    update: {
      TableName: table(),
      Key: headKey(seen.kind, seen.workspace, seen.id),
      UpdateExpression: `SET ${set.join(", ")}${remove.length ? ` REMOVE ${remove.join(", ")}` : ""}`,
      ConditionExpression: "#revision = :seen",
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** A conditional write that lost to a concurrent one; anything else is a real failure. */
function lostRace(error: unknown): boolean {
  if (error instanceof ConditionalCheckFailedException) return true;
  if (error instanceof TransactionCanceledException) {
    return (error.CancellationReasons ?? []).some((r) => r.Code === "ConditionalCheckFailed" || r.Code === "TransactionConflict");
  }
  return error instanceof Error && error.name === "TransactionConflictException";
}

async function unlessLost<T>(write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (error) {
    if (lostRace(error)) return undefined;
    throw error;
  }
}

export interface HeadPageRequest {
  /** The caller: its private entries are listed with the workspace's shared ones. */
  principal: string;
  sort: Sort;
  /** The nextPageToken of the previous page; one that is not ours, or is of another sort order, is a 400. */
  pageToken?: string;
  limit: number;
  /** Only entries with this alias. */
  alias?: string;
}

export const registryStore = {
  /** A new entry: its head and version 1, together. */
  async create(head: RegistryHead, version: RegistryVersion): Promise<void> {
    await documents.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table(), Item: headItem(head), ConditionExpression: "attribute_not_exists(sk)" } },
          { Put: { TableName: table(), Item: versionItem(head.kind, head.workspace, version), ConditionExpression: "attribute_not_exists(sk)" } },
        ],
      }),
    );
  },

  async getHead(kind: RegistryKindName, workspace: string, id: string): Promise<RegistryHead | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: headKey(kind, workspace, id), ConsistentRead: true }));
    return out.Item ? headFrom(out.Item) : undefined;
  },

  async getVersion<D>(kind: RegistryKindName, workspace: string, id: string, version: number): Promise<RegistryVersion<D> | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: versionKey(kind, workspace, id, version), ConsistentRead: true }));
    return out.Item ? versionFrom<D>(out.Item) : undefined;
  },

  /** Versions of several entries (one page of a list), keyed `<id>#<version>`. */
  async getVersions<D>(kind: RegistryKindName, workspace: string, refs: { id: string; version: number }[]): Promise<Map<string, RegistryVersion<D>>> {
    if (!refs.length) return new Map();
    const items = await batchGetAll(table(), refs.map((ref) => versionKey(kind, workspace, ref.id, ref.version)));
    return new Map(items.map((item) => versionFrom<D>(item)).map((v) => [`${v.id}#${v.version}`, v]));
  },

  /** Every version of an entry, oldest first. */
  async listVersions<D>(kind: RegistryKindName, workspace: string, id: string): Promise<RegistryVersion<D>[]> {
    const items = await queryAll({
      TableName: table(),
      KeyConditionExpression: "#pk = :pk",
      ExpressionAttributeNames: { "#pk": "pk" },
      ExpressionAttributeValues: { ":pk": versionKey(kind, workspace, id, 0).pk },
      ConsistentRead: true,
    });
    return items.map((item) => versionFrom<D>(item));
  },

  /**
   * One page of heads the principal may see, on the sort's local index. DynamoDB applies Limit before
   * the visibility filter, so it reads on (further each time) until the page is full or the index ends.
   */
  async listHeads(kind: RegistryKindName, workspace: string, request: HeadPageRequest): Promise<{ heads: RegistryHead[]; nextPageToken?: string }> {
    const after = request.pageToken ? decodePageToken(request.pageToken, request.sort) : undefined;
    const { index, attribute } = SORT_INDEX[request.sort.field];
    const pk = headKey(kind, workspace, "").pk;
    const names: Record<string, string> = { "#pk": "pk", "#sharingScope": "sharingScope", "#owner": "owner" };
    const values: Record<string, unknown> = { ":pk": pk, ":workspace": "workspace", ":me": request.principal };
    let filter = "(#sharingScope = :workspace OR #owner = :me)";
    if (request.alias !== undefined) {
      names["#aliases"] = "aliases";
      names["#alias"] = request.alias;
      filter += " AND attribute_exists(#aliases.#alias)";
    }
    const heads: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined = after ? { pk, sk: after.sk, [attribute]: after.key } : undefined;
    // One more than the page: when it comes back, there is a next page for sure.
    let limit = request.limit + 1;
    let more = false;
    for (;;) {
      const out = await documents.send(
        new QueryCommand({
          TableName: table(),
          IndexName: index,
          KeyConditionExpression: "#pk = :pk",
          FilterExpression: filter,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ScanIndexForward: request.sort.direction === "asc",
          ExclusiveStartKey: startKey,
          Limit: limit,
        }),
      );
      const items = out.Items ?? [];
      const room = request.limit - heads.length;
      heads.push(...items.slice(0, room));
      if (items.length > room) {
        more = true;
        break;
      }
      if (!out.LastEvaluatedKey) break;
      if (heads.length === request.limit) {
        // The index goes on, so there is a next page, possibly one the filter leaves empty.
        more = true;
        break;
      }
      startKey = out.LastEvaluatedKey;
      limit = Math.min(1000, limit * 4);
    }
    const last = heads.at(-1);
    return {
      heads: heads.map(headFrom),
      nextPageToken: more && last ? encodePageToken(request.sort, { sk: last.sk as string, key: last[attribute] as string }) : undefined,
    };
  },

  /** Metadata or alias changes on the head alone; undefined when it lost a race. */
  async updateHead(seen: RegistryHead, changes: HeadChanges, now: string): Promise<RegistryHead | undefined> {
    const { next, update } = headUpdate(seen, changes, now);
    return unlessLost(async () => {
      await documents.send(new UpdateCommand(update));
      return next;
    });
  },

  /**
   * The next version: the head's latest version moves to it and so do `aliases`, and the version is
   * put, in one transaction conditioned on the head's revision. Undefined when it lost a race.
   */
  async addVersion(seen: RegistryHead, version: RegistryVersion, aliases: string[]): Promise<RegistryHead | undefined> {
    const { next, update } = headUpdate(
      seen,
      { latestVersion: version.version, latestHash: version.hash, setAliases: Object.fromEntries(aliases.map((alias) => [alias, version.version])) },
      version.createdAt,
    );
    return unlessLost(async () => {
      await documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { Update: update },
            { Put: { TableName: table(), Item: versionItem(seen.kind, seen.workspace, version), ConditionExpression: "attribute_not_exists(sk)" } },
          ],
        }),
      );
      return next;
    });
  },

  /** A version's notes and the head's aliases, together; undefined when it lost a race. */
  async updateVersionMetadata(
    seen: RegistryHead,
    version: number,
    fields: { notes?: string | null },
    changes: HeadChanges,
    now: string,
  ): Promise<RegistryHead | undefined> {
    const { next, update } = headUpdate(seen, changes, now);
    const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]["TransactItems"]> = [{ Update: update }];
    if (fields.notes !== undefined) {
      items.push({
        Update: {
          TableName: table(),
          Key: versionKey(seen.kind, seen.workspace, seen.id, version),
          UpdateExpression: fields.notes === null ? "REMOVE #notes" : "SET #notes = :notes",
          ConditionExpression: "attribute_exists(sk)",
          ExpressionAttributeNames: { "#notes": "notes" },
          ...(fields.notes === null ? {} : { ExpressionAttributeValues: { ":notes": fields.notes } }),
        },
      });
    }
    return unlessLost(async () => {
      await documents.send(new TransactWriteCommand({ TransactItems: items }));
      return next;
    });
  },

  /** Deletes the head if nobody wrote it since it was read; false when that race was lost. */
  async removeHead(seen: RegistryHead): Promise<boolean> {
    const removed = await unlessLost(async () => {
      await documents.send(
        new DeleteCommand({
          TableName: table(),
          Key: headKey(seen.kind, seen.workspace, seen.id),
          ConditionExpression: "#revision = :seen",
          ExpressionAttributeNames: { "#revision": "revision" },
          ExpressionAttributeValues: { ":seen": seen.revision },
        }),
      );
      return true;
    });
    return removed ?? false;
  },

  /** The versions of a deleted entry: nothing reads them once the head is gone. */
  async removeVersions(kind: RegistryKindName, workspace: string, id: string): Promise<void> {
    const keys = await queryAll({
      TableName: table(),
      KeyConditionExpression: "#pk = :pk",
      ProjectionExpression: "#pk, #sk",
      ExpressionAttributeNames: { "#pk": "pk", "#sk": "sk" },
      ExpressionAttributeValues: { ":pk": versionKey(kind, workspace, id, 0).pk },
    });
    for (let i = 0; i < keys.length; i += 25) {
      let batch: Record<string, unknown>[] = keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
      for (let attempt = 0; batch.length; attempt += 1) {
        if (attempt > 8) throw new Error("DynamoDB kept returning unprocessed registry deletes");
        if (attempt) await new Promise((r) => setTimeout(r, 25 * 2 ** attempt));
        const out = await documents.send(new BatchWriteCommand({ RequestItems: { [table()]: batch } }));
        batch = (out.UnprocessedItems?.[table()] ?? []) as Record<string, unknown>[];
      }
    }
  },
};

async function queryAll(input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await documents.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    items.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}

import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type QueryCommandInput,
} from "@aws-sdk/lib-dynamodb";
import * as z from "zod";
import { tableName } from "../config.js";
import { CONFIG_FIELDS, type AgentAlias, type AgentHead, type AgentVersion } from "../domain/agents.js";
import { documents, ifConditionHolds } from "./client.js";
import { encodeCursor, readCursor } from "./cursor.js";

/** One page of heads and the token of the next, if there is one. */
export interface HeadPage {
  heads: AgentHead[];
  nextPageToken: string | null;
}

/** One page of heads and where the next starts (the LastEvaluatedKey of its last item), if anywhere. */
interface KeyedPage {
  heads: AgentHead[];
  next: Record<string, unknown> | null;
}

export interface HeadFilter {
  deploymentChat?: boolean;
  sources?: string[];
  name?: string;
  search?: string;
  id?: string;
  metadata?: Record<string, unknown>;
}

const table = () => tableName("agents");
const workspacePartition = (workspace: string) => `WS#${workspace}`;
const agentPartition = (workspace: string, id: string) => `WS#${workspace}#AGENT#${id}`;
const headKey = (workspace: string, id: string) => ({ pk: workspacePartition(workspace), sk: `AGENT#${id}` });
const versionSk = (version: number) => `V#${String(version).padStart(10, "0")}`;
const versionKey = (workspace: string, id: string, version: number) => ({ pk: agentPartition(workspace, id), sk: versionSk(version) });
const aliasKey = (workspace: string, id: string, alias: string) => ({ pk: agentPartition(workspace, id), sk: `ALIAS#${alias}` });

/** Oldest first on the byCreated index; the id breaks ties within one millisecond. */
const createdKey = (createdAt: string, id: string) => `${String(Date.parse(createdAt)).padStart(15, "0")}#${id}`;

function headItem(head: AgentHead) {
  return { ...headKey(head.workspace, head.id), ...head, createdKey: createdKey(head.createdAt, head.id), nameLower: head.name.toLowerCase() };
}

function versionItem(workspace: string, version: AgentVersion) {
  return { ...versionKey(workspace, version.id, version.version), ...version };
}

function headOf(item: Record<string, unknown>): AgentHead {
  const { pk: _pk, sk: _sk, createdKey: _ck, nameLower: _nl, ...head } = item;
  return head as unknown as AgentHead;
}

function versionOf(item: Record<string, unknown>): AgentVersion {
  const { pk: _pk, sk: _sk, ...version } = item;
  return version as unknown as AgentVersion;
}

function aliasOf(item: Record<string, unknown>): AgentAlias {
  return { alias: String(item.alias), version: Number(item.version), createdAt: String(item.createdAt), updatedAt: String(item.updatedAt) };
}

/** SET clauses writing `fields` of `values` onto an item. */
function setClauses(values: Record<string, unknown>, fields: readonly string[]) {
  const names: Record<string, string> = {};
  const bound: Record<string, unknown> = {};
  const clauses = fields.map((field, i) => {
    names[`#f${i}`] = field;
    bound[`:f${i}`] = values[field] ?? null;
    return `#f${i} = :f${i}`;
  });
  return { clauses, names, values: bound };
}

/** True when a transaction failed on one of its conditions or on a concurrent transaction: try again. */
function isConflict(error: unknown): boolean {
  if (!(error instanceof TransactionCanceledException)) return false;
  return (error.CancellationReasons ?? []).some((r) => r.Code === "ConditionalCheckFailed" || r.Code === "TransactionConflict");
}

function filterExpression(filter: HeadFilter): Pick<QueryCommandInput, "FilterExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues"> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const clauses: string[] = [];
  if (filter.deploymentChat !== undefined) {
    names["#deployment_chat"] = "deployment_chat";
    values[":deployment_chat"] = filter.deploymentChat;
    clauses.push("#deployment_chat = :deployment_chat");
  }
  if (filter.sources?.length) {
    names["#source"] = "source";
    const placeholders = filter.sources.map((source, i) => {
      values[`:source${i}`] = source;
      return `:source${i}`;
    });
    clauses.push(`#source IN (${placeholders.join(", ")})`);
  }
  if (filter.name !== undefined) {
    names["#name"] = "name";
    values[":name"] = filter.name;
    clauses.push("#name = :name");
  }
  if (filter.id !== undefined) {
    names["#id"] = "id";
    values[":id"] = filter.id;
    clauses.push("#id = :id");
  }
  if (filter.search !== undefined) {
    names["#nameLower"] = "nameLower";
    names["#id"] = "id";
    values[":search"] = filter.search.toLowerCase();
    values[":searchRaw"] = filter.search;
    clauses.push("(contains(#nameLower, :search) OR contains(#id, :searchRaw))");
  }
  if (filter.metadata && Object.keys(filter.metadata).length) {
    names["#metadata"] = "metadata";
    Object.entries(filter.metadata).forEach(([key, value], i) => {
      names[`#m${i}`] = key;
      values[`:m${i}`] = value;
      clauses.push(`#metadata.#m${i} = :m${i}`);
    });
  }
  if (!clauses.length) return {};
  return { FilterExpression: clauses.join(" AND "), ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}

export const agentStore = {
  /** The head and version 1 appear together. */
  async create(head: AgentHead, first: AgentVersion): Promise<void> {
    await documents.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table(), Item: headItem(head), ConditionExpression: "attribute_not_exists(sk)" } },
          { Put: { TableName: table(), Item: versionItem(head.workspace, first), ConditionExpression: "attribute_not_exists(sk)" } },
        ],
      }),
    );
  },

  async get(workspace: string, id: string): Promise<AgentHead | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: headKey(workspace, id), ConsistentRead: true }));
    return out.Item ? headOf(out.Item) : undefined;
  },

  async getVersion(workspace: string, id: string, version: number): Promise<AgentVersion | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: versionKey(workspace, id, version), ConsistentRead: true }));
    return out.Item ? versionOf(out.Item) : undefined;
  },

  /**
   * Writes `next` as version `head.latestVersion + 1` and makes it current, if the head is still as it was
   * read (same current and latest version). Returns false on a lost race (another writer got there first,
   * or the agent was deleted): the caller reads again and retries.
   */
  async addVersion(head: AgentHead, next: AgentVersion, updatedAt: string): Promise<boolean> {
    const set = setClauses({ ...next, nameLower: next.name.toLowerCase() }, [...CONFIG_FIELDS, "nameLower"]);
    try {
      await documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: table(),
                Key: headKey(head.workspace, head.id),
                UpdateExpression: `SET ${[...set.clauses, "#version = :next", "#latest = :next", "#updatedAt = :updatedAt"].join(", ")}`,
                ConditionExpression: "#latest = :seenLatest AND #version = :seenCurrent",
                ExpressionAttributeNames: { ...set.names, "#version": "version", "#latest": "latestVersion", "#updatedAt": "updatedAt" },
                ExpressionAttributeValues: {
                  ...set.values,
                  ":next": next.version,
                  ":updatedAt": updatedAt,
                  ":seenLatest": head.latestVersion,
                  ":seenCurrent": head.version,
                },
              },
            },
            { Put: { TableName: table(), Item: versionItem(head.workspace, next), ConditionExpression: "attribute_not_exists(sk)" } },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (isConflict(error)) return false;
      throw error;
    }
  },

  /** Makes `version` current, copying its fields onto the head; undefined when the agent is gone. */
  async setCurrent(workspace: string, version: AgentVersion, updatedAt: string): Promise<AgentHead | undefined> {
    const set = setClauses({ ...version, nameLower: version.name.toLowerCase() }, [...CONFIG_FIELDS, "nameLower"]);
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: headKey(workspace, version.id),
          UpdateExpression: `SET ${[...set.clauses, "#version = :version", "#updatedAt = :updatedAt"].join(", ")}`,
          // The version exists as long as the agent does: versions are 1..latestVersion.
          ConditionExpression: "attribute_exists(sk) AND #latest >= :version",
          ExpressionAttributeNames: { ...set.names, "#version": "version", "#latest": "latestVersion", "#updatedAt": "updatedAt" },
          ExpressionAttributeValues: { ...set.values, ":version": version.version, ":updatedAt": updatedAt },
          ReturnValues: "ALL_NEW",
        }),
      ),
    );
    if (!out) return undefined;
    return headOf(out.Attributes!);
  },

  /** Versions `from` down to `to` (inclusive, from >= to), newest first: one key-range Query. */
  async versionsBetween(workspace: string, id: string, from: number, to: number): Promise<AgentVersion[]> {
    const versions: AgentVersion[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await documents.send(
        new QueryCommand({
          TableName: table(),
          KeyConditionExpression: "pk = :pk AND sk BETWEEN :low AND :high",
          ExpressionAttributeValues: { ":pk": agentPartition(workspace, id), ":low": versionSk(to), ":high": versionSk(from) },
          ScanIndexForward: false,
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      versions.push(...(out.Items ?? []).map(versionOf));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return versions;
  },

  /**
   * Removes the head first (from then on the agent answers 404 and no write can add to it: every write
   * is conditioned on the head), then its versions and aliases. Returns false when there was no agent.
   */
  async remove(workspace: string, id: string): Promise<boolean> {
    const removed = await ifConditionHolds(
      documents.send(new DeleteCommand({ TableName: table(), Key: headKey(workspace, id), ConditionExpression: "attribute_exists(sk)" })),
    );
    if (!removed) return false;
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await documents.send(
        new QueryCommand({
          TableName: table(),
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: { ":pk": agentPartition(workspace, id) },
          ProjectionExpression: "pk, sk",
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      await deleteAll((out.Items ?? []).map((item) => ({ pk: item.pk, sk: item.sk })));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return true;
  },

  /**
   * GET /v1/agents/pages: up to `limit` heads of the workspace matching `filter`, in creation order
   * (`newestFirst` or not), from the page `pageToken` names on. A token that is not one this workspace's
   * list issued is a 422, before any read.
   */
  async listHeads(workspace: string, filter: HeadFilter, options: { limit: number; pageToken?: string; newestFirst: boolean }): Promise<HeadPage> {
    const startKey = options.pageToken ? readCursor(options.pageToken, pageCursor(workspace), "page_token") : undefined;
    const page = await headPage(workspace, filter, { limit: options.limit, startKey, newestFirst: options.newestFirst });
    return { heads: page.heads, nextPageToken: page.next ? encodeCursor(page.next) : null };
  },

  /** GET /v1/agents (page numbers): skips `offset` matching heads, then up to `limit`; skipping costs reads. */
  async listHeadsAt(workspace: string, filter: HeadFilter, options: { offset: number; limit: number; newestFirst: boolean }): Promise<AgentHead[]> {
    let skip = options.offset;
    let startKey: Record<string, unknown> | undefined;
    while (skip > 0) {
      const skipped = await headPage(workspace, filter, { limit: Math.min(1000, skip), startKey, newestFirst: options.newestFirst });
      skip -= skipped.heads.length;
      if (!skipped.next) return [];
      startKey = skipped.next;
    }
    return (await headPage(workspace, filter, { limit: options.limit, startKey, newestFirst: options.newestFirst })).heads;
  },

  /** Points `alias` at `version` (creating or moving it), if the agent exists and has that version. */
  async putAlias(workspace: string, id: string, alias: string, version: number, now: string): Promise<AgentAlias | undefined> {
    try {
      await documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: table(),
                Key: headKey(workspace, id),
                ConditionExpression: "attribute_exists(sk) AND #latest >= :version",
                ExpressionAttributeNames: { "#latest": "latestVersion" },
                ExpressionAttributeValues: { ":version": version },
              },
            },
            {
              Update: {
                TableName: table(),
                Key: aliasKey(workspace, id, alias),
                UpdateExpression: "SET #alias = :alias, #version = :version, #updatedAt = :now, #createdAt = if_not_exists(#createdAt, :now)",
                ExpressionAttributeNames: { "#alias": "alias", "#version": "version", "#updatedAt": "updatedAt", "#createdAt": "createdAt" },
                ExpressionAttributeValues: { ":alias": alias, ":version": version, ":now": now },
              },
            },
          ],
        }),
      );
    } catch (error) {
      if (isConflict(error)) return undefined;
      throw error;
    }
    return this.getAlias(workspace, id, alias);
  },

  async getAlias(workspace: string, id: string, alias: string): Promise<AgentAlias | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: aliasKey(workspace, id, alias), ConsistentRead: true }));
    return out.Item ? aliasOf(out.Item) : undefined;
  },

  async listAliases(workspace: string, id: string): Promise<AgentAlias[]> {
    const aliases: AgentAlias[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await documents.send(
        new QueryCommand({
          TableName: table(),
          KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
          ExpressionAttributeValues: { ":pk": agentPartition(workspace, id), ":prefix": "ALIAS#" },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      aliases.push(...(out.Items ?? []).map(aliasOf));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return aliases;
  },

  /** Returns false when there was no such alias. */
  async removeAlias(workspace: string, id: string, alias: string): Promise<boolean> {
    const removed = await ifConditionHolds(
      documents.send(new DeleteCommand({ TableName: table(), Key: aliasKey(workspace, id, alias), ConditionExpression: "attribute_exists(sk)" })),
    );
    return removed !== undefined;
  },
};

/** BatchWriteItem deletes, 25 at a time, retrying what DynamoDB leaves unprocessed. */
async function deleteAll(keys: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 25) {
    let batch: Record<string, unknown>[] = keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; batch.length; attempt += 1) {
      if (attempt > 8) throw new Error("DynamoDB kept returning unprocessed agent items");
      if (attempt) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
      const out = await documents.send(new BatchWriteCommand({ RequestItems: { [table()]: batch } }));
      batch = (out.UnprocessedItems?.[table()] ?? []) as Record<string, unknown>[];
    }
  }
}

/** Where a page of GET /v1/agents/pages ended: the byCreated index key of its last head, in the caller's workspace. */
const pageCursor = (workspace: string) =>
  z.strictObject({
    pk: z.literal(workspacePartition(workspace)),
    sk: z.string().regex(/^AGENT#[0-9a-f-]{36}$/),
    createdKey: z.string().regex(/^\d{15}#[0-9a-f-]{36}$/),
  });

/**
 * Up to `limit` heads of the workspace matching `filter`, in creation order (`newestFirst` or not),
 * from `startKey` on. DynamoDB applies Limit before the filter, so it reads on until the page is full.
 */
async function headPage(workspace: string, filter: HeadFilter, options: { limit: number; startKey?: Record<string, unknown>; newestFirst: boolean }): Promise<KeyedPage> {
  const base: QueryCommandInput = {
    TableName: table(),
    IndexName: "byCreated",
    KeyConditionExpression: "pk = :pk",
    ScanIndexForward: !options.newestFirst,
    ...filterExpression(filter),
  };
  base.ExpressionAttributeValues = { ...base.ExpressionAttributeValues, ":pk": workspacePartition(workspace) };
  const items: Record<string, unknown>[] = [];
  let startKey = options.startKey;
  // One more than asked, to know whether a next page exists without ever answering an empty last page.
  do {
    const out = await documents.send(new QueryCommand({ ...base, ExclusiveStartKey: startKey, Limit: Math.min(1000, options.limit + 1 - items.length) }));
    items.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (startKey && items.length <= options.limit);
  const page = items.slice(0, options.limit);
  const last = page.at(-1);
  return {
    heads: page.map(headOf),
    next: items.length > options.limit && last ? { pk: last.pk, sk: last.sk, createdKey: last.createdKey } : null,
  };
}

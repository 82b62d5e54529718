import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { GetCommand, QueryCommand, TransactWriteCommand, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import type { ConversationHead, Entry } from "../domain/conversations.js";
import { documents } from "./client.js";
import { queryAll } from "./query.js";

/**
 * The conversations table (shared/store/tables.ts): heads in the workspace's partition, entries in the
 * conversation's, numbered in append order. Every write of a turn is one transaction conditioned on the head
 * (its entry count as read), so two turns racing on one conversation never interleave their entries.
 */

const table = () => tableName("conversations");
const workspacePartition = (workspace: string) => `WS#${workspace}`;
const entryPartition = (workspace: string, id: string) => `WS#${workspace}#CONV#${id}`;
const headKey = (workspace: string, id: string) => ({ pk: workspacePartition(workspace), sk: `CONV#${id}` });
const entrySk = (sequence: number) => `E#${String(sequence).padStart(10, "0")}`;
/** Oldest first on the byCreated index; the id breaks ties within one millisecond. */
const createdKey = (createdAt: string, id: string) => `${String(Date.parse(createdAt)).padStart(15, "0")}#${id}`;

/** DynamoDB takes at most 100 actions in one transaction; the head's update is one of them. */
export const MAX_ENTRIES_PER_WRITE = 99;

function headItem(head: ConversationHead) {
  return { ...headKey(head.workspace, head.id), ...head, createdKey: createdKey(head.createdAt, head.id) };
}

function headOf(item: Record<string, unknown>): ConversationHead {
  const { pk: _pk, sk: _sk, createdKey: _ck, ...head } = item;
  return head as unknown as ConversationHead;
}

function entryOf(item: Record<string, unknown>): Entry {
  return JSON.parse(String(item.entry)) as Entry;
}

/** Entries are kept as JSON text: their content is the client's, of any shape, and DynamoDB refuses empty sets and odd numbers. */
const entryPuts = (workspace: string, id: string, from: number, entries: readonly Entry[]) =>
  entries.map((entry, i) => ({
    Put: { TableName: table(), Item: { pk: entryPartition(workspace, id), sk: entrySk(from + i), id: entry.id, entry: JSON.stringify(entry) }, ConditionExpression: "attribute_not_exists(sk)" },
  }));

const isConflict = (error: unknown) =>
  error instanceof TransactionCanceledException && (error.CancellationReasons ?? [{ Code: "ConditionalCheckFailed" }]).some((r) => r.Code === "ConditionalCheckFailed" || r.Code === "TransactionConflict");

export const conversationStore = {
  /** A new conversation with its first entries, in one transaction. */
  async create(head: ConversationHead, entries: readonly Entry[]): Promise<void> {
    await documents.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table(), Item: headItem({ ...head, entryCount: entries.length }), ConditionExpression: "attribute_not_exists(sk)" } },
          ...entryPuts(head.workspace, head.id, 0, entries),
        ],
      }),
    );
  },

  async get(workspace: string, id: string): Promise<ConversationHead | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: headKey(workspace, id), ConsistentRead: true }));
    return out.Item ? headOf(out.Item) : undefined;
  },

  /**
   * Appends `entries` after the `head.entryCount` the caller read and sets the head's changed fields; false when the
   * conversation changed meanwhile (another turn appended, or it was deleted): nothing is written then.
   */
  async append(head: ConversationHead, entries: readonly Entry[], changes: Pick<ConversationHead, "updatedAt" | "pendingCalls" | "activeAgentId">): Promise<boolean> {
    try {
      await documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: table(),
                Key: headKey(head.workspace, head.id),
                UpdateExpression: "SET #count = :count, #updatedAt = :updatedAt, #pending = :pending, #active = :active",
                ConditionExpression: "attribute_exists(sk) AND #count = :seen",
                ExpressionAttributeNames: { "#count": "entryCount", "#updatedAt": "updatedAt", "#pending": "pendingCalls", "#active": "activeAgentId" },
                ExpressionAttributeValues: {
                  ":count": head.entryCount + entries.length,
                  ":seen": head.entryCount,
                  ":updatedAt": changes.updatedAt,
                  ":pending": changes.pendingCalls,
                  ":active": changes.activeAgentId ?? null,
                },
              },
            },
            ...entryPuts(head.workspace, head.id, head.entryCount, entries),
          ],
        }),
      );
      return true;
    } catch (error) {
      if (isConflict(error)) return false;
      throw error;
    }
  },

  /** Every entry, in append order: one Query of the conversation's partition. */
  async entries(workspace: string, id: string): Promise<Entry[]> {
    const items = await queryAll({ TableName: table(), KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": entryPartition(workspace, id) }, ConsistentRead: true });
    return items.map(entryOf);
  },

  /**
   * Removes the head first (from then on the conversation answers 404 and no turn can append: every append is
   * conditioned on the head), then its entries. Returns false when there was no conversation.
   */
  async remove(workspace: string, id: string): Promise<boolean> {
    try {
      await documents.send(new TransactWriteCommand({ TransactItems: [{ Delete: { TableName: table(), Key: headKey(workspace, id), ConditionExpression: "attribute_exists(sk)" } }] }));
    } catch (error) {
      if (isConflict(error)) return false;
      throw error;
    }
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await documents.send(
        new QueryCommand({
          TableName: table(),
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: { ":pk": entryPartition(workspace, id) },
          ProjectionExpression: "pk, sk",
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      const keys = (out.Items ?? []).map((item) => ({ pk: item.pk, sk: item.sk }));
      for (let i = 0; i < keys.length; i += 100) {
        await documents.send(new TransactWriteCommand({ TransactItems: keys.slice(i, i + 100).map((Key) => ({ Delete: { TableName: table(), Key } })) }));
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return true;
  },

  /**
   * GET /v1/conversations (page numbers): the workspace's heads newest first, skipping `offset`, then up to `limit`,
   * those whose metadata holds every pair of `metadata`. DynamoDB applies Limit before the filter, so it reads on.
   */
  async listAt(workspace: string, options: { offset: number; limit: number; metadata?: Record<string, unknown> }): Promise<ConversationHead[]> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ":pk": workspacePartition(workspace) };
    const clauses = Object.entries(options.metadata ?? {}).map(([key, value], i) => {
      names["#metadata"] = "metadata";
      names[`#m${i}`] = key;
      values[`:m${i}`] = value;
      return `#metadata.#m${i} = :m${i}`;
    });
    const base: QueryCommandInput = {
      TableName: table(),
      IndexName: "byCreated",
      KeyConditionExpression: "pk = :pk",
      ScanIndexForward: false,
      ExpressionAttributeValues: values,
      ...(clauses.length ? { FilterExpression: clauses.join(" AND "), ExpressionAttributeNames: names } : {}),
    };
    const wanted = options.offset + options.limit;
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await documents.send(new QueryCommand({ ...base, ExclusiveStartKey: startKey, Limit: Math.min(1000, wanted - items.length) }));
      items.push(...(out.Items ?? []));
      startKey = out.LastEvaluatedKey;
    } while (startKey && items.length < wanted);
    return items.slice(options.offset, wanted).map(headOf);
  },
};

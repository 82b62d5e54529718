import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import { isFinal, sourcesOf, type BatchJobRecord } from "../domain/batch-rules.js";
import type { BatchStatus } from "../schemas/batch.js";
import { documents, ifConditionHolds } from "./client.js";
import { queryCount, queryPage } from "./query.js";

const table = () => tableName("batch");
const jobKey = (workspace: string, id: string) => ({ workspace, sk: `JOB#${id}` });
const createdKey = (createdAtMs: number, id: string) => `${String(createdAtMs).padStart(15, "0")}#${id}`;
const ACTIVE = "ACTIVE";

function fromItem(item: Record<string, unknown>): BatchJobRecord {
  const { sk: _sk, createdKey: _ck, activeKey: _ak, ...job } = item;
  return job as unknown as BatchJobRecord;
}

export type BatchCounters = Partial<Record<"completedRequests" | "succeededRequests" | "failedRequests", number>>;

export interface BatchJobFilter {
  owner?: string;
  model?: string;
  agentId?: string;
  statuses?: BatchStatus[];
  createdAfter?: number;
  metadata?: Record<string, string>;
}

export const batchStore = {
  async create(job: BatchJobRecord, createdAtMs: number): Promise<void> {
    await documents.send(
      new PutCommand({
        TableName: table(),
        Item: { ...jobKey(job.workspace, job.id), ...job, createdKey: createdKey(createdAtMs, job.id), activeKey: ACTIVE },
        ConditionExpression: "attribute_not_exists(sk)",
      }),
    );
  },

  async get(workspace: string, id: string): Promise<BatchJobRecord | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: jobKey(workspace, id), ConsistentRead: true }));
    return out.Item ? fromItem(out.Item) : undefined;
  },

  /**
   * Moves the job to `to` (setting `fields` too) only from a status that may lead there (shared/domain/batch-rules.ts).
   * Returns the updated job, or undefined when the job is gone or its status does not allow the move.
   */
  async transition(workspace: string, id: string, to: BatchStatus, fields: Partial<BatchJobRecord> = {}): Promise<BatchJobRecord | undefined> {
    const names: Record<string, string> = { "#status": "status" };
    const values: Record<string, unknown> = { ":to": to };
    const sets = ["#status = :to"];
    for (const [field, value] of Object.entries(fields)) {
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      sets.push(`#${field} = :${field}`);
    }
    const from = sourcesOf(to);
    from.forEach((status, i) => (values[`:from${i}`] = status));
    // A final job leaves the sparse `active` index.
    const update = `SET ${sets.join(", ")}${isFinal(to) ? " REMOVE activeKey" : ""}`;
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: jobKey(workspace, id),
          UpdateExpression: update,
          ConditionExpression: `attribute_exists(sk) AND #status IN (${from.map((_, i) => `:from${i}`).join(", ")})`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: "ALL_NEW",
        }),
      ),
    );
    if (!out) return undefined;
    return out.Attributes ? fromItem(out.Attributes) : undefined;
  },

  /** Sets fields that are not the status (totals, files, execution); the job must exist. */
  async setFields(workspace: string, id: string, fields: Partial<Omit<BatchJobRecord, "status">>): Promise<void> {
    const entries = Object.entries(fields);
    if (!entries.length) return;
    await documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: jobKey(workspace, id),
        UpdateExpression: `SET ${entries.map(([f]) => `#${f} = :${f}`).join(", ")}`,
        ConditionExpression: "attribute_exists(sk)",
        ExpressionAttributeNames: Object.fromEntries(entries.map(([f]) => [`#${f}`, f])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([f, v]) => [`:${f}`, v])),
      }),
    );
  },

  /** Atomic progress: concurrent chunks add their counts without losing one another's. */
  async addCounters(workspace: string, id: string, counters: BatchCounters): Promise<void> {
    const entries = Object.entries(counters).filter(([, n]) => n);
    if (!entries.length) return;
    await documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: jobKey(workspace, id),
        UpdateExpression: `ADD ${entries.map(([f]) => `#${f} :${f}`).join(", ")}`,
        ConditionExpression: "attribute_exists(sk)",
        ExpressionAttributeNames: Object.fromEntries(entries.map(([f]) => [`#${f}`, f])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([f, n]) => [`:${f}`, n])),
      }),
    );
  },

  /** False when there was no such job. */
  async remove(workspace: string, id: string): Promise<boolean> {
    const out = await documents.send(new DeleteCommand({ TableName: table(), Key: jobKey(workspace, id), ReturnValues: "ALL_OLD" }));
    return Boolean(out.Attributes);
  },

  /** One page by creation time (newest first unless `ascending`), filtered; `total` counts every match. */
  async list(workspace: string, filter: BatchJobFilter, page: number, pageSize: number, ascending: boolean) {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ":workspace": workspace };
    const clauses: string[] = [];
    const equals = (attribute: string, value: unknown) => {
      names[`#${attribute}`] = attribute;
      values[`:${attribute}`] = value;
      clauses.push(`#${attribute} = :${attribute}`);
    };
    if (filter.owner) equals("owner", filter.owner);
    if (filter.model) equals("model", filter.model);
    if (filter.agentId) equals("agentId", filter.agentId);
    if (filter.createdAfter !== undefined) {
      names["#createdAt"] = "createdAt";
      values[":createdAfter"] = filter.createdAfter;
      clauses.push("#createdAt > :createdAfter");
    }
    if (filter.statuses?.length) {
      names["#status"] = "status";
      filter.statuses.forEach((s, i) => (values[`:status${i}`] = s));
      clauses.push(`#status IN (${filter.statuses.map((_, i) => `:status${i}`).join(", ")})`);
    }
    Object.entries(filter.metadata ?? {}).forEach(([key, value], i) => {
      names["#metadata"] = "metadata";
      names[`#m${i}`] = key;
      values[`:m${i}`] = value;
      clauses.push(`#metadata.#m${i} = :m${i}`);
    });
    const base: QueryCommandInput = {
      TableName: table(),
      IndexName: "byCreated",
      KeyConditionExpression: "workspace = :workspace",
      ScanIndexForward: ascending,
      ...(clauses.length ? { FilterExpression: clauses.join(" AND "), ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    };
    const [items, total] = await Promise.all([queryPage(base, page * pageSize, pageSize), queryCount(base)]);
    return { items: items.map(fromItem), total };
  },

  /** Every job not yet final, in every workspace (the local engine's restart recovery). */
  async listActive(): Promise<BatchJobRecord[]> {
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await documents.send(
        new QueryCommand({
          TableName: table(),
          IndexName: "active",
          KeyConditionExpression: "activeKey = :active",
          ExpressionAttributeValues: { ":active": ACTIVE },
          ExclusiveStartKey: startKey,
        }),
      );
      items.push(...(out.Items ?? []));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return items.map(fromItem);
  },
};

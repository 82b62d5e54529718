import { BatchWriteCommand, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import type { UsageRecord } from "../domain/usage.js";
import { documents } from "./client.js";
import { queryAll } from "./query.js";

const RETENTION_SECONDS = 400 * 24 * 3600;
const table = () => tableName("usage");

/*
 * One partition per workspace:
 *   <at>#<requestId>                 one record per model call (kept 400 days)
 *   MONTH#<yyyy-mm>                  the month's spend, in micro-units (ADD: exact under concurrency)
 *   DAY#<yyyy-mm-dd>#<model>#<key>   the day's totals per model and key, for usage reports
 *   KEYMONTH#<yyyy-mm>#<key>         a key's month spend, kept only while the key has a monthly budget
 */
export interface DailyUsage {
  day: string;
  model: string;
  keyId: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  costMicros: number;
}

const ttlOf = (at: string) => Math.floor(Date.parse(at) / 1000) + RETENTION_SECONDS;
const recordItem = (usage: UsageRecord) => ({ ...usage, sk: `${usage.at}#${usage.requestId}${usage.call ? `#${usage.call}` : ""}`, ttl: ttlOf(usage.at) });

/** One finished call as the totals count it. */
export interface TotalsCall {
  month: string;
  day: string;
  model: string;
  keyId: string;
  at: string;
  promptTokens: number;
  completionTokens: number;
  costMicros: number;
  /** Calls this increment counts (several when calls that ended together are added at once); 1 when absent. */
  requests?: number;
}

export const usageStore = {
  async record(usage: UsageRecord): Promise<void> {
    await documents.send(new PutCommand({ TableName: table(), Item: recordItem(usage) }));
  },

  /** Several records in one BatchWriteItem per 25 (records of calls that ended together); unprocessed ones are retried. */
  async recordMany(records: UsageRecord[]): Promise<void> {
    if (records.length === 1) return usageStore.record(records[0]!);
    for (let i = 0; i < records.length; i += 25) {
      let pending: Record<string, unknown[]> | undefined = { [table()]: records.slice(i, i + 25).map((r) => ({ PutRequest: { Item: recordItem(r) } })) };
      for (let attempt = 0; pending && Object.keys(pending).length; attempt += 1) {
        if (attempt > 8) throw new Error("DynamoDB kept returning unprocessed usage records");
        if (attempt) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
        const out = await documents.send(new BatchWriteCommand({ RequestItems: pending as never }));
        pending = out.UnprocessedItems as Record<string, unknown[]> | undefined;
      }
    }
  },

  /** Adds one call to the month's spend and the day's totals (two atomic ADDs, no read). */
  async addToTotals(workspace: string, call: TotalsCall): Promise<void> {
    await Promise.all([usageStore.addToMonth(workspace, call), usageStore.addToDay(workspace, call)]);
  },

  /** Adds one call's cost to the month's spend (an atomic ADD, no read); answers the month's spend after it. */
  async addToMonth(workspace: string, call: Pick<TotalsCall, "month" | "at" | "costMicros" | "requests">): Promise<number> {
    const out = await documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: { workspace, sk: `MONTH#${call.month}` },
        UpdateExpression: "ADD spentMicros :cost, requests :one SET #ttl = :ttl",
        ExpressionAttributeNames: { "#ttl": "ttl" },
        ExpressionAttributeValues: { ":cost": call.costMicros, ":one": call.requests ?? 1, ":ttl": ttlOf(call.at) },
        ReturnValues: "UPDATED_NEW",
      }),
    );
    return (out?.Attributes?.spentMicros as number | undefined) ?? call.costMicros;
  },

  /** Adds one call's cost to its key's month spend (keys with a monthly budget only). */
  async addToKeyMonth(workspace: string, call: Pick<TotalsCall, "month" | "keyId" | "at" | "costMicros">): Promise<void> {
    await documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: { workspace, sk: `KEYMONTH#${call.month}#${call.keyId}` },
        UpdateExpression: "ADD spentMicros :cost SET #ttl = :ttl",
        ExpressionAttributeNames: { "#ttl": "ttl" },
        ExpressionAttributeValues: { ":cost": call.costMicros, ":ttl": ttlOf(call.at) },
      }),
    );
  },

  /** Sets a key's month spend (when a budget is given to a key that had none: its spend so far, from the day totals). */
  async setKeyMonth(workspace: string, keyId: string, month: string, spentMicros: number, at: string): Promise<void> {
    await documents.send(new PutCommand({ TableName: table(), Item: { workspace, sk: `KEYMONTH#${month}#${keyId}`, spentMicros, ttl: ttlOf(at) } }));
  },

  /** What a key has spent this month, in micro-units (kept only while the key has a budget). */
  async keyMonthSpend(workspace: string, keyId: string, month: string): Promise<number> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: { workspace, sk: `KEYMONTH#${month}#${keyId}` }, ConsistentRead: true }));
    return (out.Item?.spentMicros as number | undefined) ?? 0;
  },

  /** Adds one call to the day's totals of its model and key (an atomic ADD, no read). */
  async addToDay(workspace: string, call: TotalsCall): Promise<void> {
    await documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: { workspace, sk: `DAY#${call.day}#${call.model}#${call.keyId}` },
        UpdateExpression: "ADD requests :one, promptTokens :p, completionTokens :c, costMicros :cost SET #day = :day, model = :model, keyId = :key, #ttl = :ttl",
        ExpressionAttributeNames: { "#day": "day", "#ttl": "ttl" },
        ExpressionAttributeValues: {
          ":one": call.requests ?? 1,
          ":p": call.promptTokens,
          ":c": call.completionTokens,
          ":cost": call.costMicros,
          ":day": call.day,
          ":model": call.model,
          ":key": call.keyId,
          ":ttl": ttlOf(call.at),
        },
      }),
    );
  },

  /** What the workspace has spent this month, in micro-units. */
  async monthSpend(workspace: string, month: string): Promise<number> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: { workspace, sk: `MONTH#${month}` }, ConsistentRead: true }));
    return (out.Item?.spentMicros as number | undefined) ?? 0;
  },

  /** The day totals from `fromDay` to `toDay` inclusive. */
  async dailyTotals(workspace: string, fromDay: string, toDay: string): Promise<DailyUsage[]> {
    const items = await queryAll({
      TableName: table(),
      KeyConditionExpression: "workspace = :w AND sk BETWEEN :from AND :to",
      ExpressionAttributeValues: { ":w": workspace, ":from": `DAY#${fromDay}`, ":to": `DAY#${toDay}#\uffff` },
    });
    return items.map((item) => ({
      day: item.day as string,
      model: item.model as string,
      keyId: item.keyId as string,
      requests: item.requests as number,
      promptTokens: item.promptTokens as number,
      completionTokens: item.completionTokens as number,
      costMicros: item.costMicros as number,
    }));
  },
};

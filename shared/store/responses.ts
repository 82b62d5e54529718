import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import { documents } from "./client.js";

/**
 * The response cache's items (shared/store/tables.ts `responsesTable`): one answer per workspace and request key,
 * until its `ttl`. DynamoDB's TTL removes expired items within days, so a read checks the time itself.
 */
/** An item must stay under DynamoDB's 400 KB; bigger answers are not kept (docs/routing.md). */
export const MAX_CACHED_BYTES = 350_000;

export const responseStore = {
  async get<T>(workspace: string, key: string, nowSeconds: number): Promise<T | undefined> {
    const out = await documents.send(new GetCommand({ TableName: tableName("responses"), Key: { workspace, sk: key } }));
    const item = out.Item as { answer: string; ttl: number } | undefined;
    return item && item.ttl > nowSeconds ? (JSON.parse(item.answer) as T) : undefined;
  },

  /** Keeps `answer` for `ttlSeconds`; false when it is too big to keep. */
  async put(workspace: string, key: string, answer: unknown, ttlSeconds: number, nowSeconds: number): Promise<boolean> {
    const serialized = JSON.stringify(answer);
    if (Buffer.byteLength(serialized) > MAX_CACHED_BYTES) return false;
    await documents.send(new PutCommand({ TableName: tableName("responses"), Item: { workspace, sk: key, answer: serialized, ttl: nowSeconds + ttlSeconds } }));
    return true;
  },
};

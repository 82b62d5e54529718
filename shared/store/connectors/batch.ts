import { BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import { documents } from "../client.js";

/** Deletes the keys in batches of 25, retrying what DynamoDB leaves unprocessed. */
export async function batchWriteDeletes(table: string, keys: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 25) {
    let pending = keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; pending.length; attempt += 1) {
      if (attempt > 8) throw new Error(`DynamoDB kept returning unprocessed deletes for ${table}`);
      if (attempt) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
      const out = await documents.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = (out.UnprocessedItems?.[table] ?? []) as typeof pending;
    }
  }
}

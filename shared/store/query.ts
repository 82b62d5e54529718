import { QueryCommand, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import { documents } from "./client.js";

/**
 * Page-number paging over a Query: skips `offset` matching items, then collects `size`. DynamoDB applies
 * Limit before a FilterExpression, so it loops until the page is full or the key range is exhausted.
 */
export async function queryPage(base: QueryCommandInput, offset: number, size: number): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let skip = offset;
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await documents.send(new QueryCommand({ ...base, ExclusiveStartKey: startKey, Limit: Math.min(1000, skip + size - items.length) }));
    for (const item of out.Items ?? []) {
      if (skip > 0) skip -= 1;
      else if (items.length < size) items.push(item);
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey && items.length < size);
  return items;
}

/** How many items match a Query (with its filter), reading index entries only as far as needed. */
export async function queryCount(base: QueryCommandInput): Promise<number> {
  let total = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await documents.send(new QueryCommand({ ...base, Select: "COUNT", ExclusiveStartKey: startKey }));
    total += out.Count ?? 0;
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return total;
}

/** Every item a Query matches, all pages of it (for key ranges known to stay small: one organization's workspaces, one workspace's members). */
export async function queryAll(base: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await documents.send(new QueryCommand({ ...base, ExclusiveStartKey: startKey }));
    items.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}

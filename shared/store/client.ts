import { ConditionalCheckFailedException, DynamoDBClient, TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { BatchGetCommand, DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { installStorageLimits } from "./limits.js";
import { countThrottles } from "./throttles.js";

/** One document client per process; the endpoint comes from the environment (AWS_ENDPOINT_URL_DYNAMODB locally). */
export const documents = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});
installStorageLimits(documents.middlewareStack);
countThrottles(documents.middlewareStack);
// The SDK's logger step deep-copies every command's input and output (its sensitive-field filter) before
// handing them to the logger, even to the no-op one we have: 5–10% of a command's CPU (docs/benchmarks.md §30).
documents.middlewareStack.remove("loggerMiddleware");

/**
 * BatchGetItem for one table, retrying what DynamoDB returns as unprocessed (it does so under
 * throttling): callers see every item that exists, never a partial answer.
 */
export async function batchGetAll(
  table: string,
  keys: Record<string, unknown>[],
  options: { projection?: string; names?: Record<string, string> } = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let pending = keys;
  for (let attempt = 0; pending.length; attempt += 1) {
    if (attempt > 8) throw new Error(`DynamoDB kept returning unprocessed keys for ${table}`);
    if (attempt) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
    const out = await documents.send(
      new BatchGetCommand({
        RequestItems: {
          [table]: { Keys: pending, ...(options.projection ? { ProjectionExpression: options.projection, ExpressionAttributeNames: options.names } : {}) },
        },
      }),
    );
    items.push(...(out.Responses?.[table] ?? []));
    pending = (out.UnprocessedKeys?.[table]?.Keys ?? []) as Record<string, unknown>[];
  }
  return items;
}

/** A write whose refusal (an error of class `refusal`) is an answer: `undefined` instead of a throw. */
const unlessRefused =
  (refusal: abstract new (...args: never[]) => Error) =>
  async <T>(write: Promise<T>): Promise<T | undefined> => {
    try {
      return await write;
    } catch (error) {
      if (error instanceof refusal) return undefined;
      throw error;
    }
  };

/**
 * A conditional write whose condition not holding is an answer, not a failure: the command's output
 * when it was written, `undefined` when the condition stopped it. Any other error propagates.
 */
export const ifConditionHolds = unlessRefused(ConditionalCheckFailedException);

/**
 * The same for a transaction: `undefined` when DynamoDB cancelled it (one of its conditions failed, or
 * a concurrent transaction touched the same items), so callers above the store see an outcome.
 */
export const ifTransactionHolds = unlessRefused(TransactionCanceledException);

/** `SET` of the given fields (undefined ones left out), with placeholder names and values: for partial updates. */
export function setFields(fields: Record<string, unknown>): { UpdateExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Record<string, unknown> } {
  const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
  return {
    UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(", ")}`,
    ExpressionAttributeNames: Object.fromEntries(entries.map(([name], i) => [`#f${i}`, name])),
    ExpressionAttributeValues: Object.fromEntries(entries.map(([, value], i) => [`:v${i}`, value])),
  };
}

import { DeleteCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import { documents } from "./client.js";
import { BREAKERS_PARTITION } from "./tables.js";

/**
 * Open circuit breakers of model deployments, shared by every process that calls models (docs/routing.md,
 * "State"): one item per deployment cooling down, in the rates table's `BREAKERS` partition, written when a breaker
 * opens, deleted when it closes, gone by TTL a minute after its cooldown ends if nobody closed it.
 */
const LINGER_SECONDS = 60;

export interface SharedBreaker {
  deployment: string;
  /** Skipped until then (ms since the epoch). */
  until: number;
}

export const breakerStore = {
  async open(deployment: string, until: number): Promise<void> {
    await documents.send(
      new PutCommand({
        TableName: tableName("rates"),
        Item: { key: BREAKERS_PARTITION, window: deployment, until, ttl: Math.ceil(until / 1000) + LINGER_SECONDS },
      }),
    );
  },

  async close(deployment: string): Promise<void> {
    await documents.send(new DeleteCommand({ TableName: tableName("rates"), Key: { key: BREAKERS_PARTITION, window: deployment } }));
  },

  /** The breakers open at `now`: a deployment in a catalog is at most a few dozen items, one page. */
  async openAt(now: number): Promise<SharedBreaker[]> {
    const out = await documents.send(
      new QueryCommand({
        TableName: tableName("rates"),
        KeyConditionExpression: "#key = :partition",
        FilterExpression: "#until > :now",
        ExpressionAttributeNames: { "#key": "key", "#until": "until" },
        ExpressionAttributeValues: { ":partition": BREAKERS_PARTITION, ":now": now },
      }),
    );
    return (out.Items ?? []).map((item) => ({ deployment: item.window as string, until: item.until as number }));
  },
};

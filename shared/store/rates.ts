import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import { documents, ifConditionHolds } from "./client.js";

/** Counter items live two minutes: long enough for their minute, then DynamoDB's TTL removes them. */
const WINDOW_TTL_SECONDS = 120;

export const rateStore = {
  /**
   * Takes one request from the key's allowance for the window, unless `limit` are taken already: one
   * conditional ADD, so concurrent requests at the edge never get more than the limit between them.
   */
  async take(keyId: string, window: string, limit: number, nowSeconds: number): Promise<boolean> {
    const taken = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: tableName("rates"),
          Key: { key: keyId, window },
          UpdateExpression: "ADD n :one SET #ttl = if_not_exists(#ttl, :ttl)",
          ConditionExpression: "attribute_not_exists(n) OR n < :limit",
          ExpressionAttributeNames: { "#ttl": "ttl" },
          ExpressionAttributeValues: { ":one": 1, ":limit": limit, ":ttl": nowSeconds + WINDOW_TTL_SECONDS },
        }),
      ),
    );
    return taken !== undefined;
  },

  /**
   * Reserves `tokens` in one of the key's token windows (shared/domain/token-limits.ts) unless the window holds more
   * than `room` already: one conditional ADD, so concurrent calls never reserve past the limit between them.
   */
  async reserveTokens(keyId: string, window: string, tokens: number, room: number, expiresAt: number): Promise<boolean> {
    const taken = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: tableName("rates"),
          Key: { key: keyId, window },
          UpdateExpression: "ADD n :tokens SET #ttl = if_not_exists(#ttl, :ttl)",
          ConditionExpression: "attribute_not_exists(n) OR n <= :room",
          ExpressionAttributeNames: { "#ttl": "ttl" },
          ExpressionAttributeValues: { ":tokens": tokens, ":room": room, ":ttl": expiresAt },
        }),
      ),
    );
    return taken !== undefined;
  },

  /** Adds to a token window unconditionally: a settled call's difference from its reservation (negative gives back). */
  async addTokens(keyId: string, window: string, tokens: number, expiresAt: number): Promise<void> {
    await documents.send(
      new UpdateCommand({
        TableName: tableName("rates"),
        Key: { key: keyId, window },
        UpdateExpression: "ADD n :tokens SET #ttl = if_not_exists(#ttl, :ttl)",
        ExpressionAttributeNames: { "#ttl": "ttl" },
        ExpressionAttributeValues: { ":tokens": tokens, ":ttl": expiresAt },
      }),
    );
  },

  /** What a window holds now (tests and the keys CLI's report). */
  async tokensIn(keyId: string, window: string): Promise<number> {
    const out = await documents.send(new GetCommand({ TableName: tableName("rates"), Key: { key: keyId, window }, ConsistentRead: true }));
    return (out.Item?.n as number | undefined) ?? 0;
  },
};


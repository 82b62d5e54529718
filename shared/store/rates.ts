import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
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
};

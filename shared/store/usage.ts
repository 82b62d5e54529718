import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import type { UsageRecord } from "../domain/usage.js";
import { documents } from "./client.js";

const RETENTION_SECONDS = 400 * 24 * 3600;

export const usageStore = {
  async record(usage: UsageRecord): Promise<void> {
    await documents.send(
      new PutCommand({
        TableName: tableName("usage"),
        Item: { ...usage, sk: `${usage.at}#${usage.requestId}`, ttl: Math.floor(Date.parse(usage.at) / 1000) + RETENTION_SECONDS },
      }),
    );
  },
};

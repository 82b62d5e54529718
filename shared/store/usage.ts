import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import { documents } from "./client.js";

/** One model call, for spend limits and observability. */
export interface UsageRecord {
  workspace: string;
  organization: string;
  principal: string;
  requestId: string;
  model: string;
  route: string;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  /** The HTTP status the caller saw, or "stream_error" when a stream failed after its first byte. */
  status: number | "stream_error";
  backend: string;
  at: string;
}

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

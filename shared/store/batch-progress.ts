import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import type { BatchCounters } from "./batch.js";
import { documents, ifConditionHolds } from "./client.js";

/**
 * How many requests of each chunk are already in the job's counters, kept on the job item itself
 * (the item of shared/store/batch.ts) as the map `chunkProgress` (`c<index>` → requests counted).
 * Counting and moving the mark is one conditional update of one item, so a chunk that Step Functions
 * runs again (a retried Lambda) never counts a request twice and never loses one.
 */
const table = () => tableName("batch");
const jobKey = (workspace: string, id: string) => ({ workspace, sk: `JOB#${id}` });
const PROGRESS = "chunkProgress";
const chunkName = (index: number) => `c${index}`;

export type AdvanceResult = "advanced" | "conflict" | "gone";

export const batchProgressStore = {
  /** Creates the empty map (keeping one a previous attempt made); the job must exist. */
  async open(workspace: string, id: string): Promise<void> {
    await documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: jobKey(workspace, id),
        UpdateExpression: "SET #progress = if_not_exists(#progress, :empty)",
        ConditionExpression: "attribute_exists(sk)",
        ExpressionAttributeNames: { "#progress": PROGRESS },
        ExpressionAttributeValues: { ":empty": {} },
      }),
    );
  },

  /** Requests of chunk `index` already counted; undefined when the job is gone. */
  async counted(workspace: string, id: string, index: number): Promise<number | undefined> {
    const out = await documents.send(
      new GetCommand({
        TableName: table(),
        Key: jobKey(workspace, id),
        ProjectionExpression: "#sk, #progress.#chunk",
        ExpressionAttributeNames: { "#sk": "sk", "#progress": PROGRESS, "#chunk": chunkName(index) },
        ConsistentRead: true,
      }),
    );
    if (!out.Item) return undefined;
    return Number((out.Item[PROGRESS] as Record<string, number> | undefined)?.[chunkName(index)] ?? 0);
  },

  /** Adds `counters` to the job and moves the chunk's mark from `from` to `to`, only if it still is at `from`. */
  async advance(workspace: string, id: string, index: number, from: number, to: number, counters: BatchCounters): Promise<AdvanceResult> {
    const entries = Object.entries(counters).filter(([, n]) => n);
    const names: Record<string, string> = { "#progress": PROGRESS, "#chunk": chunkName(index) };
    const values: Record<string, unknown> = { ":to": to };
    for (const [field, n] of entries) {
      names[`#${field}`] = field;
      values[`:${field}`] = n;
    }
    if (from > 0) values[":from"] = from;
    const add = entries.length ? ` ADD ${entries.map(([f]) => `#${f} :${f}`).join(", ")}` : "";
    const advanced = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: jobKey(workspace, id),
          UpdateExpression: `SET #progress.#chunk = :to${add}`,
          ConditionExpression: `attribute_exists(sk) AND ${from > 0 ? "#progress.#chunk = :from" : "attribute_not_exists(#progress.#chunk)"}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
    if (advanced) return "advanced";
    return (await batchProgressStore.counted(workspace, id, index)) === undefined ? "gone" : "conflict";
  },

  /** Drops the map once the job is over; nothing to do when the job is gone. */
  async close(workspace: string, id: string): Promise<void> {
    await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: jobKey(workspace, id),
          UpdateExpression: "REMOVE #progress",
          ConditionExpression: "attribute_exists(sk)",
          ExpressionAttributeNames: { "#progress": PROGRESS },
        }),
      ),
    );
  },
};

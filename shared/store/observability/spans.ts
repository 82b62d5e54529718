import { BatchWriteCommand, GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import type { SpanRow } from "../../domain/observability/records.js";
import { documents } from "../client.js";

/**
 * Spans for point reads, in the `telemetry` table:
 *
 * | pk | sk | what |
 * |---|---|---|
 * | `TRACE#<ws>#<traceId>` | `SPAN#<startTime>#<spanId>` | a span, in start order within its trace |
 * | `SPAN#<ws>#<traceId>#<spanId>` | `SPAN` | the pointer to it: its sort key in the trace |
 *
 * The workspace is in every key: a caller can only name keys of its own workspace.
 */
const table = () => tableName("telemetry");
const tracePk = (workspace: string, traceId: string) => `TRACE#${workspace}#${traceId}`;
const spanPk = (workspace: string, traceId: string, spanId: string) => `SPAN#${workspace}#${traceId}#${spanId}`;
const spanSk = (span: Pick<SpanRow, "start_time" | "span_id">) => `SPAN#${span.start_time}#${span.span_id}`;

/** BatchWriteItem takes 25 requests at a time. */
const BATCH = 25;

export interface SpanPage {
  spans: SpanRow[];
  /** The sort key to continue after, or null on the last page. */
  after: string | null;
}

export const spanStore = {
  /** Writes spans and their pointers; `ttl` is the unix second they expire (the workspace's retention). */
  async put(spans: SpanRow[], ttl: number): Promise<void> {
    const requests = spans.flatMap((span) => [
      { PutRequest: { Item: { pk: tracePk(span.workspace_id, span.trace_id), sk: spanSk(span), ttl, span } } },
      { PutRequest: { Item: { pk: spanPk(span.workspace_id, span.trace_id, span.span_id), sk: "SPAN", ttl, at: spanSk(span) } } },
    ]);
    for (let i = 0; i < requests.length; i += BATCH) {
      let pending: Record<string, unknown[]> | undefined = { [table()]: requests.slice(i, i + BATCH) };
      for (let attempt = 0; pending && Object.keys(pending).length; attempt += 1) {
        if (attempt > 8) throw new Error("DynamoDB kept returning unprocessed span writes");
        if (attempt) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
        const out = await documents.send(new BatchWriteCommand({ RequestItems: pending as never }));
        pending = out.UnprocessedItems as Record<string, unknown[]> | undefined;
      }
    }
  },

  async get(workspace: string, traceId: string, spanId: string): Promise<SpanRow | null> {
    const pointer = await documents.send(new GetCommand({ TableName: table(), Key: { pk: spanPk(workspace, traceId, spanId), sk: "SPAN" } }));
    if (!pointer.Item) return null;
    const item = await documents.send(new GetCommand({ TableName: table(), Key: { pk: tracePk(workspace, traceId), sk: pointer.Item.at } }));
    return (item.Item?.span as SpanRow | undefined) ?? null;
  },

  /** A trace's spans in start order, `limit` at a time from after `after`. */
  async page(workspace: string, traceId: string, limit: number, after: string | null): Promise<SpanPage> {
    const out = await documents.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": tracePk(workspace, traceId) },
        Limit: limit,
        ...(after ? { ExclusiveStartKey: { pk: tracePk(workspace, traceId), sk: after } } : {}),
      }),
    );
    const spans = (out.Items ?? []).map((item) => item.span as SpanRow);
    return { spans, after: out.LastEvaluatedKey ? String(out.LastEvaluatedKey.sk) : null };
  },
};

import { BatchWriteCommand, GetCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import type { SpanRow } from "../../domain/observability/records.js";
import { mapBounded } from "../../domain/concurrency.js";
import { documents } from "../client.js";

/**
 * Spans for point reads, in the `telemetry` table:
 *
 * | pk | sk | what |
 * |---|---|---|
 * | `TRACE#<ws>#<traceId>` | `SPAN#<startTime>#<spanId>` | a span, in start order within its trace |
 * | `SPAN#<ws>#<traceId>#<spanId>` | `SPAN` | the pointer to it: its sort key in the trace |
 * | `EVALS#<ws>#<traceId>` | `COUNT` | how many span evaluations were stored with this trace id (`count`) |
 *
 * Every item carries `ttl`, the unix second DynamoDB expires it (the telemetry retention). A span too large
 * for one item (400 KB) keeps its message and tool fields cut short here (`span_attributes["platform.truncated"]`);
 * the analytical store keeps them whole.
 * The workspace is in every key: a caller can only name keys of its own workspace.
 */
const table = () => tableName("telemetry");
const tracePk = (workspace: string, traceId: string) => `TRACE#${workspace}#${traceId}`;
const spanPk = (workspace: string, traceId: string, spanId: string) => `SPAN#${workspace}#${traceId}#${spanId}`;
const spanSk = (span: Pick<SpanRow, "start_time" | "span_id">) => `SPAN#${span.start_time}#${span.span_id}`;
const evaluationsPk = (workspace: string, traceId: string) => `EVALS#${workspace}#${traceId}`;

/**
 * Room for one span in its point item. DynamoDB's limit is 400 KB, but every KB is a write unit on every
 * call: the point item keeps the content only up to this bound (the analytical store keeps it whole, under
 * the content-capture setting), and a span cut to fit says so (`platform.truncated`). Decision 0045.
 */
export const MAX_SPAN_ITEM_BYTES = 16_000;
const LARGE_FIELDS = ["input_messages", "output_messages", "system_instructions", "tool_definitions", "tool_call_arguments", "tool_call_result"] as const;

/** The span as its item keeps it: whole when it fits, else its largest text fields cut to share what room is left. */
export function fitted(span: SpanRow): SpanRow {
  const size = Buffer.byteLength(JSON.stringify(span));
  if (size <= MAX_SPAN_ITEM_BYTES) return span;
  const fixed = size - LARGE_FIELDS.reduce((sum, field) => sum + Buffer.byteLength(span[field]), 0);
  const share = Math.max(0, Math.floor((MAX_SPAN_ITEM_BYTES - fixed) / LARGE_FIELDS.length / 4));
  const cut: SpanRow = { ...span, span_attributes: { ...span.span_attributes, "platform.truncated": "true" } };
  for (const field of LARGE_FIELDS) if (cut[field].length > share) cut[field] = cut[field].slice(0, share);
  return cut;
}

/**
 * Attribute keys as items keep them. The SDK's marshaller reads a map's `constructor` to tell a map from a class
 * instance and builds maps by assignment, so keys named like Object.prototype's members (`constructor`,
 * `toString`, `__proto__`) made it throw or write a stray attribute (a 500): such a key is stored with a `~`
 * before it, and so is every key that starts with `~`, so reading strips exactly one.
 */
const escaped = (key: string) => key.startsWith("~") || Object.hasOwn(Object.prototype, key);
const escapeKeys = (map: Record<string, string>) => Object.fromEntries(Object.entries(map).map(([key, value]) => [escaped(key) ? `~${key}` : key, value]));
const unescapeKeys = (map: Record<string, string> | undefined) => Object.fromEntries(Object.entries(map ?? {}).map(([key, value]) => [key.startsWith("~") ? key.slice(1) : key, value]));
const toItemSpan = (span: SpanRow): SpanRow => ({ ...span, span_attributes: escapeKeys(span.span_attributes), resource_attributes: escapeKeys(span.resource_attributes) });
const fromItemSpan = (span: SpanRow): SpanRow => ({ ...span, span_attributes: unescapeKeys(span.span_attributes), resource_attributes: unescapeKeys(span.resource_attributes) });

/** BatchWriteItem takes 25 requests at a time; this many are in flight at once. */
const BATCH = 25;
const PARALLEL_BATCHES = 8;

export interface SpanPage {
  spans: SpanRow[];
  /** The sort key to continue after, or null on the last page. */
  after: string | null;
}

export const spanStore = {
  /** Writes spans and their pointers; `ttl` is the unix second they expire (the workspace's retention). */
  async put(spans: SpanRow[], ttl: number): Promise<void> {
    const requests = spans.flatMap((span) => [
      { PutRequest: { Item: { pk: tracePk(span.workspace_id, span.trace_id), sk: spanSk(span), ttl, span: toItemSpan(fitted(span)) } } },
      { PutRequest: { Item: { pk: spanPk(span.workspace_id, span.trace_id, span.span_id), sk: "SPAN", ttl, at: spanSk(span) } } },
    ]);
    const batches = Array.from({ length: Math.ceil(requests.length / BATCH) }, (_, i) => requests.slice(i * BATCH, (i + 1) * BATCH));
    // A large export (512 spans = 41 batches) writes a few batches at once rather than one after another.
    await mapBounded(batches, PARALLEL_BATCHES, async (batch) => {
      let pending: Record<string, unknown[]> | undefined = { [table()]: batch };
      for (let attempt = 0; pending && Object.keys(pending).length; attempt += 1) {
        if (attempt > 8) throw new Error("DynamoDB kept returning unprocessed span writes");
        if (attempt) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
        const out = await documents.send(new BatchWriteCommand({ RequestItems: pending as never }));
        pending = out.UnprocessedItems as Record<string, unknown[]> | undefined;
      }
    });
  },

  async get(workspace: string, traceId: string, spanId: string): Promise<SpanRow | null> {
    const pointer = await documents.send(new GetCommand({ TableName: table(), Key: { pk: spanPk(workspace, traceId, spanId), sk: "SPAN" } }));
    if (!pointer.Item) return null;
    const item = await documents.send(new GetCommand({ TableName: table(), Key: { pk: tracePk(workspace, traceId), sk: pointer.Item.at } }));
    return item.Item?.span ? fromItemSpan(item.Item.span as SpanRow) : null;
  },

  /**
   * A trace's spans in start order, `limit` at a time from after `after`; `window` keeps those that started
   * within it (ISO instants written as the spans' own `start_time`s are, with microseconds).
   */
  async page(workspace: string, traceId: string, limit: number, after: string | null, window: { from?: string; to?: string } = {}): Promise<SpanPage> {
    const range = window.from || window.to;
    const out = await documents.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: range ? "pk = :pk AND sk BETWEEN :from AND :to" : "pk = :pk",
        ExpressionAttributeValues: {
          ":pk": tracePk(workspace, traceId),
          ...(range ? { ":from": `SPAN#${window.from ?? ""}`, ":to": `SPAN#${window.to ?? "\uffff"}#\uffff` } : {}),
        },
        Limit: limit,
        ...(after ? { ExclusiveStartKey: { pk: tracePk(workspace, traceId), sk: after } } : {}),
      }),
    );
    const spans = (out.Items ?? []).map((item) => fromItemSpan(item.span as SpanRow));
    return { spans, after: out.LastEvaluatedKey ? String(out.LastEvaluatedKey.sk) : null };
  },

  /** Counts one more span evaluation stored with this trace id (the trace's `evaluation_count`). */
  async countEvaluation(workspace: string, traceId: string, ttl: number): Promise<void> {
    await documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: evaluationsPk(workspace, traceId), sk: "COUNT" },
        UpdateExpression: "ADD #count :one SET #ttl = :ttl",
        ExpressionAttributeNames: { "#count": "count", "#ttl": "ttl" },
        ExpressionAttributeValues: { ":one": 1, ":ttl": ttl },
      }),
    );
  },

  async evaluationCount(workspace: string, traceId: string): Promise<number> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: { pk: evaluationsPk(workspace, traceId), sk: "COUNT" } }));
    return Number(out.Item?.count ?? 0);
  },
};

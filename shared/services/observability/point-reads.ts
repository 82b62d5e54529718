import type { Caller } from "../../domain/caller.js";
import { SpanNotFound, TraceNotFound } from "../../domain/observability/not-found.js";
import type { SpanRow, TraceRow } from "../../domain/observability/records.js";
import { epochNanos, isoFromNanos, traceFromSpans } from "../../domain/observability/traces.js";
import type { SpansQuery } from "../../schemas/observability/ingest.js";
import { InvalidPageToken } from "../../domain/errors.js";
import { readCursor, encodeCursor } from "../../store/cursor.js";
import { spanStore } from "../../store/observability/spans.js";
import * as z from "zod";

/**
 * The point reads (a trace by id, its spans, a span by id), from the telemetry table: the caller's workspace is
 * in every key, so another workspace's trace is simply not found.
 */

/** Most spans one trace read gathers (pages of the point store): a trace beyond it is derived from its first spans. */
const MAX_TRACE_SPANS = 10_000;
const PAGE = 500;

/** Every span of a trace in start order (up to MAX_TRACE_SPANS). */
export async function spansOfTrace(workspace: string, traceId: string): Promise<SpanRow[]> {
  const spans: SpanRow[] = [];
  let after: string | null = null;
  do {
    const page = await spanStore.page(workspace, traceId, PAGE, after);
    spans.push(...page.spans);
    after = page.after;
  } while (after && spans.length < MAX_TRACE_SPANS);
  return spans;
}

export async function getTrace(caller: Pick<Caller, "workspace">, traceId: string): Promise<TraceRow> {
  const [spans, evaluations] = await Promise.all([spansOfTrace(caller.workspace, traceId), spanStore.evaluationCount(caller.workspace, traceId)]);
  const trace = traceFromSpans(spans, evaluations);
  if (!trace) throw new TraceNotFound(traceId);
  return trace;
}

export async function getSpan(caller: Pick<Caller, "workspace">, traceId: string, spanId: string): Promise<SpanRow> {
  const span = await spanStore.get(caller.workspace, traceId, spanId);
  if (!span) throw new SpanNotFound(traceId, spanId);
  return span;
}

/** Where a page of a trace's spans ended: the trace it belongs to, the window it was read in, and the sort key. */
const Position = z.strictObject({ t: z.string(), a: z.string(), f: z.string().optional(), u: z.string().optional() });

/** The window as the span keys write instants (UTC, microseconds), so it compares with them. */
const keyInstant = (value: string | null | undefined) => (value ? isoFromNanos(epochNanos(new Date(Date.parse(value)).toISOString())) : undefined);

export async function getTraceSpans(caller: Pick<Caller, "workspace">, traceId: string, query: SpansQuery): Promise<{ spans: { results: SpanRow[]; next: string | null; cursor: string | null } }> {
  // Another workspace's trace is not found before its cursor is looked at: an intruder learns nothing from the token's check.
  const exists = async () => (await spanStore.page(caller.workspace, traceId, 1, null)).spans.length > 0;
  if (query.cursor && !(await exists())) throw new TraceNotFound(traceId);
  const position = query.cursor ? readCursor(query.cursor, Position, "cursor") : undefined;
  // A token of another trace's list is not this list's.
  if (position && position.t !== traceId) throw new InvalidPageToken("cursor");
  const window = position ? { from: position.f, to: position.u } : { from: keyInstant(query.from), to: keyInstant(query.to) };
  const page = query.page_size === 0 ? { spans: [], after: null } : await spanStore.page(caller.workspace, traceId, query.page_size, position?.a ?? null, window);
  if (page.spans.length === 0 && !position && !(await exists())) throw new TraceNotFound(traceId);
  const cursor = page.after ? encodeCursor({ t: traceId, a: page.after, ...(window.from ? { f: window.from } : {}), ...(window.to ? { u: window.to } : {}) }) : null;
  const next = cursor ? `/v1/observability/traces/${encodeURIComponent(traceId)}/spans?page_size=${query.page_size}&cursor=${cursor}` : null;
  return { spans: { results: page.spans, next, cursor } };
}

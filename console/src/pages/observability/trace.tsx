/**
 * One trace (GET /v1/observability/traces/{id}, derived from its spans) and its spans as a waterfall
 * (GET …/traces/{id}/spans, every page): one row per span, under its parent, a bar placed by its start and
 * length within the trace, and its attributes in a disclosure. Bars are placed through style objects (the
 * CSSOM): the console's CSP refuses style attributes.
 */
import { api } from "../../api.js";
import { href } from "../../router.js";
import { count, ms, when } from "../../ui/format.js";
import { ErrorNote, Loading, Panel } from "../../ui/parts.js";
import { useResource } from "../../ui/use-resource.js";
import { nsToMs, pretty } from "./common.js";
import type { Span } from "./spans.js";

interface Trace {
  trace_id: string;
  root_span_name: string;
  start_time: string;
  end_time: string;
  duration_ns: number;
  service_name: string;
  status_code: string;
  span_count: number;
  llm_call_count: number;
  tool_call_count: number;
  error_count: number;
  evaluation_count: number;
  input_tokens: number;
  output_tokens: number;
  models_used: string[];
  conversation_id: string;
  workflow_name: string;
  agent_name: string;
}

interface Row {
  span: Span;
  depth: number;
  /** Offset from the trace's start and length, in ms. */
  offset: number;
  length: number;
}

const enc = encodeURIComponent;
/** An ISO instant with up to nanoseconds, as epoch milliseconds (with the sub-millisecond part). */
function epochMs(iso: string): number {
  const fraction = /\.(\d+)/.exec(iso)?.[1] ?? "";
  const whole = Date.parse(iso.replace(/\.\d+/, ""));
  return whole + (fraction ? Number(`0.${fraction}`) * 1000 : 0);
}

/** Spans in tree order (a parent before its children, siblings by start); a span whose parent is not here is a root. */
export function waterfall(spans: Span[]): { rows: Row[]; total: number } {
  if (spans.length === 0) return { rows: [], total: 0 };
  const ids = new Set(spans.map((s) => s.span_id));
  const children = new Map<string, Span[]>();
  for (const span of spans) {
    const parent = span.parent_span_id && ids.has(span.parent_span_id) && span.parent_span_id !== span.span_id ? span.parent_span_id : "";
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const start = Math.min(...spans.map((s) => epochMs(s.start_time)));
  const end = Math.max(...spans.map((s) => epochMs(s.start_time) + s.duration_ns / 1e6));
  const rows: Row[] = [];
  const seen = new Set<string>();
  const visit = (parent: string, depth: number) => {
    const kids = (children.get(parent) ?? []).slice().sort((a, b) => epochMs(a.start_time) - epochMs(b.start_time));
    for (const span of kids) {
      if (seen.has(span.span_id)) continue;
      seen.add(span.span_id);
      rows.push({ span, depth, offset: epochMs(span.start_time) - start, length: span.duration_ns / 1e6 });
      visit(span.span_id, depth + 1);
    }
  };
  visit("", 0);
  return { rows, total: Math.max(end - start, 0.001) };
}

async function allSpans(id: string, signal: AbortSignal): Promise<Span[]> {
  const spans: Span[] = [];
  let cursor: string | undefined;
  // At most 20 pages of 100: a trace larger than that shows its first 2,000 spans.
  for (let page = 0; page < 20; page += 1) {
    const answer = await api.get<{ spans: { results: Span[]; cursor: string | null } }>(`/v1/observability/traces/${enc(id)}/spans`, { page_size: 100, cursor }, signal);
    spans.push(...answer.spans.results);
    if (!answer.spans.cursor) break;
    cursor = answer.spans.cursor;
  }
  return spans;
}

export function TraceView({ id, highlighted }: { id: string; highlighted: string | null }) {
  const trace = useResource((signal) => api.get<Trace>(`/v1/observability/traces/${enc(id)}`, undefined, signal), [id]);
  const spans = useResource((signal) => allSpans(id, signal), [id]);
  const t = trace.data;
  const { rows, total } = spans.data ? waterfall(spans.data) : { rows: [], total: 0 };
  const percent = (n: number) => `${Math.min(100, Math.max(0, (n / total) * 100)).toFixed(2)}%`;
  return (
    <>
      <p>
        <a href={href("observability", "spans")}>Back to the span search</a>
      </p>
      <Panel title="Trace">
        {trace.error ? (
          <ErrorNote error={trace.error} />
        ) : !t ? (
          <Loading />
        ) : (
          <dl class="facts">
            <dt>Root span</dt>
            <dd>{t.root_span_name || "—"}</dd>
            <dt>Started</dt>
            <dd>{when(t.start_time)}</dd>
            <dt>Duration</dt>
            <dd>{ms(nsToMs(t.duration_ns))}</dd>
            <dt>Status</dt>
            <dd>
              <span class="badge">{t.status_code}</span> {t.error_count > 0 && `${count(t.error_count)} errors`}
            </dd>
            <dt>Spans</dt>
            <dd>
              {count(t.span_count)} ({count(t.llm_call_count)} model calls, {count(t.tool_call_count)} tool calls)
            </dd>
            <dt>Tokens</dt>
            <dd>
              {count(t.input_tokens)} in, {count(t.output_tokens)} out
            </dd>
            <dt>Models</dt>
            <dd>{t.models_used.join(", ") || "—"}</dd>
            <dt>Evaluations</dt>
            <dd>{count(t.evaluation_count)}</dd>
            {t.conversation_id && (
              <>
                <dt>Conversation</dt>
                <dd class="mono">{t.conversation_id}</dd>
              </>
            )}
            {t.workflow_name && (
              <>
                <dt>Workflow</dt>
                <dd>{t.workflow_name}</dd>
              </>
            )}
          </dl>
        )}
      </Panel>
      <Panel title="Waterfall">
        <ErrorNote error={spans.error} />
        {spans.loading && !spans.data ? (
          <Loading />
        ) : rows.length === 0 ? (
          <p class="muted">No span of this trace is kept.</p>
        ) : (
          <div class="table-wrap">
            <table class="waterfall">
              <caption class="visually-hidden">Spans of trace {id}, each under its parent, with its start and duration</caption>
              <thead>
                <tr>
                  <th scope="col">Span</th>
                  <th scope="col" class="numeric">
                    Starts at
                  </th>
                  <th scope="col" class="numeric">
                    Duration
                  </th>
                  <th scope="col">Status</th>
                  <th scope="col" class="waterfall-timeline">
                    Timeline
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.span.span_id} data-span-id={row.span.span_id} class={row.span.span_id === highlighted ? "highlighted" : undefined}>
                    <td>
                      <div style={{ paddingLeft: `${row.depth * 1.25}rem` }}>
                        <span class="span-name">{row.span.span_name || "(unnamed)"}</span>
                        <details>
                          <summary>Attributes of {row.span.span_name || row.span.span_id}</summary>
                          <pre tabIndex={0}>{pretty(row.span)}</pre>
                        </details>
                      </div>
                    </td>
                    <td class="numeric">+{ms(row.offset)}</td>
                    <td class="numeric">{ms(row.length)}</td>
                    <td>
                      <span class="badge">{row.span.status_code}</span>
                    </td>
                    <td class="waterfall-timeline">
                      <div class="waterfall-track" aria-hidden="true">
                        <div class={`waterfall-bar${row.span.status_code === "Error" ? " error-bar" : ""}`} style={{ marginLeft: percent(row.offset), width: percent(Math.min(row.length, total - row.offset)) }} />
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Panel>
    </>
  );
}

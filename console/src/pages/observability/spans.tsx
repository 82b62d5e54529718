/**
 * Spans and traces searched with the expression language (POST /v1/observability/spans/search and
 * /traces/search, `search_expression`; docs/observability/engine.md): the expression and the window live in the
 * link (`#/observability/spans?q=…&window=1d`), a wrong expression shows the API's 422 message where it was
 * typed, and each result links to its trace.
 */
import { useEffect, useState } from "preact/hooks";
import { api, type Query, failureText } from "../../api.js";
import { href, navigate, type Location } from "../../router.js";
import { count, ms, when } from "../../ui/format.js";
import { Button, ErrorNote, Field, Loading, Panel, Table } from "../../ui/parts.js";
import { useResource } from "../../ui/use-resource.js";
import { fromOf, nsToMs, WINDOWS } from "./common.js";

export interface Span {
  trace_id: string;
  span_id: string;
  parent_span_id: string;
  start_time: string;
  end_time: string;
  duration_ns: number;
  span_name: string;
  span_kind: string;
  status_code: string;
  status_message: string;
  operation_name: string;
  request_model: string;
  response_model: string;
  service_name: string;
  usage_input_tokens: number;
  usage_output_tokens: number;
  span_attributes: Record<string, string>;
  resource_attributes: Record<string, string>;
  [field: string]: unknown;
}

interface TraceRow {
  trace_id: string;
  root_span_name: string;
  start_time: string;
  duration_ns: number;
  status_code: string;
  span_count: number;
  models_used: string[];
  service_name: string;
}

type Kind = "spans" | "traces";
interface Feed<T> {
  results: T[];
  cursor: string | null;
}

const EXAMPLES: Record<Kind, string> = {
  spans: "status_code = 'Error' OR request_model = 'mistral-small-latest'",
  traces: "has(models_used, 'mistral-small-latest') AND llm_call_count >= 1",
};

/** One search view: spans or traces, the expression from the link, a page at a time. */
export function SearchView({ kind, location }: { kind: Kind; location: Location }) {
  const expression = location.params.get("q") ?? "";
  const window = location.params.get("window") ?? "all";
  const [draft, setDraft] = useState({ expression, window });
  useEffect(() => setDraft({ expression, window }), [expression, window]);
  const [more, setMore] = useState<{ rows: Record<string, unknown>[]; cursor: string | null } | null>(null);
  const [moreError, setMoreError] = useState<string>();

  const search = (cursor: string | undefined, signal?: AbortSignal) => {
    const query: Query = { page_size: 50, from: fromOf(window), cursor };
    return api
      .post<Record<Kind, Feed<Record<string, unknown>>>>(`/v1/observability/${kind}/search`, { search_expression: expression.trim() || null }, query)
      .then((page) => page[kind]);
  };
  const first = useResource(
    () => {
      setMore(null);
      setMoreError(undefined);
      return search(undefined);
    },
    [kind, expression, window],
  );
  const rows = [...(first.data?.results ?? []), ...(more?.rows ?? [])];
  const cursor = more ? more.cursor : (first.data?.cursor ?? null);
  const loadMore = async () => {
    if (!cursor) return;
    try {
      const page = await search(cursor);
      setMore({ rows: [...(more?.rows ?? []), ...page.results], cursor: page.cursor });
    } catch (failure) {
      setMoreError(failureText(failure));
    }
  };

  const submit = (event: Event) => {
    event.preventDefault();
    navigate(href("observability", kind, { q: draft.expression.trim() || undefined, window: draft.window === "all" ? undefined : draft.window }));
  };

  const title = kind === "spans" ? "Span search" : "Trace search";
  return (
    <Panel title={title}>
      <form onSubmit={submit} aria-label={title}>
        <Field label="Search expression" id={`${kind}-expression`} hint={`For example: ${EXAMPLES[kind]}`}>
          <input
            id={`${kind}-expression`}
            class="mono wide"
            value={draft.expression}
            aria-invalid={first.error ? "true" : undefined}
            aria-describedby={first.error ? `${kind}-expression-error` : undefined}
            onInput={(e) => setDraft({ ...draft, expression: e.currentTarget.value })}
          />
        </Field>
        {first.error && (
          <p class="error" role="alert" id={`${kind}-expression-error`}>
            {failureText(first.error)}
          </p>
        )}
        <div class="row">
          <Field label="Window" id={`${kind}-window`}>
            <select id={`${kind}-window`} value={draft.window} onChange={(e) => setDraft({ ...draft, window: e.currentTarget.value })}>
              {WINDOWS.map((w) => (
                <option value={w.id}>{w.title}</option>
              ))}
            </select>
          </Field>
          <div class="field">
            <Button type="submit" kind="primary">
              Search
            </Button>
          </div>
        </div>
      </form>
      {first.loading && !first.data && !first.error ? (
        <Loading />
      ) : first.error ? null : kind === "spans" ? (
        <SpanTable rows={rows as unknown as Span[]} />
      ) : (
        <TraceTable rows={rows as unknown as TraceRow[]} />
      )}
      <ErrorNote error={moreError} />
      {cursor && !first.error && <Button onClick={loadMore}>Load more</Button>}
    </Panel>
  );
}

function SpanTable({ rows }: { rows: Span[] }) {
  return (
    <Table
      caption="Spans found, newest first"
      columns={[
        { title: "Time", cell: (s: Span) => <time dateTime={s.start_time}>{when(s.start_time)}</time> },
        { title: "Name", cell: (s) => <a href={href("observability", "traces", s.trace_id, { span: s.span_id })}>{s.span_name || "(unnamed)"}</a> },
        { title: "Model", cell: (s) => s.response_model || s.request_model || "—" },
        { title: "Duration", cell: (s) => ms(nsToMs(s.duration_ns)), numeric: true },
        { title: "Status", cell: (s) => <span class="badge">{s.status_code}</span> },
      ]}
      rows={rows}
      empty="No span matches."
    />
  );
}

function TraceTable({ rows }: { rows: TraceRow[] }) {
  return (
    <Table
      caption="Traces found, newest first"
      columns={[
        { title: "Time", cell: (t: TraceRow) => <time dateTime={t.start_time}>{when(t.start_time)}</time> },
        { title: "Root span", cell: (t) => <a href={href("observability", "traces", t.trace_id)}>{t.root_span_name || t.trace_id}</a> },
        { title: "Spans", cell: (t) => count(t.span_count), numeric: true },
        { title: "Models", cell: (t) => t.models_used.join(", ") || "—" },
        { title: "Duration", cell: (t) => ms(nsToMs(t.duration_ns)), numeric: true },
        { title: "Status", cell: (t) => <span class="badge">{t.status_code}</span> },
      ]}
      rows={rows}
      empty="No trace matches."
    />
  );
}

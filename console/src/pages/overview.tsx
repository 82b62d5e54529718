/**
 * Overview: this month's spend against the workspace's limit; requests, tokens and cost per day, per model and per
 * key (GET /v1/usage); errors and p95 latency per day from the spans (POST /v1/observability/spans/aggregate).
 */
import { useMemo } from "preact/hooks";
import { api } from "../api.js";
import { may } from "../session.js";
import { TimeChart, type Series } from "../ui/chart.js";
import { count, ms, usd } from "../ui/format.js";
import { ErrorNote, Loading, Page, Panel, Table } from "../ui/parts.js";
import { useResource } from "../ui/use-resource.js";
import type { PageProps } from "./index.js";

interface Spend {
  month: string;
  spent: number;
  currency: string;
  spend_limit: { value: number | null; no_monthly_limit: boolean | null } | null;
  limit_reached: boolean;
  soft_limit: number | null;
}

interface UsageRow {
  day: string | null;
  model: string | null;
  key_id: string | null;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
}

interface UsageReport {
  from: string;
  to: string;
  data: UsageRow[];
  total: Omit<UsageRow, "day" | "model" | "key_id">;
}

interface Aggregation {
  data: { time_bucket: string | null; dimensions: Record<string, unknown>; metric_value: number | null }[];
}

/** The last 30 days, as the report's `from`/`to` (UTC dates). */
function window30(): { from: string; to: string; days: string[] } {
  const today = new Date();
  const days = Array.from({ length: 30 }, (_, i) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - 29 + i)).toISOString().slice(0, 10));
  return { from: days[0]!, to: days[29]!, days };
}

/** One series per value of `by` (the top few, the rest summed as "other"), over the days. */
function seriesBy(rows: UsageRow[], by: "model" | "key_id", measure: (row: UsageRow) => number, days: string[], top = 6): Series[] {
  const totals = new Map<string, number>();
  for (const row of rows) totals.set(row[by] ?? "—", (totals.get(row[by] ?? "—") ?? 0) + measure(row));
  const kept = [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name]) => name);
  const label = (row: UsageRow) => (kept.includes(row[by] ?? "—") ? (row[by] ?? "—") : "other");
  const labels = [...kept, ...(totals.size > top ? ["other"] : [])];
  return labels.map((name) => ({
    label: name,
    values: days.map((day) => rows.filter((r) => r.day === day && label(r) === name).reduce((sum, r) => sum + measure(r), 0)),
  }));
}

const tokens = (row: UsageRow) => row.prompt_tokens + row.completion_tokens;

export function Overview({ identity }: PageProps) {
  const period = useMemo(window30, []);
  const usage = may(identity, "usage:read");
  const spans = may(identity, "observability:read");

  const spend = useResource((signal) => (usage ? api.get<Spend>("/v1/usage/spend", undefined, signal) : Promise.resolve(undefined)), [usage]);
  const byModel = useResource((signal) => (usage ? api.get<UsageReport>("/v1/usage", { from: period.from, to: period.to, group_by: "day,model" }, signal) : Promise.resolve(undefined)), [usage]);
  const byKey = useResource((signal) => (usage ? api.get<UsageReport>("/v1/usage", { from: period.from, to: period.to, group_by: "day,key" }, signal) : Promise.resolve(undefined)), [usage]);
  const health = useResource(async () => {
    if (!spans) return undefined;
    const from = `${period.from}T00:00:00Z`;
    const [errors, latency] = await Promise.all([
      api.post<Aggregation>("/v1/observability/spans/aggregate", { metric: { measure: "span_id", aggregation: "count" }, dimensions: ["status_code"], time_dimension: { granularity: "day" } }, { from }),
      api.post<Aggregation>("/v1/observability/spans/aggregate", { metric: { measure: "duration_ns", aggregation: "p95" }, time_dimension: { granularity: "day" } }, { from }),
    ]);
    return { errors, latency };
  }, [spans]);

  const modelRows = byModel.data?.data ?? [];
  const keyRows = byKey.data?.data ?? [];
  const charts = useMemo(
    () => ({
      requests: seriesBy(modelRows, "model", (r) => r.requests, period.days),
      tokens: seriesBy(modelRows, "model", tokens, period.days),
      cost: seriesBy(modelRows, "model", (r) => r.cost, period.days),
      keys: seriesBy(keyRows, "key_id", (r) => r.cost, period.days),
    }),
    [byModel.data, byKey.data],
  );
  const healthSeries = useMemo(() => {
    if (!health.data) return undefined;
    const dayOf = (bucket: string | null) => (bucket ?? "").slice(0, 10);
    const errors: Series = { label: "errors", values: period.days.map((d) => health.data!.errors.data.filter((r) => dayOf(r.time_bucket) === d && r.dimensions.status_code === "Error").reduce((s, r) => s + (r.metric_value ?? 0), 0)) };
    const spansPerDay: Series = { label: "spans", values: period.days.map((d) => health.data!.errors.data.filter((r) => dayOf(r.time_bucket) === d).reduce((s, r) => s + (r.metric_value ?? 0), 0)) };
    const p95: Series = { label: "p95 latency (ms)", values: period.days.map((d) => { const row = health.data!.latency.data.find((r) => dayOf(r.time_bucket) === d); return row?.metric_value == null ? null : row.metric_value / 1e6; }) };
    return { counts: [spansPerDay, errors], p95: [p95] };
  }, [health.data]);

  const limit = spend.data?.spend_limit?.value ?? null;
  return (
    <Page title="Overview">
      {usage && (
        <Panel title="This month's spend">
          {spend.error ? <ErrorNote error={spend.error} /> : !spend.data ? <Loading /> : (
            <div>
              <p>
                <span class="stat" data-testid="spend">{usd(spend.data.spent)}</span>{" "}
                <span class="muted">{limit === null ? "no monthly limit" : `of ${usd(limit)} (${spend.data.month})`}</span>
              </p>
              {limit !== null && limit > 0 && (
                <div class="meter" role="meter" aria-label="Spend against the limit" aria-valuemin={0} aria-valuemax={limit} aria-valuenow={spend.data.spent}>
                  <div style={{ width: `${Math.min(100, (spend.data.spent / limit) * 100)}%` }} />
                </div>
              )}
              {spend.data.limit_reached && <p class="error">The monthly limit is reached: model calls are refused until it is raised.</p>}
            </div>
          )}
        </Panel>
      )}
      {usage && (
        <Panel title="Last 30 days">
          <ErrorNote error={byModel.error ?? byKey.error} />
          {byModel.loading && !byModel.data ? <Loading /> : (
            <>
              <p>
                <span class="stat">{count(byModel.data?.total.requests)}</span> requests ·{" "}
                <span class="stat">{count((byModel.data?.total.prompt_tokens ?? 0) + (byModel.data?.total.completion_tokens ?? 0))}</span> tokens ·{" "}
                <span class="stat">{usd(byModel.data?.total.cost)}</span>
              </p>
              <div class="panels">
                <TimeChart title="Requests per day, by model" days={period.days} series={charts.requests} />
                <TimeChart title="Tokens per day, by model" days={period.days} series={charts.tokens} />
                <TimeChart title="Cost per day, by model" days={period.days} series={charts.cost} format={usd} />
                <TimeChart title="Cost per day, by key" days={period.days} series={charts.keys} format={usd} />
              </div>
              <Table
                caption="Usage by model over the last 30 days"
                columns={[
                  { title: "Model", cell: (r: { model: string; requests: number; tokens: number; cost: number }) => r.model },
                  { title: "Requests", cell: (r) => count(r.requests), numeric: true },
                  { title: "Tokens", cell: (r) => count(r.tokens), numeric: true },
                  { title: "Cost", cell: (r) => usd(r.cost), numeric: true },
                ]}
                rows={totalsByModel(modelRows)}
                empty="No model calls in the last 30 days."
              />
            </>
          )}
        </Panel>
      )}
      {spans && (
        <Panel title="Errors and latency">
          <ErrorNote error={health.error} />
          {!healthSeries ? (health.loading ? <Loading /> : null) : (
            <div class="panels">
              <TimeChart title="Spans and errors per day" days={period.days} series={healthSeries.counts} kind="lines" />
              <TimeChart title="p95 span duration per day" days={period.days} series={healthSeries.p95} kind="lines" format={ms} />
            </div>
          )}
        </Panel>
      )}
    </Page>
  );
}

function totalsByModel(rows: UsageRow[]) {
  const totals = new Map<string, { model: string; requests: number; tokens: number; cost: number }>();
  for (const row of rows) {
    const name = row.model ?? "—";
    const total = totals.get(name) ?? { model: name, requests: 0, tokens: 0, cost: 0 };
    total.requests += row.requests;
    total.tokens += tokens(row);
    total.cost += row.cost;
    totals.set(name, total);
  }
  return [...totals.values()].sort((a, b) => b.cost - a.cost);
}

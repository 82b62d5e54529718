/**
 * The engine's routes over HTTP against the embedded servers, on DuckDB over files appendTelemetry wrote:
 * the span-evaluation aggregate (not in the SDK), the error bodies, and workspace isolation.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { appendTelemetry } from "../../../shared/blobs/telemetry.js";
import { useEmbeddedApi } from "../../support/api.js";
import { filesClient } from "../../support/files-client.js";
import { anEvaluationRow, aSpanRow } from "../../support/telemetry-rows.js";
import { newTenant, type TestTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
const http = filesClient(api, tenant);
let other: TestTenant;
const now = Date.now();
const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
const window = { from: new Date(now - 86_400_000).toISOString() };

beforeAll(async () => {
  other = await newTenant();
  const ws = tenant.caller.workspace;
  await appendTelemetry("span_evaluations", [
    anEvaluationRow(ws, { evaluation_name: "helpfulness", score_value: 0.5, timestamp: at(30) }),
    anEvaluationRow(ws, { evaluation_name: "helpfulness", score_value: 1, timestamp: at(20) }),
    anEvaluationRow(ws, { evaluation_name: "toxicity", score_value: 0.1, timestamp: at(10) }),
  ]);
  await appendTelemetry("spans", [aSpanRow(ws, { start_time: at(5), span_name: "mine" }), aSpanRow(other.caller.workspace, { start_time: at(5), span_name: "theirs" })]);
});

describe("POST /v1/observability/spans/evaluations/aggregate", () => {
  it("averages scores by evaluation name (HTTP: the SDK has no call for it)", async () => {
    const reply = await http.request("POST", "/v1/observability/spans/evaluations/aggregate", { query: window, json: { metric: { measure: "score_value", aggregation: "avg" }, dimensions: ["evaluation_name"], order_by: [{ field: "metric_value", direction: "desc" }] } });
    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({
      data: [
        { time_bucket: null, dimensions: { evaluation_name: "helpfulness" }, metric_name: "avg(score_value)", metric_value: 0.75 },
        { time_bucket: null, dimensions: { evaluation_name: "toxicity" }, metric_name: "avg(score_value)", metric_value: 0.1 },
      ],
      meta: { from_timestamp: window.from, to_timestamp: expect.any(String), granularity_seconds: null },
    });
  });

  it("buckets with auto granularity and reports it", async () => {
    const reply = await http.request("POST", "/v1/observability/spans/evaluations/aggregate", { query: window, json: { metric: { measure: "score_value", aggregation: "count" }, time_dimension: { granularity: "auto" } } });
    expect((reply.body as { meta: { granularity_seconds: number } }).meta.granularity_seconds).toBe(3600);
  });
});

describe("POST /v1/observability/spans/search", () => {
  it("shows a workspace only its own spans, whatever the expression says about workspace_id", async () => {
    const mine = await http.request("POST", "/v1/observability/spans/search", { json: { search_expression: `workspace_id = '${other.caller.workspace}' OR span_name = 'mine'` } });
    expect((mine.body as { spans: { results: { span_name: string }[] } }).spans.results.map((s) => s.span_name)).toStrictEqual(["mine"]);
    const theirs = await filesClient(api, other).request("POST", "/v1/observability/spans/search", { json: {} });
    expect((theirs.body as { spans: { results: { span_name: string }[] } }).spans.results.map((s) => s.span_name)).toStrictEqual(["theirs"]);
  });

  it("answers a bad expression 422 in the observability envelope; the body may be left out", async () => {
    const bad = await http.request("POST", "/v1/observability/spans/search", { json: { search_expression: "span_name = 'x' AND (" } });
    expect(bad.status).toBe(422);
    expect(bad.body).toStrictEqual({ detail: { message: expect.stringMatching(/^search_expression at position 21: expected a field name/), error_code: "SEARCH_BAD_REQUEST" } });
    const bare = await http.request("POST", "/v1/observability/spans/search");
    expect(bare.status).toBe(200);
  });
});

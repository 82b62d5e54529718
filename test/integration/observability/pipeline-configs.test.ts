/**
 * Evaluation pipelines (docs/observability/pipelines.md) over HTTP against the embedded servers: configurations
 * stored in DynamoDB Local, sweeps reading the spans the platform's own model calls wrote (DuckDB over this file's
 * telemetry directory) and writing span evaluations the search routes then find.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { filesClient } from "../../support/files-client.js";
import { aJudgePipelineBody, aPipelineBody, pipelinesClient } from "../../support/pipelines-client.js";
import { useTelemetryDir } from "../../support/telemetry-dir.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
const pipelines = pipelinesClient(api, tenant);
const http = filesClient(api, tenant);
// The embedded server runs the handlers in this process: spans and evaluations land in this file's telemetry directory.
useTelemetryDir();

// Spans are swept as soon as they are written (the default leaves a minute for calls still running).
let settle: string | undefined;
beforeAll(() => {
  settle = process.env.PIPELINE_SETTLE_SECONDS;
  process.env.PIPELINE_SETTLE_SECONDS = "0";
});
afterAll(() => {
  if (settle === undefined) delete process.env.PIPELINE_SETTLE_SECONDS;
  else process.env.PIPELINE_SETTLE_SECONDS = settle;
});

const chat = async (content: string) => {
  const reply = await http.request("POST", "/v1/chat/completions", { json: { model: "mistral-small-latest", messages: [{ role: "user", content }] } });
  expect(reply.status).toBe(200);
};
const evaluationsNamed = async (name: string) => {
  const reply = await http.request("POST", "/v1/observability/spans/evaluations/search", { json: { search_expression: `evaluation_name = '${name}'`, page_size: 100 } });
  expect(reply.status).toBe(200);
  return reply.body.span_evaluations.results as Record<string, any>[];
};
/** Spans are written after the answer: wait until the workspace's search sees `n` chat spans. */
const spansWritten = async (n: number) => {
  for (let i = 0; i < 100; i += 1) {
    const reply = await http.request("POST", "/v1/observability/spans/search", { json: { search_expression: "operation_name = 'chat'", page_size: 100 } });
    if (reply.body.spans?.results.length >= n) return reply.body.spans.results as Record<string, any>[];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`fewer than ${n} spans were written`);
};

describe("POST /v1/observability/pipeline-configs/{pipeline_config_id}/run", () => {
  it("sweeps the spans of model calls made after the pipelines: detection and judge evaluations found by the search route, none twice", async () => {
    const detection = (await pipelines.create(aPipelineBody({ name: "email finder" }))).body;
    const judge = (await pipelines.create(aJudgePipelineBody({ name: "helpful judge" }))).body;
    expect(detection.id).toBeDefined();
    expect(judge.id).toBeDefined();
    await chat("write to ada@example.com please");
    await chat("nothing personal here");
    const spans = await spansWritten(2);

    const detected = await pipelines.run(detection.id);
    expect(detected.status).toBe(200);
    expect(detected.body).toMatchObject({ pipeline_config_id: detection.id, spans_read: 2, logs_read: 0, evaluations_written: 2, failed: 0, failures: [], has_more: false });
    const judged = await pipelines.run(judge.id);
    expect(judged.body).toMatchObject({ spans_read: 2, evaluations_written: 2, failed: 0 });

    const found = await evaluationsNamed("email finder");
    expect(found.map((e) => e.score_label).sort()).toEqual(["clean", "detected"]);
    // Found in the question and in the offline model's echo of it: one detection per target.
    expect(found.find((e) => e.score_label === "detected")).toMatchObject({ score_value: 2, metadata: expect.objectContaining({ source: "evaluation_pipeline", pipeline_config_id: detection.id, patterns: "email" }) });
    expect(found.map((e) => e.span_id).sort()).toEqual(spans.map((s) => s.span_id).sort());
    // The offline model answers the smallest value the judge allows.
    expect((await evaluationsNamed("helpful judge")).map((e) => e.score_value)).toEqual([0, 0]);
    const trace = await http.request("GET", `/v1/observability/traces/${spans[0]!.trace_id}`);
    expect(trace.body.evaluation_count).toBe(2);

    // The judge's own model calls are spans too, but a sweep never reads them; what was swept is not swept again.
    await spansWritten(4);
    expect((await pipelines.run(detection.id)).body).toMatchObject({ spans_read: 0, evaluations_written: 0 });
    expect((await pipelines.run(judge.id)).body).toMatchObject({ spans_read: 0, evaluations_written: 0 });
    expect(await evaluationsNamed("email finder")).toHaveLength(2);
  });

  it("answers 404 PIPELINE_CONFIG_NOT_FOUND to another workspace, which sees none of the evaluations", async () => {
    const mine = await pipelines.created();
    const other = pipelinesClient(api, await newTenant());

    const run = await other.run(mine.id);
    expect(run.status).toBe(404);
    expect(run.body.detail.error_code).toBe("PIPELINE_CONFIG_NOT_FOUND");
    expect((await other.get(mine.id)).status).toBe(404);
    expect((await other.list()).body.pipeline_configs).toMatchObject({ count: 0, results: [] });
    const search = await other.request("POST", "/v1/observability/spans/evaluations/search", { json: { page_size: 100 } });
    expect(search.body.span_evaluations.results).toEqual([]);
  });
});

describe("POST /v1/observability/pipeline-configs", () => {
  it("stores a detection pipeline that get and list then show", async () => {
    const created = await pipelines.create(aPipelineBody({ name: "listed pipeline", group: "pii" }));

    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ scope: "workspace", workspace_id: tenant.caller.workspace, pipeline_kind: "detection", enabled: true, deleted_at: null, definition_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((await pipelines.get(created.body.id)).body).toEqual(created.body);
    expect((await pipelines.list({ group: "pii" })).body.pipeline_configs).toMatchObject({ count: 1, results: [{ id: created.body.id }] });
  });

  it.each([
    ["an export pipeline", aPipelineBody({ pipeline_kind: "export", definition: { destination: { protocol: "http/json", endpoint: "https://collector.example/v1/traces" } } }), "FEATURE_NOT_SUPPORTED"],
    ["a metric source", aPipelineBody({ selectors: [{ source_kind: "metric", filter: null }] }), "VALIDATION_ERROR"],
    ["a filter that does not parse", aPipelineBody({ selectors: [{ source_kind: "span", filter: "colour = 'red'" }] }), "VALIDATION_ERROR"],
    ["a regex with a backreference", aPipelineBody({ definition: { target_attributes: ["input_messages"], patterns: [{ name: "twice", regex: "(a)\\1", category: "x", confidence: "low" }] } }), "VALIDATION_ERROR"],
    ["a judge on an unknown model", aJudgePipelineBody({ definition: { model: "no-such-model", prompt: "x" } }), "VALIDATION_ERROR"],
  ])("refuses %s with 422 %s", async (_what, body, code) => {
    const reply = await pipelines.create(body);

    expect(reply.status).toBe(422);
    expect(reply.body.detail.error_code).toBe(code);
  });
});

describe("PUT /v1/observability/pipeline-configs/{pipeline_config_id}", () => {
  it("replaces the configuration, enabled included", async () => {
    const created = await pipelines.created();

    const updated = await pipelines.update(created.id, aPipelineBody({ name: "renamed", enabled: false }));

    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.id, name: "renamed", enabled: false, created_at: created.created_at });
    expect((await pipelines.list({ enabled: "false", q: "renamed" })).body.pipeline_configs.count).toBe(1);
  });
});

describe("DELETE /v1/observability/pipeline-configs/{pipeline_config_id}", () => {
  it("deletes it: a second delete is a 404", async () => {
    const created = await pipelines.created();

    expect((await pipelines.remove(created.id)).status).toBe(204);
    expect((await pipelines.remove(created.id)).status).toBe(404);
  });
});

describe("GET /v1/observability/pipeline-configs", () => {
  it("filters by kind", async () => {
    await pipelines.created({ pipeline_kind: "moderation", definition: {} });

    const listed = await pipelines.list({ pipeline_kind: "moderation" });

    expect(listed.status).toBe(200);
    expect(listed.body.pipeline_configs.results.every((p: { pipeline_kind: string }) => p.pipeline_kind === "moderation")).toBe(true);
    expect(listed.body.pipeline_configs.results[0].definition).toEqual({ model: "mistral-moderation-latest" });
  });
});

describe("GET /v1/observability/pipeline-configs/{pipeline_config_id}", () => {
  it("answers 422 to an id that is not a UUID", async () => {
    expect((await pipelines.get("not-a-uuid")).status).toBe(422);
  });
});

import { createHash, randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { handler as createPipeline } from "../../../functions/observability/create-pipeline-config.js";
import { handler as deletePipeline } from "../../../functions/observability/delete-pipeline-config.js";
import { handler as getPipeline } from "../../../functions/observability/get-pipeline-config.js";
import { handler as listPipelines } from "../../../functions/observability/list-pipeline-configs.js";
import { handler as runPipeline } from "../../../functions/observability/run-pipeline-config.js";
import { handler as updatePipeline } from "../../../functions/observability/update-pipeline-config.js";
import { handler as sweepPipelines } from "../../../functions/engine/pipeline-sweep.js";
import { appendTelemetry } from "../../../shared/blobs/telemetry.js";
import type { Caller } from "../../../shared/domain/caller.js";
import { canonicalJson, type PipelineConfig } from "../../../shared/domain/observability/pipelines.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, aModelEntry, aModelItem, anEvent, invoke } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { aJudgePipelineBody, aPipelineBody, anEmailPattern } from "../../support/pipelines-client.js";
import { useTelemetryDir } from "../../support/telemetry-dir.js";
import { aLogRow, aSpanRow, messages } from "../../support/telemetry-rows.js";

const dynamo = mockDynamo();
const small = aModelEntry({ id: "mistral-small-latest", endpoints: ["chat"], tokenizer: "v3" });
const moderation = aModelEntry({ id: "mistral-moderation-latest", endpoints: ["moderations"], upstream: "offline-keyword-moderation", capabilities: { function_calling: false, vision: false, fine_tuning: false, classification: true } });
let tables: FakeTables;
const telemetry = useTelemetryDir();
beforeEach(() => {
  tables = serveTables(dynamo, { models: [aModelItem(small), aModelItem(moderation)] }, { writes: true });
});
afterEach(() => {
  for (const kind of ["spans", "logs", "span_evaluations"]) rmSync(join(telemetry.dir, kind), { recursive: true, force: true });
});

const caller = aCaller();
const base = "/v1/observability/pipeline-configs";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();

/** A stored configuration of `owner` (created ten minutes ago: the spans of the tests start after it). */
const seeded = (overrides: Partial<PipelineConfig> = {}, owner: Caller = caller): PipelineConfig => {
  const config: PipelineConfig = {
    workspace: owner.workspace,
    organization: owner.organization,
    id: randomUUID(),
    ownerId: owner.principal,
    createdAt: minutesAgo(10),
    updatedAt: minutesAgo(10),
    name: "pii detection",
    description: null,
    slug: null,
    group: null,
    pipelineKind: "detection",
    selectors: [{ source_kind: "span", filter: null }],
    enabled: true,
    definition: { target_attributes: ["input_messages", "output_messages"], patterns: [anEmailPattern] },
    definitionHash: "0".repeat(64),
    ...overrides,
  };
  tables.put("datasets", {
    ...config,
    revision: 1,
    pk: `WS#${config.workspace}`,
    sk: `PIPELINE#${config.id}`,
    parentKey: `${config.workspace}#PIPELINES`,
    createdKey: `${config.createdAt}#${config.id}`,
  });
  if (config.enabled) tables.put("datasets", { pk: "PIPELINES#ENABLED", sk: `${config.workspace}#${config.id}`, workspace: config.workspace, id: config.id });
  return config;
};
const items = (prefix: string) => tables.items("datasets").filter((item) => String(item.sk).startsWith(prefix) || String(item.pk).startsWith(prefix));

describe("POST /v1/observability/pipeline-configs", () => {
  const create = (body: unknown, who = caller) => aJsonEvent(body, { path: base, caller: who });

  it("stores the configuration with its definition's hash, lists it as enabled, and answers 201 PipelineConfig", async () => {
    const response = await invoke(createPipeline, create(aPipelineBody({ slug: "pii", group: "safety" })));

    expect(response.statusCode).toBe(201);
    const body = aPipelineBody();
    expect(response.json).toEqual({
      id: expect.any(String),
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      deleted_at: null,
      scope: "workspace",
      workspace_id: caller.workspace,
      name: body.name,
      description: body.description,
      slug: "pii",
      group: "safety",
      pipeline_kind: "detection",
      selectors: [{ source_kind: "span", filter: null }],
      enabled: true,
      definition_hash: createHash("sha256").update(canonicalJson(body.definition)).digest("hex"),
      definition: body.definition,
    });
    expect(items("PIPELINE#")).toEqual([expect.objectContaining({ pk: `WS#${caller.workspace}`, sk: `PIPELINE#${response.json.id}`, parentKey: `${caller.workspace}#PIPELINES`, revision: 1 })]);
    expect(items("PIPELINES#ENABLED")).toEqual([{ pk: "PIPELINES#ENABLED", sk: `${caller.workspace}#${response.json.id}`, workspace: caller.workspace, id: response.json.id }]);
  });

  it("fills a moderation definition's model and keeps a disabled pipeline off the sweep's list", async () => {
    const response = await invoke(createPipeline, create(aPipelineBody({ pipeline_kind: "moderation", definition: {}, enabled: false })));

    expect(response.statusCode).toBe(201);
    expect(response.json.definition).toEqual({ model: "mistral-moderation-latest" });
    expect(items("PIPELINES#ENABLED")).toEqual([]);
  });

  it.each([
    ["an export pipeline (this deployment runs none)", "FEATURE_NOT_SUPPORTED", aPipelineBody({ pipeline_kind: "export", definition: { destination: { protocol: "http/json", endpoint: "https://collector.example" } } })],
    ["a metric source", "VALIDATION_ERROR", aPipelineBody({ selectors: [{ source_kind: "metric", filter: null }] })],
    ["a span filter naming an unknown field", "VALIDATION_ERROR", aPipelineBody({ selectors: [{ source_kind: "span", filter: "colour = 'red'" }] })],
    ["a log filter naming a span field", "VALIDATION_ERROR", aPipelineBody({ selectors: [{ source_kind: "log", filter: "request_model = 'x'" }] })],
    ["no selector", "VALIDATION_ERROR", aPipelineBody({ selectors: [] })],
    ["a judge's definition on a detection pipeline", "VALIDATION_ERROR", aPipelineBody({ definition: { model: "mistral-small-latest", prompt: "x" } })],
    ["a judge's prompt in a moderation definition", "VALIDATION_ERROR", aPipelineBody({ pipeline_kind: "moderation", definition: { model: "mistral-moderation-latest", prompt: "x" } })],
    ["a regex with a backreference", "VALIDATION_ERROR", aPipelineBody({ definition: { target_attributes: ["input_messages"], patterns: [{ ...anEmailPattern, regex: "(a)\\1" }] } })],
    ["a regex with lookahead", "VALIDATION_ERROR", aPipelineBody({ definition: { target_attributes: ["input_messages"], patterns: [{ ...anEmailPattern, regex: "a(?=b)" }] } })],
    ["a judge on an unknown model", "VALIDATION_ERROR", aJudgePipelineBody({ definition: { model: "no-such-model", prompt: "x" } })],
    ["a judge on a moderation model", "VALIDATION_ERROR", aJudgePipelineBody({ definition: { model: "mistral-moderation-latest", prompt: "x" } })],
    ["moderation on a chat model", "VALIDATION_ERROR", aPipelineBody({ pipeline_kind: "moderation", definition: { model: "mistral-small-latest" } })],
    ["an unknown kind", "VALIDATION_ERROR", aPipelineBody({ pipeline_kind: "ranking" })],
  ])("refuses %s with 422 %s, storing nothing", async (_what, code, body) => {
    const response = await invoke(createPipeline, create(body));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail.error_code).toBe(code);
    expect(items("PIPELINE")).toEqual([]);
  });

  it("names the selector's filter and the position in a bad filter's message", async () => {
    const response = await invoke(createPipeline, create(aPipelineBody({ selectors: [{ source_kind: "span", filter: null }, { source_kind: "span", filter: "status_code = 'Error' AND colour = 1" }] })));

    expect(response.json.detail.message).toContain("selectors.1.filter");
    expect(response.json.detail.message).toContain("position 26");
  });

  it("answers 403 to a viewer (observability:read only)", async () => {
    const response = await invoke(createPipeline, create(aPipelineBody(), { ...caller, roles: ["observability_viewer"] }));

    expect(response.statusCode).toBe(403);
    expect(items("PIPELINE")).toEqual([]);
  });
});

describe("GET /v1/observability/pipeline-configs", () => {
  it("pages the workspace's configurations oldest first, with links, never another workspace's", async () => {
    const first = seeded({ createdAt: minutesAgo(3) });
    seeded({ createdAt: minutesAgo(2), pipelineKind: "moderation", definition: { model: "mistral-moderation-latest" } });
    seeded({}, aCaller());

    const response = await invoke(listPipelines, anEvent({ path: base, query: { page_size: "1" }, caller }));

    expect(response.statusCode).toBe(200);
    expect(response.json.pipeline_configs).toEqual({ results: [expect.objectContaining({ id: first.id })], count: 2, next: `${base}?page=2&page_size=1`, previous: null });
  });

  it("filters by kind, group and enabled (the query's FilterExpression)", async () => {
    await invoke(listPipelines, anEvent({ path: base, query: { pipeline_kind: "judge", group: "g", enabled: "false", q: "x" }, caller }));

    const query = dynamo.commandCalls((await import("@aws-sdk/lib-dynamodb")).QueryCommand).at(-1)!.args[0].input;
    expect(query.FilterExpression).toBe("#pipelineKind = :pipelineKind AND #group = :group AND #enabled = :enabled AND contains(#name, :q)");
    expect(query.ExpressionAttributeValues).toMatchObject({ ":pipelineKind": "judge", ":group": "g", ":enabled": false, ":q": "x" });
  });
});

describe("GET /v1/observability/pipeline-configs/{pipeline_config_id}", () => {
  it("answers the configuration", async () => {
    const config = seeded();

    const response = await invoke(getPipeline, anEvent({ path: `${base}/${config.id}`, pathParameters: { pipeline_config_id: config.id }, caller }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: config.id, name: config.name, workspace_id: caller.workspace, enabled: true });
  });

  it("answers 404 PIPELINE_CONFIG_NOT_FOUND for another workspace's id", async () => {
    const theirs = seeded({}, aCaller());

    const response = await invoke(getPipeline, anEvent({ path: `${base}/${theirs.id}`, pathParameters: { pipeline_config_id: theirs.id }, caller }));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail.error_code).toBe("PIPELINE_CONFIG_NOT_FOUND");
  });
});

describe("PUT /v1/observability/pipeline-configs/{pipeline_config_id}", () => {
  const put = (id: string, body: unknown, who = caller) => aJsonEvent(body, { method: "PUT", path: `${base}/${id}`, pathParameters: { pipeline_config_id: id }, caller: who });

  it("replaces the whole configuration at the next revision: turned off, it leaves the sweep's list", async () => {
    const config = seeded();

    const response = await invoke(updatePipeline, put(config.id, aJudgePipelineBody({ name: "judge now", enabled: false })));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: config.id, name: "judge now", pipeline_kind: "judge", enabled: false, created_at: config.createdAt, definition: { model: "mistral-small-latest", prompt: "Is the answer helpful?" } });
    expect(items("PIPELINE#")).toEqual([expect.objectContaining({ revision: 2, enabled: false, pipelineKind: "judge" })]);
    expect(items("PIPELINES#ENABLED")).toEqual([]);
  });

  it("answers 404 for another workspace's id and changes nothing", async () => {
    const theirs = seeded({}, aCaller());

    const response = await invoke(updatePipeline, put(theirs.id, aPipelineBody({ name: "mine now" })));

    expect(response.statusCode).toBe(404);
    expect(items("PIPELINE#")).toEqual([expect.objectContaining({ name: "pii detection", revision: 1 })]);
  });

  it("refuses a body without enabled (PUT replaces everything)", async () => {
    const config = seeded();
    const { enabled: _enabled, ...body } = aPipelineBody();

    expect((await invoke(updatePipeline, put(config.id, body))).statusCode).toBe(422);
  });
});

describe("DELETE /v1/observability/pipeline-configs/{pipeline_config_id}", () => {
  const remove = (id: string, who = caller) => anEvent({ method: "DELETE", path: `${base}/${id}`, pathParameters: { pipeline_config_id: id }, caller: who });

  it("deletes the configuration, its sweep state and its place on the sweep's list: 204, then 404", async () => {
    const config = seeded();
    tables.put("datasets", { pk: `WS#${caller.workspace}`, sk: `PIPELINEMARK#${config.id}`, watermarks: {} });

    expect((await invoke(deletePipeline, remove(config.id))).statusCode).toBe(204);
    expect(items("PIPELINE")).toEqual([]);
    expect((await invoke(deletePipeline, remove(config.id))).statusCode).toBe(404);
  });

  it("answers 404 for another workspace's id and deletes nothing", async () => {
    const theirs = seeded({}, aCaller());

    expect((await invoke(deletePipeline, remove(theirs.id))).statusCode).toBe(404);
    expect(items("PIPELINE#")).toHaveLength(1);
  });
});

describe("POST /v1/observability/pipeline-configs/{pipeline_config_id}/run", () => {
  const run = (id: string, who = caller) => anEvent({ method: "POST", path: `${base}/${id}/run`, pathParameters: { pipeline_config_id: id }, caller: who });
  const mark = (id: string) => tables.items("datasets").find((item) => item.sk === `PIPELINEMARK#${id}`);

  it("evaluates the matching spans after the watermark, oldest first, files each as a span evaluation and moves the watermark", async () => {
    const config = seeded({ selectors: [{ source_kind: "span", filter: "request_model = 'mistral-small-latest'" }] });
    const leaked = aSpanRow(caller.workspace, { start_time: minutesAgo(5), input_messages: messages("user", "mail bob@example.org") });
    const clean = aSpanRow(caller.workspace, { start_time: minutesAgo(4) });
    const other = aSpanRow(caller.workspace, { start_time: minutesAgo(4), request_model: "other-model", input_messages: messages("user", "x@y.io") });
    const before = aSpanRow(caller.workspace, { start_time: minutesAgo(20), input_messages: messages("user", "old@example.org") });
    await appendTelemetry("spans", [leaked, clean, other, before, aSpanRow(aCaller().workspace, { start_time: minutesAgo(5) })]);

    const response = await invoke(runPipeline, run(config.id));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ pipeline_config_id: config.id, spans_read: 2, logs_read: 0, evaluations_written: 2, failed: 0, failures: [], has_more: false });
    const written = telemetry.evaluations(caller.workspace);
    expect(written.map((e) => [e.span_id, e.score_label, e.score_value])).toEqual([
      [leaked.span_id, "detected", 1],
      [clean.span_id, "clean", 0],
    ]);
    expect(written[0]).toMatchObject({ evaluation_name: "pii detection", trace_id: leaked.trace_id, explanation: "email (pii, high) in input_messages", metadata: { source: "evaluation_pipeline", pipeline_config_id: config.id, pipeline_kind: "detection", patterns: "email", categories: "pii" } });
    expect(mark(config.id)).toMatchObject({ watermarks: { span: { time: clean.start_time } } });
    expect(mark(config.id)!.lease).toBeUndefined();

    const again = await invoke(runPipeline, run(config.id));
    expect(again.json).toMatchObject({ spans_read: 0, evaluations_written: 0 });
    expect(telemetry.evaluations(caller.workspace)).toHaveLength(2);
  });

  it("takes at most the sweep's bound and says more are left", async () => {
    const config = seeded();
    await appendTelemetry("spans", [1, 2, 3].map((n) => aSpanRow(caller.workspace, { start_time: minutesAgo(6 - n) })));
    process.env.PIPELINE_SWEEP_LIMIT = "2";
    try {
      expect((await invoke(runPipeline, run(config.id))).json).toMatchObject({ spans_read: 2, has_more: true });
      expect((await invoke(runPipeline, run(config.id))).json).toMatchObject({ spans_read: 1, has_more: false });
    } finally {
      delete process.env.PIPELINE_SWEEP_LIMIT;
    }
  });

  it("moderates log bodies with the moderation model", async () => {
    const config = seeded({ pipelineKind: "moderation", selectors: [{ source_kind: "log", filter: "severity_text = 'ERROR'" }], definition: { model: "mistral-moderation-latest" } });
    await appendTelemetry("logs", [aLogRow(caller.workspace, { timestamp: minutesAgo(5), severity_text: "ERROR", body: "a plain message" }), aLogRow(caller.workspace, { timestamp: minutesAgo(5), severity_text: "INFO" })]);

    const response = await invoke(runPipeline, run(config.id));

    expect(response.json).toMatchObject({ spans_read: 0, logs_read: 1, evaluations_written: 1, failed: 0 });
    expect(telemetry.evaluations(caller.workspace)).toEqual([expect.objectContaining({ evaluation_name: "pii detection", metadata: expect.objectContaining({ pipeline_kind: "moderation", source_kind: "log", moderation_model: "mistral-moderation-latest" }) })]);
  });

  it("lets one of two concurrent runs sweep: the other answers 409, and no span is evaluated twice", async () => {
    const config = seeded();
    await appendTelemetry("spans", [aSpanRow(caller.workspace, { start_time: minutesAgo(5) }), aSpanRow(caller.workspace, { start_time: minutesAgo(4) })]);

    const answers = await Promise.all([invoke(runPipeline, run(config.id)), invoke(runPipeline, run(config.id))]);

    expect(answers.map((a) => a.statusCode).toSorted()).toEqual([200, 409]);
    expect(telemetry.evaluations(caller.workspace)).toHaveLength(2);
  });

  it("takes over a lease that expired (a sweep that died)", async () => {
    const config = seeded();
    tables.put("datasets", { pk: `WS#${caller.workspace}`, sk: `PIPELINEMARK#${config.id}`, watermarks: {}, lease: "dead", leaseUntil: Date.now() - 1 });
    await appendTelemetry("spans", [aSpanRow(caller.workspace, { start_time: minutesAgo(5) })]);

    expect((await invoke(runPipeline, run(config.id))).json).toMatchObject({ evaluations_written: 1 });
  });

  it("answers 409 PIPELINE_RUN_IN_PROGRESS while another sweep holds the lease, evaluating nothing", async () => {
    const config = seeded();
    tables.put("datasets", { pk: `WS#${caller.workspace}`, sk: `PIPELINEMARK#${config.id}`, watermarks: {}, lease: "other", leaseUntil: Date.now() + 60_000 });
    await appendTelemetry("spans", [aSpanRow(caller.workspace, { start_time: minutesAgo(5) })]);

    const response = await invoke(runPipeline, run(config.id));

    expect(response.statusCode).toBe(409);
    expect(response.json.detail.error_code).toBe("PIPELINE_RUN_IN_PROGRESS");
    expect(telemetry.evaluations(caller.workspace)).toEqual([]);
  });

  it("answers 404 for another workspace's id", async () => {
    const theirs = seeded({}, aCaller());

    expect((await invoke(runPipeline, run(theirs.id))).statusCode).toBe(404);
  });
});

describe("the periodic sweep (engine/pipeline-sweep, every 5 minutes)", () => {
  it("sweeps every enabled pipeline of every workspace as its owner, and skips one turned off meanwhile", async () => {
    const other = aCaller();
    const mine = seeded();
    const theirs = seeded({}, other);
    const off = seeded();
    // Listed as enabled, but the configuration says otherwise (turned off between the list and the sweep).
    tables.items("datasets").find((item) => item.sk === `PIPELINE#${off.id}`)!.enabled = false;
    await appendTelemetry("spans", [aSpanRow(caller.workspace, { start_time: minutesAgo(5) })]);
    await appendTelemetry("spans", [aSpanRow(other.workspace, { start_time: minutesAgo(5) })]);

    const summary = await sweepPipelines({});

    expect(summary).toEqual({ pipelines: 2, evaluationsWritten: 2, failed: 0, skipped: 1 });
    expect(telemetry.evaluations(caller.workspace)).toEqual([expect.objectContaining({ user_id: caller.principal, metadata: expect.objectContaining({ pipeline_config_id: mine.id }) })]);
    expect(telemetry.evaluations(other.workspace)).toEqual([expect.objectContaining({ workspace_id: other.workspace, metadata: expect.objectContaining({ pipeline_config_id: theirs.id }) })]);
    expect(await sweepPipelines({})).toMatchObject({ evaluationsWritten: 0 });
  });
});

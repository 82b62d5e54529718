import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { footprint } from "../../support/footprint.js";
import { retrievalClient } from "../../support/retrieval-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const rag = retrievalClient(api, tenant);

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const run = (execution_time: string, chunks_count: number) => ({ execution_time, chunks_count });

describe("GET /v1/rag/ingestion_pipeline_configurations", () => {
  it("answers an empty array for a new workspace", async () => {
    const reply = await rag.pipelines();
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.body).toStrictEqual([]);
  });

  it("lists the workspace's configurations by name, with their run counts", async () => {
    const b = await rag.registeredPipeline({ name: "b" });
    const a = await rag.registeredPipeline({ name: "a", pipeline_composition: { parser: "pdf" } });
    await rag.runInfo(b.id, run("2025-01-02T03:04:05Z", 12));

    const { body } = await rag.pipelines();

    expect(body.map((p: any) => p.name)).toEqual(["a", "b"]);
    expect(body[0]).toStrictEqual(a);
    expect(body[1]).toMatchObject({ id: b.id, last_run_time: "2025-01-02T03:04:05.000Z", last_run_chunks_count: 12, total_chunks_count: 12 });
  });

  it("never shows another workspace's configurations", async () => {
    await rag.registeredPipeline({ name: "mine" });
    const stranger = retrievalClient(api, await newTenant({ organization: tenant.caller.organization }));
    expect((await stranger.pipelines()).body).toStrictEqual([]);
  });
});

describe("PUT /v1/rag/ingestion_pipeline_configurations", () => {
  it("registers a configuration and answers it, with no runs yet", async () => {
    const reply = await rag.registerPipeline({ name: "ingest", pipeline_composition: { parser: "pdf", chunker: "semantic" } });

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({
      id: expect.stringMatching(UUID),
      author_id: tenant.caller.principal,
      name: "ingest",
      created_at: expect.stringMatching(ISO),
      modified_at: expect.stringMatching(ISO),
      last_run_time: null,
      last_run_chunks_count: 0,
      total_chunks_count: 0,
      pipeline_composition: { parser: "pdf", chunker: "semantic" },
    });
  });

  it("takes a missing or null composition as none", async () => {
    expect((await rag.registeredPipeline({ name: "bare" })).pipeline_composition).toBeNull();
    expect((await rag.registeredPipeline({ name: "nulled", pipeline_composition: null })).pipeline_composition).toBeNull();
  });

  it("re-registering a name keeps its id, author, creation time and run counts, and replaces the composition", async () => {
    const first = await rag.registeredPipeline({ name: "ingest", pipeline_composition: { parser: "pdf" } });
    await rag.runInfo(first.id, run("2025-01-01T00:00:00Z", 5));

    const again = await rag.registerPipeline({ name: "ingest", pipeline_composition: { parser: "html" } });

    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.id, author_id: first.author_id, created_at: first.created_at, total_chunks_count: 5, last_run_chunks_count: 5, pipeline_composition: { parser: "html" } });
    expect((await rag.pipelines()).body).toHaveLength(1);
  });

  it("answers 422 detail for a missing name and a composition value that is not text", async () => {
    const missing = await rag.registerPipeline({ pipeline_composition: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toContainEqual({ loc: ["body", "name"], msg: "Field required", type: "missing" });
    const notText = await rag.registerPipeline({ name: "x", pipeline_composition: { parser: 3 } });
    expect(notText.status).toBe(422);
    expect(notText.body.detail[0].loc).toEqual(["body", "pipeline_composition", "parser"]);
    expect((await rag.pipelines()).body).toEqual([]);
  });
});

describe("PUT /v1/rag/ingestion_pipeline_configurations/{id}/run_info", () => {
  it("records a run: last run time and chunks, chunks added to the total", async () => {
    const { id } = await rag.registeredPipeline();

    const first = await rag.runInfo(id, run("2025-03-01T10:00:00Z", 40));
    const second = await rag.runInfo(id, run("2025-03-02T10:00:00.123456+02:00", 2));

    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id, last_run_time: "2025-03-01T10:00:00.000Z", last_run_chunks_count: 40, total_chunks_count: 40 });
    expect(second.body).toMatchObject({ last_run_time: "2025-03-02T08:00:00.123Z", last_run_chunks_count: 2, total_chunks_count: 42 });
  });

  it("never moves the last run backwards: an earlier run only adds its chunks", async () => {
    const { id } = await rag.registeredPipeline();
    await rag.runInfo(id, run("2025-03-02T00:00:00Z", 10));

    const late = await rag.runInfo(id, run("2025-03-01T00:00:00Z", 3));

    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ last_run_time: "2025-03-02T00:00:00.000Z", last_run_chunks_count: 10, total_chunks_count: 13 });
  });

  it("counts every one of 20 concurrent reports: the total is their exact sum, the last run the latest", async () => {
    const { id } = await rag.registeredPipeline();
    const runs = Array.from({ length: 20 }, (_, i) => run(new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(), 100 + i));

    const replies = await Promise.all(runs.map((r) => rag.runInfo(id, r)));

    expect(replies.map((r) => r.status)).toEqual(runs.map(() => 200));
    const [stored] = (await rag.pipelines()).body;
    expect(stored.total_chunks_count).toBe(runs.reduce((sum, r) => sum + r.chunks_count, 0));
    expect(stored).toMatchObject({ last_run_time: "2025-01-01T00:19:00.000Z", last_run_chunks_count: 119 });
  });

  it("counts two concurrent reports of the same time both", async () => {
    const { id } = await rag.registeredPipeline();
    await Promise.all([rag.runInfo(id, run("2025-05-05T05:05:05Z", 7)), rag.runInfo(id, run("2025-05-05T05:05:05Z", 7))]);
    expect((await rag.pipelines()).body[0]).toMatchObject({ total_chunks_count: 14, last_run_chunks_count: 7 });
  });

  it("reads a time without an offset as UTC", async () => {
    const { id } = await rag.registeredPipeline();
    expect((await rag.runInfo(id, run("2025-03-01T10:00:00", 1))).body.last_run_time).toBe("2025-03-01T10:00:00.000Z");
  });

  it("answers 422 detail for a missing time, a negative or fractional count, and a malformed id", async () => {
    const { id } = await rag.registeredPipeline();
    const missing = await rag.runInfo(id, { chunks_count: 1 });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toContainEqual({ loc: ["body", "execution_time"], msg: "Field required", type: "missing" });
    expect((await rag.runInfo(id, run("2025-01-01T00:00:00Z", -1))).status).toBe(422);
    expect((await rag.runInfo(id, run("2025-01-01T00:00:00Z", 1.5))).status).toBe(422);
    expect((await rag.runInfo(id, run("yesterday", 1))).status).toBe(422);
    expect((await rag.runInfo(id, run("2025-01-01T00:00:00Z", 2_147_483_648))).status).toBe(422);
    expect((await rag.runInfo("not-a-uuid", run("2025-01-01T00:00:00Z", 1))).status).toBe(422);
    expect((await rag.pipelines()).body[0]).toMatchObject({ total_chunks_count: 0, last_run_time: null });
  });

  it("answers 404 for an unknown id", async () => {
    const reply = await rag.runInfo(randomUUID(), run("2025-01-01T00:00:00Z", 1));
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ object: "error", type: "not_found_error", code: "ingestion_pipeline_configuration_not_found" });
  });

  it("answers 404 to another workspace's key and counts nothing", async () => {
    const { id } = await rag.registeredPipeline();
    const before = await footprint(tenant.caller);

    const stranger = retrievalClient(api, await newTenant({ organization: tenant.caller.organization }));
    expect((await stranger.runInfo(id, run("2025-01-01T00:00:00Z", 1))).status).toBe(404);

    expect(await footprint(tenant.caller)).toStrictEqual(before);
    expect((await rag.pipelines()).body[0].total_chunks_count).toBe(0);
  });
});

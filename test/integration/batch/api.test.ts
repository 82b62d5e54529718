import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { BatchStatus } from "../../../shared/schemas/batch.js";
import { batchStore } from "../../../shared/store/batch.js";
import type { BatchJobRecord } from "../../../shared/domain/batch-rules.js";
import { agentsClient } from "../../support/agents-client.js";
import { useEmbeddedApi } from "../../support/api.js";
import { batchClient, chatLines } from "../../support/batch-client.js";
import { aBatchJob } from "../../support/batch-table.js";
import { filesClient, objectsOf } from "../../support/files-client.js";
import { newTenant, type TestTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const files = filesClient(api, tenant);
const batch = batchClient(api, tenant);

const nowSeconds = () => Math.floor(Date.now() / 1000);
const ids = (body: { data: { id: string }[] }) => body.data.map((job) => job.id);

/** A batch input file of the tenant holding `content`. */
const batchFile = async (content: string, fields: { purpose?: string; filename?: string } = {}) =>
  files.uploaded({ filename: fields.filename ?? "requests.jsonl", content, purpose: fields.purpose ?? "batch" });

/** A job written straight to the store: no execution runs it, so its status stays as given. */
async function seeded(overrides: Partial<BatchJobRecord> = {}, who: TestTenant = tenant): Promise<BatchJobRecord> {
  const job = aBatchJob({
    workspace: who.caller.workspace,
    organization: who.caller.organization,
    owner: who.caller.principal,
    createdAt: nowSeconds(),
    executionArn: null,
    ...overrides,
  });
  await batchStore.create(job, job.createdAt * 1000 + Math.floor(Math.random() * 1000));
  return job;
}

const inlineRequests = (n: number) => Array.from({ length: n }, (_, i) => ({ custom_id: `r${i}`, body: { messages: [{ role: "user", content: `q${i}` }] } }));

describe("POST /v1/batch/jobs", () => {
  it("accepts uploaded batch files and answers the job QUEUED, with no errors and every counter 0", async () => {
    const one = await batchFile(chatLines("a", "b"));
    const two = await batchFile(chatLines("c"));
    const before = nowSeconds();

    const response = await batch.create({ input_files: [one.id, two.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest", metadata: { team: "research" }, timeout_hours: 24 });

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.body).toStrictEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      object: "batch",
      input_files: [one.id, two.id],
      metadata: { team: "research" },
      endpoint: "/v1/chat/completions",
      model: "mistral-small-latest",
      agent_id: null,
      output_file: null,
      error_file: null,
      errors: [],
      outputs: null,
      status: "QUEUED",
      created_at: expect.any(Number),
      total_requests: 0,
      completed_requests: 0,
      succeeded_requests: 0,
      failed_requests: 0,
      started_at: null,
      completed_at: null,
    });
    expect(response.body.created_at).toBeGreaterThanOrEqual(before);
    expect(response.body.created_at).toBeLessThanOrEqual(nowSeconds());
  });

  it("accepts inline requests and keeps them under the job's prefix", async () => {
    const response = await batch.create({ requests: inlineRequests(3), endpoint: "/v1/chat/completions", model: "mistral-small-latest" });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: "QUEUED", input_files: [], errors: [] });
    expect(await objectsOf(tenant.caller.workspace)).toContain(`workspaces/${tenant.caller.workspace}/batch/${response.body.id}/inline.jsonl`);
  });

  it("refuses a file with a bad line at create time, naming the first bad line's number", async () => {
    const file = await batchFile(`${chatLines("a", "b")}{"custom_id": "c", "body": \n${chatLines("d")}not json either\n`);

    const response = await batch.create({ input_files: [file.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest" });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ object: "error", type: "invalid_request_error", code: "invalid_batch_input", param: "input_files" });
    expect(response.body.message).toMatch(new RegExp(`^Line 3 of file '${file.id}' is not valid JSON`));
    expect((await batch.list()).body.total).toBe(0);
  });

  it("counts blank and CRLF lines when it names a bad line", async () => {
    const file = await batchFile(chatLines("a").replace("\n", "\r\n") + "\r\n" + '{"custom_id": "b"}\r\n');

    const response = await batch.create({ input_files: [file.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest" });

    expect(response.status).toBe(400);
    expect(response.body.message).toContain(`Line 3 of file '${file.id}' has no body`);
  });

  it("refuses custom_ids that repeat across the input files", async () => {
    const one = await batchFile(chatLines("a", "b"));
    const two = await batchFile(chatLines("c", "a"));

    const response = await batch.create({ input_files: [one.id, two.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest" });

    expect(response.status).toBe(400);
    expect(response.body.message).toContain(`Line 2 of file '${two.id}' repeats custom_id 'a' (first used: Line 1 of file '${one.id}')`);
  });

  it("refuses inline requests whose custom_ids repeat", async () => {
    const response = await batch.create({ requests: [...inlineRequests(2), { custom_id: "r0", body: {} }], endpoint: "/v1/chat/completions", model: "mistral-small-latest" });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "invalid_batch_input", param: "requests" });
  });

  it("answers 404 for another workspace's file", async () => {
    const other = await newTenant();
    const theirs = await filesClient(api, other).uploaded({ filename: "theirs.jsonl", content: chatLines("a"), purpose: "batch" });

    const response = await batch.create({ input_files: [theirs.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest" });

    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ type: "not_found_error", code: "file_not_found" });
  });

  it("refuses a file not uploaded for batch with 400", async () => {
    const file = await batchFile(chatLines("a"), { purpose: "fine-tune", filename: "train.jsonl" });

    const response = await batch.create({ input_files: [file.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest" });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "invalid_file_purpose", param: "input_files" });
  });

  it("refuses a model that does not serve the endpoint with 400 naming it", async () => {
    const file = await batchFile(chatLines("a"));

    const response = await batch.create({ input_files: [file.id], endpoint: "/v1/chat/completions", model: "mistral-embed" });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "model_capability_missing", param: "model" });
    expect(response.body.message).toContain("mistral-embed");
  });

  it("accepts embeddings requests for an embeddings model", async () => {
    const response = await batch.create({ requests: [{ custom_id: "e", body: { input: ["hello"] } }], endpoint: "/v1/embeddings", model: "mistral-embed" });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ endpoint: "/v1/embeddings", model: "mistral-embed" });
  });

  it("accepts an agent of the workspace in place of a model", async () => {
    const agent = await agentsClient(api, tenant).create({ model: "mistral-small-latest", name: "batcher" });

    const response = await batch.create({ requests: inlineRequests(1), endpoint: "/v1/chat/completions", agent_id: agent.body.id });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ agent_id: agent.body.id, model: null });
  });
});

describe("GET /v1/batch/jobs/{job_id}", () => {
  it("answers the job as created", async () => {
    const file = await batchFile(chatLines("a"));
    const created = await batch.create({ input_files: [file.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest", metadata: { k: "v" } });

    const response = await batch.get(created.body.id);

    expect(response.status).toBe(200);
    const { id, input_files, metadata, endpoint, model, created_at, object } = created.body;
    expect(response.body).toMatchObject({ id, input_files, metadata, endpoint, model, created_at, object });
    expect(response.body.errors).toBeInstanceOf(Array);
  });

  it("answers 404 for another workspace's job", async () => {
    const theirs = await seeded({}, await newTenant());

    const response = await batch.get(theirs.id);

    expect(response.status).toBe(404);
    expect(response.body.code).toBe("batch_job_not_found");
  });

  it("answers a finished job's result lines with inline=true", async () => {
    const results = [{ id: "1", custom_id: "a", response: { status_code: 200, body: { ok: 1 } } }, { id: "2", custom_id: "b", response: { status_code: 200, body: { ok: 2 } } }];
    const output = await batchFile(results.map((r) => `${JSON.stringify(r)}\n`).join(""), { filename: "results.jsonl" });
    const job = await seeded({ status: "SUCCESS", outputFile: output.id, totalRequests: 2, completedRequests: 2, succeededRequests: 2 });

    const inline = await batch.get(job.id, { inline: true });
    const plain = await batch.get(job.id);

    expect(inline.body).toMatchObject({ status: "SUCCESS", output_file: output.id, outputs: results });
    expect(plain.body.outputs).toBeNull();
  });
});

describe("GET /v1/batch/jobs", () => {
  /** What the official SDK sends when the caller gives nothing. */
  const SDK_DEFAULTS = { page: 0, page_size: 100, created_by_me: false, order_by: "-created" };

  it("lists the workspace's jobs newest first under data, with the total", async () => {
    const created = [];
    for (let i = 0; i < 3; i += 1) created.push((await batch.create({ requests: inlineRequests(1), endpoint: "/v1/chat/completions", model: "mistral-small-latest" })).body.id);

    const response = await batch.list(SDK_DEFAULTS);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ object: "list", total: 3 });
    expect(ids(response.body)).toStrictEqual(created.toReversed());
    expect((await batch.list({ order_by: "created" })).body.data.map((j: { id: string }) => j.id)).toStrictEqual(created);
  });

  it("pages with page and page_size", async () => {
    const jobs = [];
    for (let i = 0; i < 5; i += 1) jobs.push(await seeded({ createdAt: 1_700_000_000 + i }));

    const response = await batch.list({ page: 1, page_size: 2 });

    expect(ids(response.body)).toStrictEqual([jobs[2]!.id, jobs[1]!.id]);
    expect(response.body.total).toBe(5);
  });

  it("filters by the SDK's exploded metadata pairs", async () => {
    const a = await batch.create({ requests: inlineRequests(1), endpoint: "/v1/chat/completions", model: "mistral-small-latest", metadata: { team: "a", stage: "x" } });
    await batch.create({ requests: inlineRequests(1), endpoint: "/v1/chat/completions", model: "mistral-small-latest", metadata: { team: "b", stage: "x" } });

    const response = await batch.list({ ...SDK_DEFAULTS, team: "a", stage: "x" });

    expect(ids(response.body)).toStrictEqual([a.body.id]);
    expect(response.body.total).toBe(1);
  });

  it("filters by model and agent_id", async () => {
    const small = await seeded({ model: "mistral-small-latest" });
    await seeded({ model: "mistral-large-latest" });
    const agentId = randomUUID();
    const byAgent = await seeded({ model: null, agentId });

    expect(ids((await batch.list({ model: "mistral-small-latest" })).body)).toStrictEqual([small.id]);
    expect(ids((await batch.list({ agent_id: agentId })).body)).toStrictEqual([byAgent.id]);
  });

  it("filters by status, repeated", async () => {
    const statuses: BatchStatus[] = ["SUCCESS", "FAILED", "CANCELLED", "RUNNING"];
    const jobs = [];
    for (const [i, status] of statuses.entries()) jobs.push(await seeded({ status, createdAt: 1_700_000_000 + i }));

    const response = await batch.list({ status: ["SUCCESS", "CANCELLED"] });

    expect(ids(response.body)).toStrictEqual([jobs[2]!.id, jobs[0]!.id]);
    expect(response.body.total).toBe(2);
  });

  it("filters by created_after", async () => {
    await seeded({ createdAt: Date.parse("2024-01-01T00:00:00Z") / 1000 });
    const later = await seeded({ createdAt: Date.parse("2025-01-01T00:00:00Z") / 1000 });

    const response = await batch.list({ created_after: "2024-06-01T00:00:00Z" });

    expect(ids(response.body)).toStrictEqual([later.id]);
  });

  it("keeps only the caller's own jobs with created_by_me=true", async () => {
    const colleague = await newTenant({ workspace: tenant.caller.workspace, organization: tenant.caller.organization });
    const mine = await seeded();
    const theirs = await seeded({}, colleague);

    const own = await batch.list({ ...SDK_DEFAULTS, created_by_me: true });
    const all = await batch.list(SDK_DEFAULTS);

    expect(ids(own.body)).toStrictEqual([mine.id]);
    expect(ids(all.body).toSorted()).toStrictEqual([mine.id, theirs.id].toSorted());
  });

  it("never lists another workspace's jobs", async () => {
    await seeded({}, await newTenant());

    expect((await batch.list()).body).toStrictEqual({ object: "list", data: [], total: 0 });
  });
});

describe("POST /v1/batch/jobs/{job_id}/cancel", () => {
  it("moves a running job to CANCELLATION_REQUESTED at once", async () => {
    const job = await seeded({ status: "RUNNING", startedAt: nowSeconds(), executionArn: `arn:aws:states:us-east-1:000000000000:execution:batch:${randomUUID()}` });

    const response = await batch.cancel(job.id);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: job.id, status: "CANCELLATION_REQUESTED" });
    expect((await batch.get(job.id)).body.status).toBe("CANCELLATION_REQUESTED");
  });

  it("ends a job that has not started CANCELLED", async () => {
    const job = await seeded({ status: "QUEUED" });

    const response = await batch.cancel(job.id);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: "CANCELLED", completed_at: expect.any(Number) });
  });

  it("refuses to cancel a finished job with 409", async () => {
    const job = await seeded({ status: "SUCCESS", completedAt: nowSeconds() });

    const response = await batch.cancel(job.id);

    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ type: "conflict_error", code: "batch_job_finished" });
  });

  it("cancels a job the engine has been given, or says it has finished", async () => {
    const created = await batch.create({ requests: inlineRequests(20), endpoint: "/v1/chat/completions", model: "mistral-small-latest" });

    const response = await batch.cancel(created.body.id);

    if (response.status === 409) expect(response.body.code).toBe("batch_job_finished");
    else {
      expect(response.status).toBe(200);
      expect(["CANCELLATION_REQUESTED", "CANCELLED"]).toContain(response.body.status);
    }
  });

  it("answers 404 for another workspace's job", async () => {
    const theirs = await seeded({ status: "RUNNING" }, await newTenant());

    expect((await batch.cancel(theirs.id)).status).toBe(404);
  });
});

describe("DELETE /v1/batch/jobs/{job_id}", () => {
  it("removes a job, stopping it, and answers the deletion", async () => {
    const created = await batch.create({ requests: inlineRequests(5), endpoint: "/v1/chat/completions", model: "mistral-small-latest" });

    const response = await batch.remove(created.body.id);

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.body).toStrictEqual({ id: created.body.id, object: "batch", deleted: true });
    expect((await batch.get(created.body.id)).status).toBe(404);
    expect((await batch.list()).body.total).toBe(0);
    expect(await objectsOf(tenant.caller.workspace)).not.toContain(`workspaces/${tenant.caller.workspace}/batch/${created.body.id}/inline.jsonl`);
  });

  it("answers 404 the second time and for another workspace's job", async () => {
    const job = await seeded({ status: "FAILED" });
    const theirs = await seeded({}, await newTenant());

    expect((await batch.remove(job.id)).status).toBe(200);
    expect((await batch.remove(job.id)).status).toBe(404);
    expect((await batch.remove(theirs.id)).body.code).toBe("batch_job_not_found");
  });
});

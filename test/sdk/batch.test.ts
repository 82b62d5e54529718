import { Mistral } from "@mistralai/mistralai";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
beforeAll(() => {
  client = new Mistral({ serverURL: api.url, apiKey: tenant.key, timeoutMs: 20_000 });
});

const FINAL = new Set(["SUCCESS", "FAILED", "TIMEOUT_EXCEEDED", "CANCELLED"]);

/** Polls the job through the SDK until it is final (bounded). */
async function finished(jobId: string, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const job = await client.batch.jobs.get({ jobId });
    if (FINAL.has(job.status) || Date.now() > deadline) return job;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const requests = (n: number) =>
  Array.from({ length: n }, (_, i) => JSON.stringify({ custom_id: `req-${i}`, body: { messages: [{ role: "user", content: `question ${i}` }] } })).join("\n") + "\n";

describe("batch jobs through the official SDK", () => {
  it("runs a job created from an uploaded file to SUCCESS, with one output line per request", async () => {
    const file = await client.files.upload({ file: { fileName: "requests.jsonl", content: new TextEncoder().encode(requests(25)) }, purpose: "batch" });
    const created = await client.batch.jobs.create({ inputFiles: [file.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest", metadata: { run: "sdk" } });
    expect(created.status).toBe("QUEUED");
    expect(created.errors).toEqual([]);

    const job = await finished(created.id);
    expect(job).toMatchObject({ status: "SUCCESS", totalRequests: 25, completedRequests: 25, succeededRequests: 25, failedRequests: 0 });
    expect(job.outputFile).toBeTruthy();

    const text = await new Response(await client.files.download({ fileId: job.outputFile! })).text();
    const lines = text.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toHaveLength(25);
    expect(new Set(lines.map((l) => l.custom_id))).toEqual(new Set(Array.from({ length: 25 }, (_, i) => `req-${i}`)));
    for (const line of lines) {
      expect(line.response.status_code).toBe(200);
      expect(line.error).toBeNull();
      expect(line.response.body.choices[0].message.content).toContain(`question ${line.custom_id.slice(4)}`);
    }
    const output = await client.files.retrieve({ fileId: job.outputFile! });
    expect(output).toMatchObject({ purpose: "batch", sampleType: "batch_result", source: "mistral", numLines: 25 });
  });

  it("lists, cancels and deletes jobs", async () => {
    const created = await client.batch.jobs.create({
      requests: [{ customId: "only", body: { messages: [{ role: "user", content: "hi" }] } }],
      endpoint: "/v1/chat/completions",
      model: "mistral-small-latest",
    });
    const list = await client.batch.jobs.list({ pageSize: 100 });
    expect(list.data?.map((j) => j.id)).toContain(created.id);
    expect(list.total).toBeGreaterThanOrEqual(1);

    const done = await finished(created.id);
    // Cancelling a finished job is refused; a job in flight would move to CANCELLATION_REQUESTED.
    if (FINAL.has(done.status)) await expect(client.batch.jobs.cancel({ jobId: created.id })).rejects.toMatchObject({ statusCode: 409 });

    const deleted = await client.batch.jobs.delete({ jobId: created.id });
    expect(deleted).toMatchObject({ id: created.id, deleted: true });
    await expect(client.batch.jobs.get({ jobId: created.id })).rejects.toMatchObject({ statusCode: 404 });
  });

  it("refuses a file with a bad line at create time, naming the line", async () => {
    const bad = requests(3) + "not json\n";
    const file = await client.files.upload({ file: { fileName: "bad.jsonl", content: new TextEncoder().encode(bad) }, purpose: "batch" });
    const error = await client.batch.jobs.create({ inputFiles: [file.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest" }).catch((e) => e);
    expect(error.statusCode).toBe(400);
    expect(String(error.body)).toContain("Line 4");
  });
});

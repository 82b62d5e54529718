import { describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/engine/batch-start.js";
import type { BatchChunk } from "../../../shared/engine/batch-machine.js";
import { freezeDate, mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aBatchJob } from "../../support/batch-table.js";
import { aContext } from "../../support/builders.js";
import { fakeBucket, fakeTables } from "../../support/engine-fakes.js";

const dynamo = mockDynamo();
const s3 = mockS3();
const NOW = 1_800_000_000;

freezeDate(NOW * 1000);

const requests = (n: number) => Array.from({ length: n }, (_, i) => `${JSON.stringify({ custom_id: `r${i}`, body: { messages: [{ role: "user", content: `q${i}` }] } })}\n`).join("");

function aQueuedInlineJob(lines: number, overrides = {}) {
  const job = aBatchJob({ inputFiles: [], ...overrides });
  const inlineKey = `workspaces/${job.workspace}/batch/${job.id}/inline.jsonl`;
  job.inlineKey = inlineKey;
  const bucket = fakeBucket(s3, { [inlineKey]: requests(lines) });
  const tables = fakeTables(dynamo, job);
  return { job, bucket, tables, prefix: `workspaces/${job.workspace}/batch/${job.id}/` };
}

describe("batch Start task", () => {
  it("moves the job to RUNNING, writes chunks of 100 requests and their manifest, and sets the total", async () => {
    const { job, bucket, tables, prefix } = aQueuedInlineJob(250);

    const out = await handler({ workspace: job.workspace, jobId: job.id }, aContext());

    expect(out).toEqual({ workspace: job.workspace, jobId: job.id, bucket: process.env.BUCKET_FILES, manifestKey: `${prefix}manifest.json` });
    expect(tables.job()).toMatchObject({ status: "RUNNING", startedAt: NOW, totalRequests: 250, chunkProgress: {} });
    const manifest = JSON.parse(bucket.get(`${prefix}manifest.json`)!) as BatchChunk[];
    expect(manifest).toEqual([
      { index: 0, key: `${prefix}chunks/0.jsonl`, count: 100 },
      { index: 1, key: `${prefix}chunks/1.jsonl`, count: 100 },
      { index: 2, key: `${prefix}chunks/2.jsonl`, count: 50 },
    ]);
    const last = bucket.get(`${prefix}chunks/2.jsonl`)!.trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(last[0]).toEqual({ custom_id: "r200", body: { messages: [{ role: "user", content: "q200" }] } });
    expect(last.at(-1).custom_id).toBe("r249");
  });

  it("writes an empty manifest for a job cancelled before it started, and leaves it to Finish", async () => {
    const { job, bucket, tables, prefix } = aQueuedInlineJob(5, { status: "CANCELLATION_REQUESTED" });

    await handler({ workspace: job.workspace, jobId: job.id }, aContext());

    expect(bucket.get(`${prefix}manifest.json`)).toBe("[]");
    expect([...bucket.keys()].filter((key) => key.includes("/chunks/"))).toEqual([]);
    expect(tables.job()).toMatchObject({ status: "CANCELLATION_REQUESTED", startedAt: null, totalRequests: 0 });
  });

  it("splits again into the same chunks when Step Functions retries it on a running job", async () => {
    const { job, bucket, tables, prefix } = aQueuedInlineJob(120);
    await handler({ workspace: job.workspace, jobId: job.id }, aContext());
    vi.setSystemTime((NOW + 30) * 1000);

    await handler({ workspace: job.workspace, jobId: job.id }, aContext());

    expect(tables.job()).toMatchObject({ status: "RUNNING", startedAt: NOW, totalRequests: 120 });
    expect(JSON.parse(bucket.get(`${prefix}manifest.json`)!)).toHaveLength(2);
  });

  it("fails with BatchJobGone when the job was deleted", async () => {
    fakeBucket(s3);
    fakeTables(dynamo, undefined);

    await expect(handler({ workspace: "w", jobId: "gone" }, aContext())).rejects.toMatchObject({ name: "BatchJobGone", message: "The batch job 'gone' no longer exists" });
  });
});

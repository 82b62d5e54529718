import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/engine/batch-finish.js";
import { resultFileId } from "../../../shared/domain/batch-engine.js";
import type { BatchStarted } from "../../../shared/engine/batch-machine.js";
import type { BatchJobRecord } from "../../../shared/domain/batch-rules.js";
import { freezeDate, mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aBatchJob } from "../../support/batch-table.js";
import { aContext } from "../../support/builders.js";
import { fakeBucket, fakeTables } from "../../support/engine-fakes.js";

const dynamo = mockDynamo();
const s3 = mockS3();
const NOW = 1_800_000_000;

freezeDate(NOW * 1000);

const ok = (id: string) => `R${JSON.stringify({ id: `batch-${id}`, custom_id: id, response: { status_code: 200, body: {} }, error: null })}\n`;
const failed = (id: string) => `E${JSON.stringify({ id: `batch-${id}`, custom_id: id, response: null, error: { message: "no", code: 400 } })}\n`;

/** A job whose two chunks ran: chunk 0 saved `first`, chunk 1 saved `second`. */
function aRanJob(first: string, second: string, overrides: Partial<BatchJobRecord> = {}) {
  const job = aBatchJob({ status: "RUNNING", startedAt: NOW - 100, deadline: NOW + 3600, totalRequests: 3, completedRequests: 3, ...overrides });
  const prefix = `workspaces/${job.workspace}/batch/${job.id}/`;
  const manifest = [0, 1].map((index) => ({ index, key: `${prefix}chunks/${index}.jsonl`, count: 2 }));
  const bucket = fakeBucket(s3, {
    [`${prefix}manifest.json`]: JSON.stringify(manifest),
    [`${prefix}chunks/0.jsonl`]: "{}\n",
    [`${prefix}chunks/1.jsonl`]: "{}\n",
    [`${prefix}results/0.jsonl`]: first,
    [`${prefix}results/1.jsonl`]: second,
    [`${prefix}inline.jsonl`]: "{}\n",
  });
  const tables = fakeTables(dynamo, { ...job, chunkProgress: { c0: 2, c1: 1 } } as BatchJobRecord);
  const started: BatchStarted = { workspace: job.workspace, jobId: job.id, bucket: "b", manifestKey: `${prefix}manifest.json` };
  return { job, bucket, tables, started, prefix };
}

describe("batch Finish task", () => {
  it("joins the chunks' lines into the output and error files, records them as Files and ends the job SUCCESS", async () => {
    const { job, bucket, tables, started, prefix } = aRanJob(ok("a") + failed("b"), ok("c"));

    expect(await handler(started, aContext())).toEqual({ workspace: job.workspace, jobId: job.id, status: "SUCCESS" });

    const outputId = resultFileId(job.id, "output");
    const errorId = resultFileId(job.id, "error");
    const outputKey = `workspaces/${job.workspace}/files/${outputId}`;
    expect(bucket.get(outputKey)!.trimEnd().split("\n").map((l) => JSON.parse(l).custom_id)).toEqual(["a", "c"]);
    expect(JSON.parse(bucket.get(`workspaces/${job.workspace}/files/${errorId}`)!)).toMatchObject({ custom_id: "b", error: { code: 400 } });
    expect(tables.files).toEqual([
      expect.objectContaining({ id: outputId, workspace: job.workspace, owner: job.owner, purpose: "batch", sampleType: "batch_result", source: "mistral", visibility: "workspace", mimetype: "application/jsonl", numLines: 2, bytes: Buffer.byteLength(bucket.get(outputKey)!), objectKey: outputKey, expiresAt: undefined }),
      expect.objectContaining({ id: errorId, sampleType: "batch_error", numLines: 1 }),
    ]);
    expect(tables.job()).toMatchObject({ status: "SUCCESS", outputFile: outputId, errorFile: errorId, completedAt: NOW });
    expect(tables.job()).not.toHaveProperty("chunkProgress");
    expect(tables.job()).not.toHaveProperty("activeKey");
    expect([...bucket.keys()].filter((key) => key.startsWith(prefix))).toEqual([`${prefix}inline.jsonl`]);
  });

  it("writes no error file when nothing failed", async () => {
    const { tables, started } = aRanJob(ok("a"), ok("b"));

    await handler(started, aContext());

    expect(tables.files.map((f) => f.sampleType)).toEqual(["batch_result"]);
    expect(tables.job()).toMatchObject({ errorFile: null });
  });

  it("ends a job whose cancellation was requested CANCELLED, with what ran", async () => {
    const { tables, started } = aRanJob(ok("a"), "", { status: "CANCELLATION_REQUESTED" });

    expect(await handler(started, aContext())).toMatchObject({ status: "CANCELLED" });
    expect(tables.job()).toMatchObject({ status: "CANCELLED", outputFile: expect.any(String) });
  });

  it("ends a job past its deadline with requests left TIMEOUT_EXCEEDED", async () => {
    const { tables, started } = aRanJob(ok("a"), "", { deadline: NOW - 1, totalRequests: 4, completedRequests: 1 });

    expect(await handler(started, aContext())).toMatchObject({ status: "TIMEOUT_EXCEEDED" });
    expect(tables.job()).toMatchObject({ status: "TIMEOUT_EXCEEDED" });
  });

  it("only cleans up when it runs again on a job that is over", async () => {
    const { tables, bucket, started, prefix } = aRanJob(ok("a"), "", { status: "SUCCESS", completedAt: NOW - 5 });

    expect(await handler(started, aContext())).toMatchObject({ status: "SUCCESS" });
    expect(tables.files).toEqual([]);
    expect(tables.job()).toMatchObject({ completedAt: NOW - 5 });
    expect(bucket.has(`${prefix}manifest.json`)).toBe(false);
  });
});

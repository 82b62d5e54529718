import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/engine/batch-record-failure.js";
import type { BatchStatus } from "../../../shared/schemas/batch.js";
import { freezeDate, mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aBatchJob } from "../../support/batch-table.js";
import { aContext } from "../../support/builders.js";
import { fakeBucket, fakeTables } from "../../support/engine-fakes.js";

const dynamo = mockDynamo();
const s3 = mockS3();
const NOW = 1_800_000_000;

freezeDate(NOW * 1000);

function aJob(status: BatchStatus) {
  const job = aBatchJob({ status });
  const prefix = `workspaces/${job.workspace}/batch/${job.id}/`;
  const bucket = fakeBucket(s3, {
    [`${prefix}manifest.json`]: JSON.stringify([{ index: 0, key: `${prefix}chunks/0.jsonl`, count: 1 }]),
    [`${prefix}chunks/0.jsonl`]: "{}\n",
    [`${prefix}results/0.jsonl`]: "R{}\n",
  });
  return { job, bucket, tables: fakeTables(dynamo, job), prefix };
}

const lambdaCause = (type: string, message: string) =>
  JSON.stringify({ errorType: type, errorMessage: message, trace: [`${type}: ${message}`, "    at run (/var/task/index.mjs:10:5)"] });

describe("batch RecordFailure task", () => {
  it("moves the job to FAILED with the owner-facing message of the error, and removes the engine's objects", async () => {
    const { job, bucket, tables } = aJob("RUNNING");
    const message = `No file with id '0b5c' exists in this workspace`;

    await handler({ workspace: job.workspace, jobId: job.id, failure: { Error: "NotFound", Cause: lambdaCause("NotFound", message) } }, aContext());

    expect(tables.job()).toMatchObject({ status: "FAILED", errors: [{ message, count: 1 }], completedAt: NOW });
    expect(bucket.size).toBe(0);
  });

  it("keeps the text and stack of an internal error out of the job", async () => {
    const { job, tables } = aJob("RUNNING");

    await handler({ workspace: job.workspace, jobId: job.id, failure: { Error: "TypeError", Cause: lambdaCause("TypeError", "x is undefined") } }, aContext());

    expect(tables.job()).toMatchObject({ status: "FAILED", errors: [{ message: "The batch job could not run because of an internal error", count: 1 }] });
  });

  it("fails a job whose cancellation was requested too", async () => {
    const { job, tables } = aJob("CANCELLATION_REQUESTED");

    await handler({ workspace: job.workspace, jobId: job.id, failure: { Error: "States.Timeout", Cause: "" } }, aContext());

    expect(tables.job()).toMatchObject({ status: "FAILED", errors: [{ message: "A step of the batch job ran out of time before it finished" }] });
  });

  it("leaves a job that is over as it is", async () => {
    const { job, tables } = aJob("SUCCESS");

    await handler({ workspace: job.workspace, jobId: job.id, failure: { Error: "Error", Cause: "late" } }, aContext());

    expect(tables.job()).toMatchObject({ status: "SUCCESS", errors: [] });
  });
});

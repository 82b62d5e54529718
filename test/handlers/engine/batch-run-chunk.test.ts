import { PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Context } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/engine/batch-run-chunk.js";
import type { BatchChunkTask } from "../../../shared/engine/batch-machine.js";
import type { BatchStatus } from "../../../shared/schemas/batch.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aBatchJob } from "../../support/batch-table.js";
import { aContext, aModelEntry, aModelItem } from "../../support/builders.js";
import { fakeBucket, fakeTables } from "../../support/engine-fakes.js";

const dynamo = mockDynamo();
const s3 = mockS3();
const small = aModelEntry({ id: "mistral-small-latest" });

/** A Lambda context with `left` milliseconds to go. */
const withTimeLeft = (left: number): Context => ({ ...aContext(), getRemainingTimeInMillis: () => left });

function aRunningJobWithChunk(lines: Record<string, unknown>[], status: BatchStatus = "RUNNING") {
  const job = aBatchJob({ status, startedAt: 1, totalRequests: lines.length, deadline: Math.floor(Date.now() / 1000) + 3600 });
  const prefix = `workspaces/${job.workspace}/batch/${job.id}/`;
  const chunk = { index: 0, key: `${prefix}chunks/0.jsonl`, count: lines.length };
  const bucket = fakeBucket(s3, { [chunk.key]: lines.map((line) => `${JSON.stringify(line)}\n`).join("") });
  const tables = fakeTables(dynamo, { ...job, chunkProgress: {} } as typeof job, [aModelItem(small)]);
  const task: BatchChunkTask = { job: { workspace: job.workspace, jobId: job.id }, chunk };
  return { job, bucket, tables, task, resultsKey: `${prefix}results/0.jsonl` };
}

const chat = (i: number) => ({ custom_id: `r${i}`, body: { messages: [{ role: "user", content: `q${i}` }] } });

describe("batch RunChunk task", () => {
  it("calls the model for each request and saves result and error lines, counting them on the job", async () => {
    const { tables, bucket, task, resultsKey } = aRunningJobWithChunk([chat(0), { custom_id: "bad", body: { messages: [] } }, chat(2)]);

    expect(await handler(task, withTimeLeft(900_000))).toBeNull();

    const saved = bucket.get(resultsKey)!.trimEnd().split("\n");
    expect(saved.map((line) => line[0])).toEqual(["R", "E", "R"]);
    const [ok, failed] = saved.map((line) => JSON.parse(line.slice(1)));
    expect(ok).toMatchObject({ custom_id: "r0", response: { status_code: 200, body: { object: "chat.completion", model: "mistral-small-latest" } }, error: null });
    expect(failed).toMatchObject({ custom_id: "bad", response: null, error: { code: 422 } });
    expect(tables.job()).toMatchObject({ completedRequests: 3, succeededRequests: 2, failedRequests: 1, chunkProgress: { c0: 3 } });
  });

  it("records each model call's usage as the job's owner, on the batch route", async () => {
    const { job, task } = aRunningJobWithChunk([chat(0)]);

    await handler(task, withTimeLeft(900_000));

    const usage = dynamo.commandCalls(PutCommand).map((c) => c.args[0].input.Item!);
    expect(usage).toEqual([expect.objectContaining({ workspace: job.workspace, principal: job.owner, route: "batch POST /v1/chat/completions", status: 200 })]);
  });

  it("runs nothing for a job whose cancellation was requested", async () => {
    const { tables, bucket, task, resultsKey } = aRunningJobWithChunk([chat(0), chat(1)], "CANCELLATION_REQUESTED");

    await handler(task, withTimeLeft(900_000));

    expect(bucket.has(resultsKey)).toBe(false);
    expect(tables.job()).toMatchObject({ completedRequests: 0, chunkProgress: {} });
  });

  it("stops before its invocation runs out of time and says the chunk is incomplete", async () => {
    const { tables, task } = aRunningJobWithChunk([chat(0), chat(1)]);

    await expect(handler(task, withTimeLeft(60_000))).rejects.toMatchObject({ name: "BatchChunkIncomplete", message: expect.stringContaining("stopped after 0 of its 2 requests") });
    expect(tables.job()).toMatchObject({ completedRequests: 0 });
  });

  it("counts nothing twice when it runs again after finishing", async () => {
    const { tables, task } = aRunningJobWithChunk([chat(0), chat(1)]);

    await handler(task, withTimeLeft(900_000));
    await handler(task, withTimeLeft(900_000));

    expect(tables.job()).toMatchObject({ completedRequests: 2, succeededRequests: 2, chunkProgress: { c0: 2 } });
  });
});

import { randomUUID } from "node:crypto";
import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/batch/cancel.js";
import type { BatchStatus } from "../../../shared/schemas/batch.js";
import type { BatchJobRecord } from "../../../shared/domain/batch-rules.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aBatchJob, aBatchJobItem, batchCalls, serveBatchTables } from "../../support/batch-table.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";

const executions = vi.hoisted(() => ({ startExecution: vi.fn(), stopExecution: vi.fn() }));
vi.mock("../../../shared/engine/executions.js", () => executions);

const dynamo = mockDynamo();
const caller = aCaller();
const NOW = 1_800_000_000;

freezeDate(NOW * 1000);
beforeEach(() => {
  executions.stopExecution.mockReset().mockResolvedValue(undefined);
});

const cancel = (id: string) =>
  anEvent({ method: "POST", path: `/v1/batch/jobs/${id}/cancel`, resource: "/v1/batch/jobs/{job_id}/cancel", pathParameters: { job_id: id }, caller });

const stored = (job: BatchJobRecord) => serveBatchTables(dynamo, { batch: [aBatchJobItem(job)] });

/** The first read of the job sees `stale`; the table has moved on since (the engine wrote in between). */
function firstReadSees(stale: BatchJobRecord, table: ReturnType<typeof stored>) {
  let reads = 0;
  dynamo.on(GetCommand).callsFake(() => ({ Item: reads++ === 0 ? aBatchJobItem(stale) : table.job(stale.workspace, stale.id) }));
}

describe("POST /v1/batch/jobs/{job_id}/cancel", () => {
  it("moves a running job to CANCELLATION_REQUESTED at once and leaves the stopping to the engine", async () => {
    const job = aBatchJob({ workspace: caller.workspace, status: "RUNNING", startedAt: NOW - 60, completedRequests: 5 });
    const table = stored(job);

    const response = await invoke(handler, cancel(job.id));

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.json).toMatchObject({ id: job.id, object: "batch", status: "CANCELLATION_REQUESTED", completed_requests: 5, errors: [], completed_at: null });
    expect(table.job(caller.workspace, job.id)).toMatchObject({ status: "CANCELLATION_REQUESTED", activeKey: "ACTIVE" });
    // Its chunk tasks stop and its Finish task keeps the results so far: the execution must live on.
    expect(executions.stopExecution).not.toHaveBeenCalled();
  });

  it("writes the request conditionally on a status that may be cancelled", async () => {
    const job = aBatchJob({ workspace: caller.workspace, status: "RUNNING", startedAt: NOW - 60 });
    stored(job);

    await invoke(handler, cancel(job.id));

    const [update] = batchCalls(dynamo, UpdateCommand);
    expect(update!.ConditionExpression).toBe("attribute_exists(sk) AND #status IN (:from0, :from1)");
    expect(update!.ExpressionAttributeValues).toMatchObject({ ":to": "CANCELLATION_REQUESTED", ":from0": "QUEUED", ":from1": "RUNNING" });
  });

  it("stops the execution of a queued job and ends it CANCELLED", async () => {
    const job = aBatchJob({ workspace: caller.workspace, status: "QUEUED" });
    const table = stored(job);

    const response = await invoke(handler, cancel(job.id));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ status: "CANCELLED", completed_at: NOW });
    expect(executions.stopExecution).toHaveBeenCalledExactlyOnceWith(job.executionArn, expect.any(String));
    expect(table.job(caller.workspace, job.id)).toMatchObject({ status: "CANCELLED", completedAt: NOW });
    expect(table.job(caller.workspace, job.id)).not.toHaveProperty("activeKey");
    expect(batchCalls(dynamo, UpdateCommand).map((u) => u.ExpressionAttributeValues[":to"])).toStrictEqual(["CANCELLATION_REQUESTED", "CANCELLED"]);
  });

  it("still ends a queued job CANCELLED when its execution cannot be stopped", async () => {
    executions.stopExecution.mockRejectedValue(new Error("throttled"));
    const job = aBatchJob({ workspace: caller.workspace, status: "QUEUED" });
    stored(job);

    const response = await invoke(handler, cancel(job.id));

    expect(response.statusCode).toBe(200);
    expect(response.json.status).toBe("CANCELLED");
  });

  it("does not stop a job the engine started between the read and the write", async () => {
    const job = aBatchJob({ workspace: caller.workspace, status: "QUEUED" });
    const table = stored({ ...job, status: "RUNNING", startedAt: NOW - 1 });
    firstReadSees(job, table);

    const response = await invoke(handler, cancel(job.id));

    expect(response.json.status).toBe("CANCELLATION_REQUESTED");
    expect(executions.stopExecution).not.toHaveBeenCalled();
    expect(table.job(caller.workspace, job.id)!.status).toBe("CANCELLATION_REQUESTED");
  });

  it("answers a job already being cancelled as it is, writing nothing", async () => {
    const job = aBatchJob({ workspace: caller.workspace, status: "CANCELLATION_REQUESTED", startedAt: NOW - 60 });
    stored(job);

    const response = await invoke(handler, cancel(job.id));

    expect(response.statusCode).toBe(200);
    expect(response.json.status).toBe("CANCELLATION_REQUESTED");
    expect(batchCalls(dynamo, UpdateCommand)).toHaveLength(0);
  });

  it.each<BatchStatus>(["SUCCESS", "FAILED", "TIMEOUT_EXCEEDED", "CANCELLED"])("refuses to cancel a %s job with 409", async (status) => {
    const job = aBatchJob({ workspace: caller.workspace, status, completedAt: NOW - 5 });
    stored(job);

    const response = await invoke(handler, cancel(job.id));

    expect(response.statusCode).toBe(409);
    expect(response.json).toMatchObject({ object: "error", type: "conflict_error", code: "batch_job_finished" });
    expect(response.json.message).toContain(status);
    expect(batchCalls(dynamo, UpdateCommand)).toHaveLength(0);
    expect(executions.stopExecution).not.toHaveBeenCalled();
  });

  it("refuses with 409 when the job finished between the read and the write", async () => {
    const job = aBatchJob({ workspace: caller.workspace, status: "RUNNING", startedAt: NOW - 60 });
    firstReadSees(job, stored({ ...job, status: "SUCCESS", completedAt: NOW }));

    const response = await invoke(handler, cancel(job.id));

    expect(response.statusCode).toBe(409);
    expect(response.json.code).toBe("batch_job_finished");
  });

  it("answers 404 for a job that is not the workspace's", async () => {
    stored(aBatchJob({ status: "RUNNING" }));

    const response = await invoke(handler, cancel(randomUUID()));

    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("batch_job_not_found");
  });
});

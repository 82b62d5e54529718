import { randomUUID } from "node:crypto";
import { DeleteObjectCommand } from "@aws-sdk/client-s3";
import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/batch/delete.js";
import type { BatchStatus } from "../../../shared/schemas/batch.js";
import type { BatchJobRecord } from "../../../shared/domain/batch-rules.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aBatchJob, aBatchJobItem, batchCalls, serveBatchTables } from "../../support/batch-table.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";

const executions = vi.hoisted(() => ({ startExecution: vi.fn(), stopExecution: vi.fn() }));
vi.mock("../../../shared/engine/executions.js", () => executions);

const dynamo = mockDynamo();
const s3 = mockS3({ resolves: {} });
const caller = aCaller();

beforeEach(() => {
  executions.stopExecution.mockReset().mockResolvedValue(undefined);
});

const remove = (id: string) =>
  anEvent({ method: "DELETE", path: `/v1/batch/jobs/${id}`, resource: "/v1/batch/jobs/{job_id}", pathParameters: { job_id: id }, caller });

const stored = (job: BatchJobRecord) => serveBatchTables(dynamo, { batch: [aBatchJobItem(job)] });

describe("DELETE /v1/batch/jobs/{job_id}", () => {
  it("answers 200 with the deletion and removes the record", async () => {
    const job = aBatchJob({ workspace: caller.workspace, status: "SUCCESS" });
    const table = stored(job);

    const response = await invoke(handler, remove(job.id));

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.json).toStrictEqual({ id: job.id, object: "batch", deleted: true });
    expect(table.job(caller.workspace, job.id)).toBeUndefined();
    expect(batchCalls(dynamo, DeleteCommand)[0]).toMatchObject({ Key: { workspace: caller.workspace, sk: `JOB#${job.id}` } });
  });

  it.each<BatchStatus>(["QUEUED", "RUNNING", "CANCELLATION_REQUESTED"])("stops the execution of a %s job before removing it", async (status) => {
    const job = aBatchJob({ workspace: caller.workspace, status });
    const table = stored(job);

    const response = await invoke(handler, remove(job.id));

    expect(response.statusCode).toBe(200);
    expect(executions.stopExecution).toHaveBeenCalledExactlyOnceWith(job.executionArn, expect.any(String));
    expect(table.job(caller.workspace, job.id)).toBeUndefined();
  });

  it.each<BatchStatus>(["SUCCESS", "FAILED", "TIMEOUT_EXCEEDED", "CANCELLED"])("leaves the ended execution of a %s job alone", async (status) => {
    const job = aBatchJob({ workspace: caller.workspace, status });
    stored(job);

    await invoke(handler, remove(job.id));

    expect(executions.stopExecution).not.toHaveBeenCalled();
  });

  it("keeps the job and answers 500 when its running execution cannot be stopped", async () => {
    executions.stopExecution.mockRejectedValue(new Error("throttled: internal detail"));
    const job = aBatchJob({ workspace: caller.workspace, status: "RUNNING" });
    const table = stored(job);

    const response = await invoke(handler, remove(job.id));

    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain("internal detail");
    expect(table.job(caller.workspace, job.id)).toBeDefined();
  });

  it("removes the object holding the job's inline requests", async () => {
    const inlineKey = `workspaces/${caller.workspace}/batch/j/inline.jsonl`;
    const job = aBatchJob({ workspace: caller.workspace, status: "SUCCESS", inputFiles: [], inlineKey });
    stored(job);

    await invoke(handler, remove(job.id));

    expect(s3.commandCalls(DeleteObjectCommand).map((c) => c.args[0].input)).toStrictEqual([{ Bucket: "platform-files", Key: inlineKey }]);
  });

  it("leaves the job's input and result files alone", async () => {
    const job = aBatchJob({ workspace: caller.workspace, status: "SUCCESS", outputFile: randomUUID(), errorFile: randomUUID() });
    stored(job);

    await invoke(handler, remove(job.id));

    expect(s3.commandCalls(DeleteObjectCommand)).toHaveLength(0);
  });

  it("answers 404 for a job of another workspace, and the second time", async () => {
    const theirs = aBatchJob({ status: "RUNNING" });
    const mine = aBatchJob({ workspace: caller.workspace, status: "SUCCESS" });
    serveBatchTables(dynamo, { batch: [aBatchJobItem(theirs), aBatchJobItem(mine)] });

    const other = await invoke(handler, remove(theirs.id));
    expect((await invoke(handler, remove(mine.id))).statusCode).toBe(200);
    const again = await invoke(handler, remove(mine.id));

    expect(other.statusCode).toBe(404);
    expect(other.json).toMatchObject({ type: "not_found_error", code: "batch_job_not_found" });
    expect(executions.stopExecution).not.toHaveBeenCalled();
    expect(again.statusCode).toBe(404);
  });
});

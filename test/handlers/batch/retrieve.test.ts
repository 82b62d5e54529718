import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { GetObjectCommand, type GetObjectCommandInput } from "@aws-sdk/client-s3";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/batch/retrieve.js";
import type { FileRecord } from "../../../shared/domain/file-rules.js";
import type { BatchJobRecord } from "../../../shared/domain/batch-rules.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aBatchJob, aBatchJobItem, serveBatchTables } from "../../support/batch-table.js";
import { aCaller, aFile, aFileItem, anEvent, invoke } from "../../support/builders.js";

vi.mock("../../../shared/engine/executions.js", () => ({ startExecution: vi.fn(), stopExecution: vi.fn() }));

const dynamo = mockDynamo();
const s3 = mockS3();
const caller = aCaller();
let objects: Map<string, string>;

beforeEach(() => {
  objects = new Map();
  s3.on(GetObjectCommand).callsFake((input: GetObjectCommandInput) => ({ Body: Readable.from([Buffer.from(objects.get(input.Key!) ?? "")]) as never }));
});

const retrieve = (id: string, query: Record<string, string> = {}) =>
  anEvent({ path: `/v1/batch/jobs/${id}`, resource: "/v1/batch/jobs/{job_id}", pathParameters: { job_id: id }, query, caller });

const resultLine = (customId: string, status = 200) => JSON.stringify({ id: `res-${customId}`, custom_id: customId, response: { status_code: status, body: { ok: true } }, error: null });

/** A finished job with result files of the given lines, served with its files. */
function aFinishedJob(outputLines: string[], errorLines: string[] = [], fileOverrides: Partial<FileRecord> = {}) {
  const output = aFile({ workspace: caller.workspace, purpose: "batch", sampleType: "batch_result", bytes: Buffer.byteLength(outputLines.join("\n")), numLines: outputLines.length, ...fileOverrides });
  const error = aFile({ workspace: caller.workspace, purpose: "batch", sampleType: "batch_error", bytes: Buffer.byteLength(errorLines.join("\n")), numLines: errorLines.length });
  const job = aBatchJob({
    workspace: caller.workspace,
    status: "SUCCESS",
    outputFile: output.id,
    errorFile: errorLines.length ? error.id : null,
    totalRequests: outputLines.length + errorLines.length,
    completedRequests: outputLines.length + errorLines.length,
    succeededRequests: outputLines.length,
    failedRequests: errorLines.length,
    startedAt: 1_700_000_010,
    completedAt: 1_700_000_100,
  });
  objects.set(output.objectKey, `${outputLines.join("\n")}\n`);
  objects.set(error.objectKey, `${errorLines.join("\r\n")}\r\n`);
  serveBatchTables(dynamo, { batch: [aBatchJobItem(job)], files: [aFileItem(output), aFileItem(error)] });
  return job;
}

const served = (job: BatchJobRecord) => serveBatchTables(dynamo, { batch: [aBatchJobItem(job)] });

describe("GET /v1/batch/jobs/{job_id}", () => {
  it("answers 200 with the BatchJob", async () => {
    const job = aBatchJob({
      workspace: caller.workspace,
      status: "RUNNING",
      metadata: { team: "a" },
      startedAt: 1_700_000_005,
      totalRequests: 10,
      completedRequests: 4,
      succeededRequests: 3,
      failedRequests: 1,
      errors: [{ message: "3 requests timed out", count: 3 }],
    });
    served(job);
    const event = retrieve(job.id);

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({
      id: job.id,
      object: "batch",
      input_files: job.inputFiles,
      metadata: { team: "a" },
      endpoint: "/v1/chat/completions",
      model: "mistral-small-latest",
      agent_id: null,
      output_file: null,
      error_file: null,
      errors: [{ message: "3 requests timed out", count: 3 }],
      outputs: null,
      status: "RUNNING",
      created_at: 1_700_000_000,
      total_requests: 10,
      completed_requests: 4,
      succeeded_requests: 3,
      failed_requests: 1,
      started_at: 1_700_000_005,
      completed_at: null,
    });
  });

  it("never shows the job's internals (execution, owner, deadline, keys)", async () => {
    const job = aBatchJob({ workspace: caller.workspace });
    served(job);

    const response = await invoke(handler, retrieve(job.id));

    expect(response.body).not.toContain(job.executionArn!);
    expect(response.body).not.toContain(job.owner);
    expect(Object.keys(response.json)).not.toContain("deadline");
  });

  it("answers 404 for another workspace's job", async () => {
    const theirs = aBatchJob();
    served(theirs);

    const response = await invoke(handler, retrieve(theirs.id));

    expect(response.statusCode).toBe(404);
    expect(response.json).toMatchObject({ object: "error", type: "not_found_error", code: "batch_job_not_found" });
    expect(response.json.message).toContain(theirs.id);
  });

  it("answers 422 for an id that is not a UUID", async () => {
    const response = await invoke(handler, retrieve("nope"));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0]).toMatchObject({ loc: ["path", "job_id"], type: "uuid_parsing" });
  });

  it("answers the output file's lines, then the error file's, with inline=true", async () => {
    const job = aFinishedJob([resultLine("a"), "", resultLine("b")], [resultLine("c", 400)]);

    const response = await invoke(handler, retrieve(job.id, { inline: "true" }));

    expect(response.statusCode).toBe(200);
    expect(response.json.outputs).toStrictEqual([JSON.parse(resultLine("a")), JSON.parse(resultLine("b")), JSON.parse(resultLine("c", 400))]);
  });

  it("leaves outputs null without inline=true and reads no file", async () => {
    const job = aFinishedJob([resultLine("a")]);

    const response = await invoke(handler, retrieve(job.id));

    expect(response.json.outputs).toBeNull();
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });

  it("leaves outputs null while the job runs", async () => {
    const job = aBatchJob({ workspace: caller.workspace, status: "RUNNING", outputFile: randomUUID() });
    served(job);

    const response = await invoke(handler, retrieve(job.id, { inline: "true" }));

    expect(response.json.outputs).toBeNull();
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });

  it("leaves outputs null for result files over 1 MB, without reading them", async () => {
    const job = aFinishedJob([resultLine("a")], [], { bytes: 1024 * 1024 + 1 });

    const response = await invoke(handler, retrieve(job.id, { inline: "true" }));

    expect(response.json.outputs).toBeNull();
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });

  it("leaves outputs null for more than 1,000 result lines", async () => {
    const lines = Array.from({ length: 1001 }, (_, i) => JSON.stringify({ custom_id: String(i) }));
    const job = aFinishedJob(lines);

    const response = await invoke(handler, retrieve(job.id, { inline: "true" }));

    expect(response.json.outputs).toBeNull();
  });

  it("answers exactly 1,000 result lines inline", async () => {
    const lines = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ custom_id: String(i) }));
    const job = aFinishedJob(lines);

    const response = await invoke(handler, retrieve(job.id, { inline: "true" }));

    expect(response.json.outputs).toHaveLength(1000);
  });

  it("answers the results written before a cancellation inline", async () => {
    const job = aFinishedJob([resultLine("a")]);
    serveBatchTables(dynamo, {
      batch: [aBatchJobItem({ ...job, status: "CANCELLED" })],
      files: [aFileItem(aFile({ id: job.outputFile!, workspace: caller.workspace, objectKey: `workspaces/${caller.workspace}/files/${job.outputFile}` }))],
    });

    const response = await invoke(handler, retrieve(job.id, { inline: "true" }));

    expect(response.json).toMatchObject({ status: "CANCELLED", outputs: [JSON.parse(resultLine("a"))] });
  });
});

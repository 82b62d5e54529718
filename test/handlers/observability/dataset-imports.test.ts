import { randomBytes, randomUUID } from "node:crypto";
import { PutObjectCommand, type PutObjectCommandInput } from "@aws-sdk/client-s3";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as exportToJsonl } from "../../../functions/observability/export-dataset-to-jsonl.js";
import { handler as getTask } from "../../../functions/observability/get-dataset-task.js";
import { handler as fromDataset } from "../../../functions/observability/import-dataset-from-dataset.js";
import { handler as fromFile } from "../../../functions/observability/import-dataset-from-file.js";
import { handler as fromPlayground } from "../../../functions/observability/import-dataset-from-playground.js";
import { handler as listTasks } from "../../../functions/observability/list-dataset-tasks.js";
import type { DatasetImportTask } from "../../../shared/domain/observability/dataset-imports.js";
import { verifyDownload } from "../../../shared/domain/signed-urls.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, aFile, aFileItem, aJsonEvent, anEvent, aSigningKeyItem, invoke } from "../../support/builders.js";
import { aDataset, aDatasetItem, aRecord, aRecordItem } from "../../support/dataset-items.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";

const executions = vi.hoisted(() => ({ startExecution: vi.fn(), stopExecution: vi.fn() }));
vi.mock("../../../shared/engine/executions.js", () => executions);
// The conversation lookup runs on the analytical store (DuckDB/Athena): its answers are given here.
const search = vi.hoisted(() => ({ searchTelemetry: vi.fn(), aggregateTelemetry: vi.fn() }));
vi.mock("../../../shared/services/observability/engine.js", () => search);

const dynamo = mockDynamo();
const s3 = mockS3();
const SECRET = randomBytes(32);
let tables: FakeTables;
let objects: Map<string, string>;
beforeEach(() => {
  tables = serveTables(dynamo, { tenancy: [aSigningKeyItem(SECRET)] }, { writes: true });
  objects = new Map();
  s3.on(PutObjectCommand).callsFake((input: PutObjectCommandInput) => {
    objects.set(input.Key!, Buffer.isBuffer(input.Body) ? input.Body.toString("utf8") : String(input.Body));
    return {};
  });
  executions.startExecution.mockReset().mockResolvedValue("arn:aws:states:us-east-1:123456789012:execution:datasetImport:task");
  search.searchTelemetry.mockReset().mockResolvedValue({ results: [], next: null, cursor: null });
  search.aggregateTelemetry.mockReset().mockResolvedValue({ data: [], meta: {} });
});
/** The aggregation's answer when these conversations have spans with messages. */
const found = (...ids: string[]) => ({ data: ids.map((id) => ({ time_bucket: null, dimensions: { conversation_id: id }, metric_name: "count(*)", metric_value: 1 })), meta: {} });

const caller = aCaller();
const base = (datasetId: string) => `/v1/observability/datasets/${datasetId}`;
const post = (datasetId: string, what: string, body: unknown, who = caller) =>
  aJsonEvent(body, { path: `${base(datasetId)}/imports/${what}`, pathParameters: { dataset_id: datasetId }, caller: who });
const seededDataset = (owner = caller) => {
  const dataset = aDataset(owner);
  tables.put("datasets", aDatasetItem(dataset));
  return dataset;
};
const seededFile = (overrides = {}, owner = caller) => {
  const file = aFile({ workspace: owner.workspace, organization: owner.organization, owner: owner.principal, ...overrides });
  tables.put("files", aFileItem(file));
  return file;
};
const taskItems = () => tables.items("datasets").filter((item) => String(item.sk).startsWith("TASK#"));
const aTask = (dataset: { workspace: string; id: string }, overrides: Partial<DatasetImportTask> = {}): DatasetImportTask => ({
  workspace: dataset.workspace,
  id: randomUUID(),
  datasetId: dataset.id,
  creatorId: caller.principal,
  createdAt: "2025-02-01T00:00:00.000Z",
  updatedAt: "2025-02-01T00:00:01.000Z",
  status: "COMPLETED",
  source: "FILE",
  fileId: randomUUID(),
  objectKey: "workspaces/x/files/y",
  bytes: 40,
  cursor: 40,
  line: 3,
  processed: 2,
  imported: 1,
  failed: 1,
  failures: [{ line: 2, id: null, reason: "not a JSON object" }],
  message: "Imported 1 record; 1 failed (line 2: not a JSON object).",
  ...overrides,
});
const seededTask = (task: DatasetImportTask) => {
  tables.put("datasets", { ...task, pk: `WS#${task.workspace}`, sk: `TASK#${task.id}`, parentKey: `${task.workspace}#DS#${task.datasetId}#TASKS`, createdKey: `${task.createdAt}#${task.id}` });
  return task;
};

describe("POST /v1/observability/datasets/{dataset_id}/imports/from-file", () => {
  it("records a RUNNING task of the file and starts its execution, answering 202 DatasetImportTask", async () => {
    const dataset = seededDataset();
    const file = seededFile();

    const response = await invoke(fromFile, post(dataset.id, "from-file", { file_id: file.id }));

    expect(response.statusCode).toBe(202);
    expect(response.json).toMatchObject({ dataset_id: dataset.id, workspace_id: caller.workspace, creator_id: caller.principal, status: "RUNNING", progress: 0, message: null, deleted_at: null, source: "FILE", processed_count: 0 });
    expect(taskItems()).toMatchObject([{ id: response.json.id, fileId: file.id, objectKey: file.objectKey, bytes: file.bytes, cursor: 0, line: 1, status: "RUNNING" }]);
    expect(executions.startExecution).toHaveBeenCalledWith("datasetImport", response.json.id, { workspace: caller.workspace, taskId: response.json.id });
  });

  it("answers 404 FILE_NOT_FOUND for another workspace's file and starts nothing", async () => {
    const dataset = seededDataset();
    const theirs = seededFile({}, aCaller());

    const response = await invoke(fromFile, post(dataset.id, "from-file", { file_id: theirs.id }));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail).toEqual({ message: expect.stringContaining(theirs.id), error_code: "FILE_NOT_FOUND" });
    expect(taskItems()).toEqual([]);
    expect(executions.startExecution).not.toHaveBeenCalled();
  });

  it("answers 404 DATASET_NOT_FOUND for another workspace's dataset", async () => {
    const theirs = seededDataset(aCaller());
    const file = seededFile();

    const response = await invoke(fromFile, post(theirs.id, "from-file", { file_id: file.id }));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail.error_code).toBe("DATASET_NOT_FOUND");
    expect(taskItems()).toEqual([]);
  });

  it("refuses a file that is not JSON lines, and a file_id that is not a UUID, with 422", async () => {
    const dataset = seededDataset();
    const pdf = seededFile({ filename: "report.pdf", mimetype: "application/pdf", numLines: null });

    const notJsonl = await invoke(fromFile, post(dataset.id, "from-file", { file_id: pdf.id }));
    const malformed = await invoke(fromFile, post(dataset.id, "from-file", { file_id: "file-1" }));

    expect(notJsonl.statusCode).toBe(422);
    expect(notJsonl.json.detail).toEqual({ message: expect.stringContaining("not JSON lines"), error_code: "VALIDATION_ERROR" });
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json.detail).toEqual({ message: expect.stringContaining("file_id"), error_code: "VALIDATION_ERROR" });
    expect(taskItems()).toEqual([]);
  });

  it("answers the task FAILED, saying so, when its execution cannot start", async () => {
    const dataset = seededDataset();
    const file = seededFile();
    executions.startExecution.mockRejectedValue(new Error("throttled"));

    const response = await invoke(fromFile, post(dataset.id, "from-file", { file_id: file.id }));

    expect(response.statusCode).toBe(202);
    expect(response.json).toMatchObject({ status: "FAILED", message: "The import could not be started; start it again" });
    expect(taskItems()).toMatchObject([{ status: "FAILED" }]);
  });
});

describe("POST /v1/observability/datasets/{dataset_id}/imports/from-dataset", () => {
  it("keeps the record ids for the task (once each) and starts it", async () => {
    const source = seededDataset();
    const target = seededDataset();
    const records = [aRecord(source), aRecord(source)];
    tables.put("datasets", ...records.map(aRecordItem));

    const response = await invoke(fromDataset, post(target.id, "from-dataset", { dataset_record_ids: [records[0]!.id, records[1]!.id.toUpperCase(), records[0]!.id] }));

    expect(response.statusCode).toBe(202);
    expect(response.json).toMatchObject({ dataset_id: target.id, status: "RUNNING", source: "DATASET", progress: 0 });
    const [task] = taskItems();
    expect(task).toMatchObject({ source: "DATASET", total: 2, inputKey: `workspaces/${caller.workspace}/dataset-imports/${response.json.id}.json` });
    expect(JSON.parse(objects.get(String(task!.inputKey))!)).toEqual([records[0]!.id, records[1]!.id]);
    expect(executions.startExecution).toHaveBeenCalledTimes(1);
  });

  it("answers 404 DATASET_RECORD_NOT_FOUND naming another workspace's record, and starts nothing", async () => {
    const target = seededDataset();
    const mine = aRecord(target);
    const theirs = aRecord(aDataset(aCaller()));
    tables.put("datasets", aRecordItem(mine), aRecordItem(theirs));

    const response = await invoke(fromDataset, post(target.id, "from-dataset", { dataset_record_ids: [mine.id, theirs.id] }));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail).toEqual({ message: expect.stringContaining(theirs.id), error_code: "DATASET_RECORD_NOT_FOUND" });
    expect(response.json.detail.message).not.toContain(mine.id);
    expect(taskItems()).toEqual([]);
    expect(objects.size).toBe(0);
  });

  it("refuses an empty list with 422", async () => {
    const target = seededDataset();

    const response = await invoke(fromDataset, post(target.id, "from-dataset", { dataset_record_ids: [] }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail.error_code).toBe("VALIDATION_ERROR");
  });
});

describe("POST /v1/observability/datasets/{dataset_id}/imports/from-playground", () => {
  it("looks the conversations up by conversation_id among spans with messages, in the caller's workspace, and starts the task", async () => {
    const dataset = seededDataset();
    search.aggregateTelemetry.mockResolvedValue(found("conv-1"));

    const response = await invoke(fromPlayground, post(dataset.id, "from-playground", { conversation_ids: ["conv-1"] }));

    expect(response.statusCode).toBe(202);
    expect(response.json).toMatchObject({ status: "RUNNING", source: "PLAYGROUND" });
    expect(search.aggregateTelemetry).toHaveBeenCalledWith(
      caller.workspace,
      "spans",
      {},
      expect.objectContaining({ dimensions: ["conversation_id"], search_expression: "conversation_id IN ('conv-1') AND (input_messages != '' OR output_messages != '')" }),
    );
    expect(JSON.parse(objects.get(String(taskItems()[0]!.inputKey))!)).toEqual(["conv-1"]);
  });

  it("answers 404 CONVERSATION_NOT_FOUND naming the conversations it cannot find, and starts nothing", async () => {
    const dataset = seededDataset();
    search.aggregateTelemetry.mockResolvedValue(found("conv-1"));

    const response = await invoke(fromPlayground, post(dataset.id, "from-playground", { conversation_ids: ["conv-1", "it's-gone"] }));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail).toEqual({ message: expect.stringContaining("'it's-gone'"), error_code: "CONVERSATION_NOT_FOUND" });
    expect(search.aggregateTelemetry.mock.calls[0]![3].search_expression).toContain("'it\\'s-gone'");
    expect(taskItems()).toEqual([]);
    expect(executions.startExecution).not.toHaveBeenCalled();
  });

  it("refuses more than 100 conversations with 422", async () => {
    const dataset = seededDataset();

    const response = await invoke(fromPlayground, post(dataset.id, "from-playground", { conversation_ids: Array.from({ length: 101 }, (_, i) => `c${i}`) }));

    expect(response.statusCode).toBe(422);
    expect(search.aggregateTelemetry).not.toHaveBeenCalled();
  });
});

describe("GET /v1/observability/datasets/{dataset_id}/exports/to-jsonl", () => {
  const exportOf = (datasetId: string, who = caller) =>
    anEvent({ path: `${base(datasetId)}/exports/to-jsonl`, pathParameters: { dataset_id: datasetId }, caller: who, headers: { host: "api.example.com" } });

  it("writes the records as a JSONL File of the workspace and answers a signed download URL of it", async () => {
    const dataset = seededDataset();
    const records = [aRecord(dataset, { createdAt: "2025-01-02T00:00:00.000Z" }), aRecord(dataset, { createdAt: "2025-01-03T00:00:00.000Z", source: "UPLOADED_FILE" })];
    tables.put("datasets", ...records.map(aRecordItem), aRecordItem(aRecord(seededDataset())));

    const response = await invoke(exportToJsonl, exportOf(dataset.id));

    expect(response.statusCode).toBe(200);
    const url = new URL(response.json.file_url);
    const fileId = /\/v1\/files\/([0-9a-f-]{36})\/download$/.exec(url.pathname)![1]!;
    const check = verifyDownload(SECRET, url.searchParams.get("token")!, Math.floor(Date.now() / 1000));
    expect(check).toMatchObject({ ok: true, grant: { workspace: caller.workspace, fileId } });
    const lines = objects.get(`workspaces/${caller.workspace}/files/${fileId}`)!.trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(lines).toEqual(records.map((r) => ({ id: r.id, source: r.source, created_at: r.createdAt, payload: r.payload, properties: r.properties })));
    expect(tables.items("files")).toMatchObject([{ id: fileId, workspace: caller.workspace, filename: `dataset_${dataset.id}_export.jsonl`, numLines: 2, mimetype: "application/jsonl" }]);
  });

  it("answers 404 DATASET_NOT_FOUND for another workspace's dataset and writes nothing", async () => {
    const theirs = seededDataset(aCaller());

    const response = await invoke(exportToJsonl, exportOf(theirs.id));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail.error_code).toBe("DATASET_NOT_FOUND");
    expect(objects.size).toBe(0);
    expect(tables.items("files")).toEqual([]);
  });
});

describe("GET /v1/observability/datasets/{dataset_id}/tasks", () => {
  const list = (datasetId: string, query: Record<string, string> = {}) => anEvent({ path: `${base(datasetId)}/tasks`, pathParameters: { dataset_id: datasetId }, query, caller });

  it("pages the dataset's tasks oldest first, with their counts and failures", async () => {
    const dataset = seededDataset();
    const tasks = ["2025-02-01", "2025-02-02", "2025-02-03"].map((day) => seededTask(aTask(dataset, { createdAt: `${day}T00:00:00.000Z` })));
    seededTask(aTask(seededDataset()));

    const response = await invoke(listTasks, list(dataset.id, { page: "2", page_size: "2" }));

    expect(response.statusCode).toBe(200);
    expect(response.json.tasks).toEqual({
      results: [expect.objectContaining({ id: tasks[2]!.id, status: "COMPLETED", progress: 100, processed_count: 2, imported_count: 1, failed_count: 1, failures: [{ line: 2, id: null, reason: "not a JSON object" }] })],
      count: 3,
      next: null,
      previous: `${base(dataset.id)}/tasks?page=1&page_size=2`,
    });
  });

  it("answers 404 DATASET_NOT_FOUND for another workspace's dataset", async () => {
    const theirs = seededDataset(aCaller());

    const response = await invoke(listTasks, list(theirs.id));

    expect(response.statusCode).toBe(404);
  });
});

describe("GET /v1/observability/datasets/{dataset_id}/tasks/{task_id}", () => {
  const get = (datasetId: string, taskId: string) => anEvent({ path: `${base(datasetId)}/tasks/${taskId}`, pathParameters: { dataset_id: datasetId, task_id: taskId }, caller });

  it("answers the task as the OpenAPI's DatasetImportTask", async () => {
    const dataset = seededDataset();
    const task = seededTask(aTask(dataset, { status: "RUNNING", cursor: 10, message: null }));

    const response = await invoke(getTask, get(dataset.id, task.id));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: task.id, dataset_id: dataset.id, workspace_id: caller.workspace, creator_id: caller.principal, status: "RUNNING", progress: 25, message: null, deleted_at: null });
  });

  it("answers 404 DATASET_TASK_NOT_FOUND for a task of another dataset", async () => {
    const dataset = seededDataset();
    const other = seededTask(aTask(seededDataset()));

    const response = await invoke(getTask, get(dataset.id, other.id));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail.error_code).toBe("DATASET_TASK_NOT_FOUND");
  });
});

/**
 * Dataset imports, the export and import tasks driven by the official, unmodified SDK
 * (`client.beta.observability.datasets.importFrom*`, `.exportToJsonl`, `.listTasks`, `.fetchTask`) against the local
 * server: 202 DatasetImportTask where the SDK expects it, tasks parsed into the SDK's types (dates as Date), errors as
 * ObservabilityError.
 */
import { randomUUID } from "node:crypto";
import { Mistral } from "@mistralai/mistralai";
import { ObservabilityError } from "@mistralai/mistralai/models/errors";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
beforeAll(() => {
  client = sdkClient(api, tenant.key);
});
const datasets = () => client.beta.observability.datasets;
const conversation = (question: string) => ({ messages: [{ role: "user", content: question }, { role: "assistant", content: "4" }] });
const aDataset = (name = "sdk imports") => datasets().create({ name, description: "made by the SDK" });
const bytesOf = (text: string) => new TextEncoder().encode(text);

/** The task once it is no longer RUNNING, through fetchTask. */
async function settled(datasetId: string, taskId: string) {
  for (let i = 0; i < 200; i += 1) {
    const task = await datasets().fetchTask({ datasetId, taskId });
    if (task.status !== "RUNNING") return task;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`task ${taskId} still RUNNING`);
}

describe("client.beta.observability.datasets imports: POST /v1/observability/datasets/{dataset_id}/imports/from-file, GET /v1/observability/datasets/{dataset_id}/tasks/{task_id}, GET /v1/observability/datasets/{dataset_id}/tasks", () => {
  it("imports an uploaded JSONL file as a task (202), fetches and lists the task", async () => {
    const dataset = await aDataset();
    const content = `${JSON.stringify({ payload: conversation("2+2?"), properties: { by: "sdk" } })}\nnot json\n`;
    const file = await client.files.upload({ file: { fileName: "records.jsonl", content: bytesOf(content) }, purpose: "fine-tune" });

    const task = await datasets().importFromFile({ datasetId: dataset.id, importDatasetFromFileRequest: { fileId: file.id } });

    expect(task).toMatchObject({ datasetId: dataset.id, workspaceId: tenant.caller.workspace, creatorId: tenant.caller.principal, status: "RUNNING", deletedAt: null });
    expect(task.createdAt).toBeInstanceOf(Date);
    const done = await settled(dataset.id, task.id);
    expect(done).toMatchObject({ id: task.id, status: "COMPLETED", progress: 100, message: expect.stringMatching(/^Imported 1 record; 1 failed \(line 2: not JSON/) });
    const listed = await datasets().listTasks({ datasetId: dataset.id, pageSize: 10 });
    expect(listed.tasks).toMatchObject({ count: 1, results: [{ id: task.id, status: "COMPLETED" }] });
    const records = await datasets().listRecords({ datasetId: dataset.id });
    expect(records.records.results).toMatchObject([{ payload: conversation("2+2?"), properties: { by: "sdk" }, source: "UPLOADED_FILE" }]);
  });

  it("refuses another workspace's file as ObservabilityError 404, and an unknown task likewise", async () => {
    const dataset = await aDataset();

    const file = await errorOf(datasets().importFromFile({ datasetId: dataset.id, importDatasetFromFileRequest: { fileId: randomUUID() } }), ObservabilityError);
    const task = await errorOf(datasets().fetchTask({ datasetId: dataset.id, taskId: randomUUID() }), ObservabilityError);

    expect(file.statusCode).toBe(404);
    expect(file.detail.errorCode).toBe("FILE_NOT_FOUND");
    expect(task.detail.errorCode).toBe("DATASET_TASK_NOT_FOUND");
  });
});

describe("client.beta.observability.datasets.importFromDatasetRecords: POST /v1/observability/datasets/{dataset_id}/imports/from-dataset", () => {
  it("copies records of another dataset into this one", async () => {
    const source = await aDataset("sdk source");
    const record = await datasets().createRecord({ datasetId: source.id, createDatasetRecordRequest: { payload: conversation("copy me"), properties: {} } });
    const target = await aDataset("sdk target");

    const task = await datasets().importFromDatasetRecords({ datasetId: target.id, importDatasetFromDatasetRequest: { datasetRecordIds: [record.id] } });

    expect(await settled(target.id, task.id)).toMatchObject({ status: "COMPLETED", message: "Imported 1 record." });
    expect((await datasets().listRecords({ datasetId: target.id })).records.results).toMatchObject([{ payload: conversation("copy me"), datasetId: target.id }]);
  });
});

describe("client.beta.observability.datasets.importFromPlayground: POST /v1/observability/datasets/{dataset_id}/imports/from-playground", () => {
  // Conversations are found by a search of the telemetry files (DuckDB, a native module the Lambda bundles leave out on
  // purpose: the cloud's searches are Athena's), so the bundled run (vitest.bundled.config.ts) cannot serve it.
  it.skipIf(inject("bundles"))("makes a record of a conversation the platform served (its conversation_id), and refuses an unknown one", async () => {
    const id = `sdk-conv-${randomUUID()}`;
    await client.chat.complete({ model: "mistral-small-latest", messages: [{ role: "user", content: "Hello?" }], metadata: { conversation_id: id } });
    const dataset = await aDataset();

    const unknown = await errorOf(datasets().importFromPlayground({ datasetId: dataset.id, importDatasetFromPlaygroundRequest: { conversationIds: ["never-seen"] } }), ObservabilityError);
    expect(unknown.statusCode).toBe(404);
    // The span is written after the answer: retried until it is there.
    let task;
    for (let i = 0; i < 50 && !task; i += 1) {
      task = await datasets()
        .importFromPlayground({ datasetId: dataset.id, importDatasetFromPlaygroundRequest: { conversationIds: [id] } })
        .catch(async (error: unknown) => {
          if (!(error instanceof ObservabilityError) || error.statusCode !== 404) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
          return undefined;
        });
    }
    expect(task).toBeDefined();

    expect(await settled(dataset.id, task!.id)).toMatchObject({ status: "COMPLETED", message: "Imported 1 record." });
    expect((await datasets().listRecords({ datasetId: dataset.id })).records.results).toMatchObject([{ source: "PLAYGROUND", properties: { conversation_id: id } }]);
  });
});

describe("client.beta.observability.datasets.exportToJsonl: GET /v1/observability/datasets/{dataset_id}/exports/to-jsonl", () => {
  it("answers a file URL that downloads the records as JSONL without a key", async () => {
    const dataset = await aDataset();
    await datasets().createRecord({ datasetId: dataset.id, createDatasetRecordRequest: { payload: conversation("exported"), properties: { n: 1 } } });

    const exported = await datasets().exportToJsonl({ datasetId: dataset.id });

    const download = await fetch(exported.fileUrl);
    expect(download.status).toBe(200);
    const lines = (await download.text()).trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(lines).toMatchObject([{ payload: conversation("exported"), properties: { n: 1 }, source: "DIRECT_INPUT" }]);
  });
});

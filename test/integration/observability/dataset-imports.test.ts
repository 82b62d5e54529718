import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aConversation, datasetsClient } from "../../support/datasets-client.js";
import { fetchAnonymously, filesClient, follow } from "../../support/files-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const datasets = datasetsClient(api, tenant);
const files = filesClient(api, tenant);
const stranger = async () => {
  const other = await newTenant();
  return { datasets: datasetsClient(api, other), files: filesClient(api, other) };
};
// No useTelemetryDir(): the import tasks run in the run's shared Step Functions stand-in (another process), which reads
// the run's telemetry directory, where this file's chat calls write their spans too.

const line = (question: string, properties: Record<string, unknown> = {}) => JSON.stringify({ payload: aConversation(question, "ok"), properties });
const payloads = async (datasetId: string) => ((await datasets.listRecords(datasetId)).body.records.results as { payload: unknown }[]).map((r) => r.payload);

describe("POST /v1/observability/datasets/{dataset_id}/imports/from-file", () => {
  it("imports a JSONL file in the background: the good lines become records, the bad one is counted with its line", async () => {
    const dataset = await datasets.created();
    const file = await files.uploaded({ filename: "records.jsonl", content: `${line("one", { n: 1 })}\n{"payload": oops}\n${line("three")}\n`, purpose: "fine-tune" });

    const started = await datasets.importFromFile(dataset.id, file.id as string);
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ dataset_id: dataset.id, status: "RUNNING", workspace_id: tenant.caller.workspace });

    const task = await datasets.settled(dataset.id, started.body.id);
    expect(task).toMatchObject({ status: "COMPLETED", progress: 100, processed_count: 3, imported_count: 2, failed_count: 1, failures: [{ line: 2, id: null, reason: expect.stringMatching(/^not JSON/) }] });
    expect(task.message).toMatch(/^Imported 2 records; 1 failed \(line 2: not JSON/);
    const records = (await datasets.listRecords(dataset.id)).body.records;
    expect(records.count).toBe(2);
    expect(records.results).toMatchObject([
      { source: "UPLOADED_FILE", payload: aConversation("one", "ok"), properties: { n: 1 } },
      { source: "UPLOADED_FILE", payload: aConversation("three", "ok"), properties: {} },
    ]);
  });

  it("answers 404 for another workspace's file and for another workspace's dataset", async () => {
    const dataset = await datasets.created();
    const other = await stranger();
    const theirFile = await other.files.uploaded({ filename: "theirs.jsonl", content: `${line("x")}\n` });
    const theirDataset = await other.datasets.created();
    const myFile = await files.uploaded({ filename: "mine.jsonl", content: `${line("x")}\n` });

    const file404 = await datasets.importFromFile(dataset.id, theirFile.id as string);
    const dataset404 = await datasets.importFromFile(theirDataset.id, myFile.id as string);

    expect(file404.status).toBe(404);
    expect(file404.body.detail.error_code).toBe("FILE_NOT_FOUND");
    expect(dataset404.status).toBe(404);
    expect(dataset404.body.detail.error_code).toBe("DATASET_NOT_FOUND");
    expect((await datasets.listTasks(dataset.id)).body.tasks.count).toBe(0);
  });
});

describe("POST /v1/observability/datasets/{dataset_id}/imports/from-dataset", () => {
  it("copies the chosen records of another dataset of the workspace", async () => {
    const source = await datasets.created();
    const first = await datasets.createdRecord(aConversation("first"), source.id, { tag: "a" });
    await datasets.createdRecord(aConversation("second"), source.id);
    const third = await datasets.createdRecord(aConversation("third"), source.id);
    const target = await datasets.created();

    const started = await datasets.importFromDataset(target.id, [first.id, third.id]);
    expect(started.status).toBe(202);

    expect(await datasets.settled(target.id, started.body.id)).toMatchObject({ status: "COMPLETED", imported_count: 2, failed_count: 0, message: "Imported 2 records." });
    const copies = (await datasets.listRecords(target.id)).body.records.results;
    expect(copies).toMatchObject([
      { dataset_id: target.id, payload: aConversation("first"), properties: { tag: "a" }, source: "DIRECT_INPUT" },
      { dataset_id: target.id, payload: aConversation("third") },
    ]);
    expect(copies.map((r: { id: string }) => r.id)).not.toContain(first.id);
    expect((await datasets.listRecords(source.id)).body.records.count).toBe(3);
  });

  it("answers 404 naming another workspace's record and starts no task", async () => {
    const target = await datasets.created();
    const theirs = await (await stranger()).datasets.createdRecord();

    const reply = await datasets.importFromDataset(target.id, [theirs.id]);

    expect(reply.status).toBe(404);
    expect(reply.body.detail).toEqual({ message: expect.stringContaining(theirs.id), error_code: "DATASET_RECORD_NOT_FOUND" });
    expect((await datasets.listTasks(target.id)).body.tasks.count).toBe(0);
  });
});

describe("POST /v1/observability/datasets/{dataset_id}/imports/from-playground", () => {
  it("makes a PLAYGROUND record of a conversation from its model call's span", async () => {
    const conversation = `conv-${randomUUID()}`;
    const chat = await files.request("POST", "/v1/chat/completions", {
      json: { model: "mistral-small-latest", messages: [{ role: "user", content: "What is 2+2?" }], metadata: { conversation_id: conversation } },
    });
    expect(chat.status).toBe(200);
    const dataset = await datasets.created();

    // The span is written after the answer: the import finds it once it is there.
    let started = await datasets.importFromPlayground(dataset.id, [conversation]);
    for (let i = 0; i < 50 && started.status === 404; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      started = await datasets.importFromPlayground(dataset.id, [conversation]);
    }
    expect(started.status).toBe(202);

    const settled = await datasets.settled(dataset.id, started.body.id);
    expect(settled).toMatchObject({ status: "COMPLETED", imported_count: 1 });
    const [record] = (await datasets.listRecords(dataset.id)).body.records.results;
    expect(record).toMatchObject({ source: "PLAYGROUND", properties: { conversation_id: conversation } });
    expect(record.payload.messages[0]).toEqual({ role: "user", content: "What is 2+2?" });
    expect(record.payload.messages.at(-1).role).toBe("assistant");
  });

  it("answers 404 CONVERSATION_NOT_FOUND for a conversation it has no model call of", async () => {
    const dataset = await datasets.created();

    const reply = await datasets.importFromPlayground(dataset.id, ["no-such-conversation"]);

    expect(reply.status).toBe(404);
    expect(reply.body.detail.error_code).toBe("CONVERSATION_NOT_FOUND");
  });
});

describe("GET /v1/observability/datasets/{dataset_id}/exports/to-jsonl", () => {
  it("answers a signed URL whose JSONL holds the records, and that file imports back", async () => {
    const dataset = await datasets.created();
    await datasets.createdRecord(aConversation("one"), dataset.id, { n: 1 });
    await datasets.createdRecord({ free: "form" }, dataset.id);

    const exported = await datasets.exportToJsonl(dataset.id);

    expect(exported.status).toBe(200);
    const download = await follow(await fetchAnonymously(exported.body.file_url));
    expect(download.status).toBe(200);
    const lines = download.bytes.toString("utf8").trimEnd().split("\n").map((l) => JSON.parse(l));
    expect(lines).toMatchObject([
      { payload: aConversation("one"), properties: { n: 1 }, source: "DIRECT_INPUT" },
      { payload: { free: "form" }, properties: {} },
    ]);

    const copy = await datasets.created();
    const file = await files.uploaded({ filename: "export.jsonl", content: download.bytes.toString("utf8") });
    expect(await datasets.importedFromFile(copy.id, file.id as string)).toMatchObject({ status: "COMPLETED", imported_count: 2 });
    expect(await payloads(copy.id)).toEqual([aConversation("one"), { free: "form" }]);
  });

  it("answers 404 to another workspace", async () => {
    const dataset = await datasets.created();

    const reply = await (await stranger()).datasets.exportToJsonl(dataset.id);

    expect(reply.status).toBe(404);
  });
});

describe("GET /v1/observability/datasets/{dataset_id}/tasks", () => {
  it("lists the dataset's import tasks, oldest first, with page-number pages", async () => {
    const dataset = await datasets.created();
    const file = await files.uploaded({ filename: "one.jsonl", content: `${line("x")}\n` });
    const first = await datasets.importedFromFile(dataset.id, file.id as string);
    const second = await datasets.importedFromFile(dataset.id, file.id as string);

    const page = await datasets.listTasks(dataset.id, { page_size: 1 });

    expect(page.status).toBe(200);
    expect(page.body.tasks).toMatchObject({ count: 2, results: [{ id: first.id }], previous: null, next: `/v1/observability/datasets/${dataset.id}/tasks?page=2&page_size=1` });
    expect((await datasets.listTasks(dataset.id, { page: 2, page_size: 1 })).body.tasks.results).toMatchObject([{ id: second.id }]);
    expect((await (await stranger()).datasets.listTasks(dataset.id)).status).toBe(404);
  });
});

describe("GET /v1/observability/datasets/{dataset_id}/tasks/{task_id}", () => {
  it("answers 404 DATASET_TASK_NOT_FOUND to another workspace and for another dataset's path", async () => {
    const dataset = await datasets.created();
    const file = await files.uploaded({ filename: "one.jsonl", content: `${line("x")}\n` });
    const task = await datasets.importedFromFile(dataset.id, file.id as string);
    const elsewhere = await datasets.created();

    expect((await datasets.getTask(dataset.id, task.id)).body).toMatchObject({ id: task.id, status: "COMPLETED" });
    expect((await datasets.getTask(elsewhere.id, task.id)).body.detail.error_code).toBe("DATASET_TASK_NOT_FOUND");
    expect((await (await stranger()).datasets.getTask(dataset.id, task.id)).status).toBe(404);
  });
});

import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, type DeleteObjectCommandInput, type GetObjectCommandInput } from "@aws-sdk/client-s3";
import type { Context } from "aws-lambda";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as recordFailure } from "../../../functions/engine/dataset-import-record-failure.js";
import { handler as run } from "../../../functions/engine/dataset-import-run.js";
import type { DatasetImportTask } from "../../../shared/domain/observability/dataset-imports.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, aContext } from "../../support/builders.js";
import { aChatSpan, aDataset, aDatasetItem, aRecord, aRecordItem } from "../../support/dataset-items.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";

const search = vi.hoisted(() => ({ searchTelemetry: vi.fn() }));
vi.mock("../../../shared/services/observability/engine.js", () => search);

const dynamo = mockDynamo();
const s3 = mockS3();
let tables: FakeTables;
let objects: Map<string, string>;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
  objects = new Map();
  // Honours Range (an interrupted run reads on from its byte offset) and cuts every body into small chunks, mid-line.
  s3.on(GetObjectCommand).callsFake((input: GetObjectCommandInput) => {
    const text = objects.get(input.Key!);
    if (text === undefined) throw new NoSuchKey({ message: "The specified key does not exist.", $metadata: {} });
    const from = input.Range ? Number(/^bytes=(\d+)-$/.exec(input.Range)![1]) : 0;
    const bytes = Buffer.from(text, "utf8").subarray(from);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7));
    return { Body: Object.assign(Readable.from(chunks), { transformToString: async () => bytes.toString("utf8") }) };
  });
  s3.on(DeleteObjectCommand).callsFake((input: DeleteObjectCommandInput) => {
    objects.delete(input.Key!);
    return {};
  });
  search.searchTelemetry.mockReset().mockResolvedValue({ results: [], next: null, cursor: null });
});

const caller = aCaller();
const withTimeLeft = (left: () => number): Context => ({ ...aContext(), getRemainingTimeInMillis: left });
const records = () => tables.items("datasets").filter((item) => String(item.sk).startsWith("REC#"));
const taskItem = (id: string) => tables.items("datasets").find((item) => item.sk === `TASK#${id}`)!;

function seeded(source: DatasetImportTask["source"], fields: Partial<DatasetImportTask>) {
  const dataset = aDataset(caller);
  tables.put("datasets", aDatasetItem(dataset));
  const task: DatasetImportTask = {
    workspace: caller.workspace,
    id: randomUUID(),
    datasetId: dataset.id,
    creatorId: caller.principal,
    createdAt: "2025-02-01T00:00:00.000Z",
    updatedAt: "2025-02-01T00:00:00.000Z",
    status: "RUNNING",
    source,
    cursor: 0,
    line: 1,
    processed: 0,
    imported: 0,
    failed: 0,
    failures: [],
    message: null,
    ...fields,
  };
  tables.put("datasets", { ...task, pk: `WS#${task.workspace}`, sk: `TASK#${task.id}`, parentKey: `${task.workspace}#DS#${dataset.id}#TASKS`, createdKey: `${task.createdAt}#${task.id}` });
  return { dataset, task, input: { workspace: task.workspace, taskId: task.id } };
}

function aFileTask(content: string) {
  const objectKey = `workspaces/${caller.workspace}/files/${randomUUID()}`;
  objects.set(objectKey, content);
  return seeded("FILE", { fileId: randomUUID(), objectKey, bytes: Buffer.byteLength(content) });
}

const good = (i: number) => JSON.stringify({ payload: { messages: [{ role: "user", content: `q${i}` }, { role: "assistant", content: `a${i}` }] }, properties: { i } });

describe("dataset import Run task", () => {
  it("makes a record of each good line and counts each bad one with its line number and reason", async () => {
    const content = [good(1), "{not json", "", JSON.stringify({ messages: [{ role: "user", content: "bare" }] }), "[1,2]", JSON.stringify({ payload: { messages: "x" } }), `${good(7)}\r`].join("\n");
    const { task, input, dataset } = aFileTask(content);

    expect(await run(input, withTimeLeft(() => 900_000))).toEqual({ status: "COMPLETED" });

    expect(records().map((r) => JSON.parse(String(r.payloadJson)))).toEqual([
      { messages: [{ role: "user", content: "q1" }, { role: "assistant", content: "a1" }] },
      { messages: [{ role: "user", content: "bare" }] },
      { messages: [{ role: "user", content: "q7" }, { role: "assistant", content: "a7" }] },
    ]);
    expect(records().every((r) => r.source === "UPLOADED_FILE" && r.datasetId === dataset.id)).toBe(true);
    expect(taskItem(task.id)).toMatchObject({
      status: "COMPLETED",
      processed: 6,
      imported: 3,
      failed: 3,
      cursor: Buffer.byteLength(content),
      failures: [
        { line: 2, id: null, reason: expect.stringMatching(/^not JSON/) },
        { line: 5, id: null, reason: "not a JSON object" },
        { line: 6, id: null, reason: "payload.messages must be an array of chat messages" },
      ],
      message: expect.stringMatching(/^Imported 3 records; 3 failed \(line 2: not JSON/),
    });
  });

  it("counts a record over the size limit as a failure of its line", async () => {
    const { task, input } = aFileTask(`${JSON.stringify({ payload: { text: "x".repeat(400_000) } })}\n${good(2)}\n`);

    await run(input, withTimeLeft(() => 900_000));

    expect(records()).toHaveLength(1);
    expect(taskItem(task.id).failures).toEqual([{ line: 1, id: null, reason: expect.stringContaining("over the 350000 a record holds") }]);
  });

  it("stops near its invocation's end with what it did committed, and a second run resumes without doubling a record", async () => {
    const lines = Array.from({ length: 60 }, (_, i) => good(i + 1));
    const { task, input } = aFileTask(`${lines.join("\n")}\n`);
    let left = 900_000;
    // The invocation runs out of time once its first commit is written.
    const context = withTimeLeft(() => (records().length >= 25 ? 1_000 : left));

    await expect(run(input, context)).rejects.toMatchObject({ name: "DatasetImportIncomplete" });
    const stopped = taskItem(task.id);
    expect(stopped).toMatchObject({ status: "RUNNING", imported: records().length, line: records().length + 1 });
    expect(Number(stopped.cursor)).toBeGreaterThan(0);

    left = 900_000;
    expect(await run(input, withTimeLeft(() => left))).toEqual({ status: "COMPLETED" });
    expect(records()).toHaveLength(60);
    expect(new Set(records().map((r) => JSON.parse(String(r.propertiesJson)).i)).size).toBe(60);
    expect(taskItem(task.id)).toMatchObject({ status: "COMPLETED", processed: 60, imported: 60, failed: 0, message: "Imported 60 records." });
  });

  it("copies records of the workspace with their payload, properties and source, and counts one deleted since", async () => {
    const other = aDataset(caller);
    const kept = aRecord(other, { source: "TELEMETRY_SPAN", span: { traceId: "t", spanId: "s", conversationId: "c", responseId: "r" } });
    tables.put("datasets", aDatasetItem(other), aRecordItem(kept));
    const gone = randomUUID();
    const { task, input, dataset } = seeded("DATASET", { inputKey: `workspaces/${caller.workspace}/dataset-imports/x.json`, total: 2 });
    objects.set(task.inputKey!, JSON.stringify([kept.id, gone]));

    await run(input, withTimeLeft(() => 900_000));

    const copies = records().filter((r) => r.datasetId === dataset.id);
    expect(copies).toMatchObject([{ source: "TELEMETRY_SPAN", span: kept.span, payloadJson: JSON.stringify(kept.payload), propertiesJson: JSON.stringify(kept.properties) }]);
    expect(copies[0]!.id).not.toBe(kept.id);
    expect(taskItem(task.id)).toMatchObject({ status: "COMPLETED", imported: 1, failed: 1, failures: [{ line: null, id: gone, reason: "the record no longer exists" }] });
    expect(objects.has(task.inputKey!)).toBe(false);
  });

  it("makes a PLAYGROUND record of each conversation's latest model call", async () => {
    const { task, input } = seeded("PLAYGROUND", { inputKey: `workspaces/${caller.workspace}/dataset-imports/y.json`, total: 2 });
    objects.set(task.inputKey!, JSON.stringify(["conv-1", "conv-2"]));
    const latest = aChatSpan(caller, { conversation_id: "conv-1" });
    search.searchTelemetry.mockResolvedValue({ results: [latest, aChatSpan(caller, { conversation_id: "conv-1", output_messages: "" })], next: null, cursor: null });

    await run(input, withTimeLeft(() => 900_000));

    expect(records()).toMatchObject([{ source: "PLAYGROUND", span: { traceId: latest.trace_id, spanId: latest.span_id, conversationId: "conv-1" } }]);
    expect(JSON.parse(String(records()[0]!.propertiesJson))).toMatchObject({ conversation_id: "conv-1", trace_id: latest.trace_id });
    expect(taskItem(task.id)).toMatchObject({ status: "COMPLETED", imported: 1, failed: 1, failures: [{ id: "conv-2", line: null }] });
  });

  it("fails the task, saying why, when the dataset is deleted during the import", async () => {
    const { task, input, dataset } = aFileTask(`${good(1)}\n`);
    tables.items("datasets").splice(tables.items("datasets").findIndex((item) => item.sk === `DS#${dataset.id}`), 1);

    const error = await run(input, withTimeLeft(() => 900_000)).catch((e: Error) => e);
    expect(error).toMatchObject({ name: "DatasetImportError" });
    await recordFailure({ ...input, failure: { Error: "DatasetImportError", Cause: JSON.stringify({ errorType: "DatasetImportError", errorMessage: (error as Error).message }) } });

    expect(records()).toEqual([]);
    expect(taskItem(task.id)).toMatchObject({ status: "FAILED", message: "The dataset was deleted during the import. 0 records were imported before it stopped (each whole)." });
  });

  it("keeps internals out of a failed task's message", async () => {
    const { task, input } = aFileTask(`${good(1)}\n`);

    await recordFailure({ ...input, failure: { Error: "TypeError", Cause: JSON.stringify({ errorType: "TypeError", errorMessage: "x is undefined at /var/task/index.mjs" }) } });

    expect(taskItem(task.id)).toMatchObject({ status: "FAILED", message: expect.stringMatching(/^The import could not finish because of an internal error\./) });
  });
});

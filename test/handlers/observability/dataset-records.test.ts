import { randomUUID } from "node:crypto";
import { BatchGetCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler as bulkDelete } from "../../../functions/observability/bulk-delete-dataset-records.js";
import { handler as deleteRecord } from "../../../functions/observability/delete-dataset-record.js";
import { handler as getRecord } from "../../../functions/observability/get-dataset-record.js";
import { handler as putPayload } from "../../../functions/observability/replace-dataset-record-payload.js";
import { handler as putProperties } from "../../../functions/observability/replace-dataset-record-properties.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { aDataset, aDatasetItem, aRecord, aRecordItem } from "../../support/dataset-items.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";

const dynamo = mockDynamo();
let tables: FakeTables;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
});
const caller = aCaller();
const dataset = aDataset(caller);
const recordPath = (id: string) => `/v1/observability/dataset-records/${id}`;
/** The record's item, its payload and properties read back from their JSON text. */
const stored = (id: string) => {
  const item = tables.items("datasets").find((i) => i.sk === `REC#${id}`);
  return item && { ...item, payload: JSON.parse(String(item.payloadJson)), properties: JSON.parse(String(item.propertiesJson)) } as Record<string, unknown>;
};
const seeded = (overrides = {}) => {
  const record = aRecord(dataset, overrides);
  tables.put("datasets", aDatasetItem(dataset), aRecordItem(record));
  return record;
};
const theirs = () => {
  const other = aCaller();
  const record = aRecord(aDataset(other));
  tables.put("datasets", aRecordItem(record));
  return record;
};

describe("GET /v1/observability/dataset-records/{dataset_record_id}", () => {
  it("answers the record as a DatasetRecord", async () => {
    const record = seeded();

    const response = await invoke(getRecord, anEvent({ path: recordPath(record.id), pathParameters: { dataset_record_id: record.id }, caller }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({
      id: record.id,
      created_at: record.createdAt,
      updated_at: record.updatedAt,
      deleted_at: null,
      dataset_id: dataset.id,
      payload: record.payload,
      properties: record.properties,
      source: "DIRECT_INPUT",
    });
  });

  it("answers 404 DATASET_RECORD_NOT_FOUND for another workspace's record", async () => {
    const record = theirs();

    const response = await invoke(getRecord, anEvent({ path: recordPath(record.id), pathParameters: { dataset_record_id: record.id }, caller }));

    expect(response.statusCode).toBe(404);
    expect(response.json).toEqual({ detail: { message: expect.stringContaining(record.id), error_code: "DATASET_RECORD_NOT_FOUND" } });
  });

  it("answers 422 VALIDATION_ERROR for an id that is no UUID", async () => {
    const response = await invoke(getRecord, anEvent({ path: recordPath("nope"), pathParameters: { dataset_record_id: "nope" }, caller }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail.error_code).toBe("VALIDATION_ERROR");
  });

  it("answers 403 AUTH_FORBIDDEN to a key without observability:read", async () => {
    const record = seeded();

    const response = await invoke(getRecord, anEvent({ path: recordPath(record.id), pathParameters: { dataset_record_id: record.id }, caller: { ...caller, roles: ["workspace_billing"] } }));

    expect(response.statusCode).toBe(403);
    expect(response.json.detail.error_code).toBe("AUTH_FORBIDDEN");
  });
});

describe("DELETE /v1/observability/dataset-records/{dataset_record_id}", () => {
  it("deletes the record and answers 204", async () => {
    const record = seeded();

    const response = await invoke(deleteRecord, anEvent({ method: "DELETE", path: recordPath(record.id), pathParameters: { dataset_record_id: record.id }, caller }));

    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    expect(stored(record.id)).toBeUndefined();
  });

  it("answers 404 for another workspace's record and leaves it", async () => {
    const record = theirs();

    const response = await invoke(deleteRecord, anEvent({ method: "DELETE", path: recordPath(record.id), pathParameters: { dataset_record_id: record.id }, caller }));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail.error_code).toBe("DATASET_RECORD_NOT_FOUND");
    expect(tables.items("datasets")).toHaveLength(1);
  });
});

describe("POST /v1/observability/dataset-records/bulk-delete", () => {
  const bulk = (ids: unknown) => aJsonEvent({ dataset_record_ids: ids }, { path: "/v1/observability/dataset-records/bulk-delete", caller });

  it("deletes every named record in one transaction and answers 204", async () => {
    const [a, b, kept] = [seeded(), seeded(), seeded()];

    const response = await invoke(bulkDelete, bulk([a.id, b.id, a.id]));

    expect(response.statusCode).toBe(204);
    expect([stored(a.id), stored(b.id)]).toEqual([undefined, undefined]);
    expect(stored(kept.id)).toBeDefined();
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it("answers 404 naming the unknown ids (another workspace's too) and deletes nothing", async () => {
    const mine = seeded();
    const other = theirs();
    const unknown = randomUUID();

    const response = await invoke(bulkDelete, bulk([mine.id, other.id, unknown]));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail.error_code).toBe("DATASET_RECORD_NOT_FOUND");
    expect(response.json.detail.message).toContain(other.id);
    expect(response.json.detail.message).toContain(unknown);
    expect(response.json.detail.message).not.toContain(mine.id);
    expect(stored(mine.id)).toBeDefined();
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it("deletes 500 records: existence read 100 keys a call, deletes in transactions of 100", async () => {
    const records = Array.from({ length: 500 }, () => seeded());

    const response = await invoke(bulkDelete, bulk(records.map((r) => r.id)));

    expect(response.statusCode).toBe(204);
    expect(tables.items("datasets").filter((item) => String(item.sk).startsWith("REC#"))).toEqual([]);
    const gets = dynamo.commandCalls(BatchGetCommand).map((call) => Object.values(call.args[0].input.RequestItems!)[0]!.Keys!.length);
    expect(gets).toEqual([100, 100, 100, 100, 100]);
    expect(dynamo.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems!.length)).toEqual([100, 100, 100, 100, 100]);
  });

  it("refuses an empty list and more than 500 ids with 422", async () => {
    expect((await invoke(bulkDelete, bulk([]))).statusCode).toBe(422);
    const many = await invoke(bulkDelete, bulk(Array.from({ length: 501 }, () => randomUUID())));
    expect(many.statusCode).toBe(422);
    expect(many.json.detail.error_code).toBe("VALIDATION_ERROR");
  });
});

describe("PUT /v1/observability/dataset-records/{dataset_record_id}/payload", () => {
  const put = (id: string, payload: unknown) => aJsonEvent({ payload }, { method: "PUT", path: `${recordPath(id)}/payload`, pathParameters: { dataset_record_id: id }, caller });

  it("replaces the payload, keeps the properties and answers 204", async () => {
    const record = seeded();
    const payload = { messages: [{ role: "system", content: "Be brief." }, { role: "user", content: [{ type: "text", text: "Hi" }] }, { role: "assistant", content: null, tool_calls: [] }] };

    const response = await invoke(putPayload, put(record.id, payload));

    expect(response.statusCode).toBe(204);
    expect(stored(record.id)).toMatchObject({ payload, properties: record.properties });
    expect(stored(record.id)!.updatedAt).not.toBe(record.updatedAt);
  });

  it("takes a payload without messages as it is, whatever JSON it holds (empty keys, numbers past 2^53, depth)", async () => {
    const record = seeded();
    let deep: unknown = "bottom";
    for (let i = 0; i < 40; i += 1) deep = [deep];
    const payload = { question: "2+2?", expected: 4, "": -9007199254740992, deep };

    expect((await invoke(putPayload, put(record.id, payload))).statusCode).toBe(204);
    expect(stored(record.id)!.payload).toEqual(payload);
  });

  it.each([
    ["messages that are no array", { messages: "hello" }, "payload.messages must be an array"],
    ["a message without a known role", { messages: [{ role: "robot", content: "x" }] }, "payload.messages[0].role"],
    ["a message whose content is a number", { messages: [{ role: "user", content: "a" }, { role: "user", content: 3 }] }, "payload.messages[1].content"],
  ])("refuses %s with 422 DATASET_RECORD_FORMAT_ERROR and keeps the payload", async (_what, payload, message) => {
    const record = seeded();

    const response = await invoke(putPayload, put(record.id, payload));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toEqual({ message: expect.stringContaining(message), error_code: "DATASET_RECORD_FORMAT_ERROR" });
    expect(stored(record.id)!.payload).toEqual(record.payload);
  });

  it("answers 404 for another workspace's record", async () => {
    const record = theirs();

    expect((await invoke(putPayload, put(record.id, { a: 1 }))).statusCode).toBe(404);
    expect(stored(record.id)!.payload).toEqual(record.payload);
  });

  it("answers 413 for a payload too large for a record", async () => {
    const record = seeded();

    const response = await invoke(putPayload, put(record.id, { text: "x".repeat(360_000) }));

    expect(response.statusCode).toBe(413);
    expect(stored(record.id)!.payload).toEqual(record.payload);
  });
});

describe("PUT /v1/observability/dataset-records/{dataset_record_id}/properties", () => {
  const put = (id: string, properties: unknown) => aJsonEvent({ properties }, { method: "PUT", path: `${recordPath(id)}/properties`, pathParameters: { dataset_record_id: id }, caller });

  it("replaces the properties, keeps the payload and answers 204", async () => {
    const record = seeded();

    const response = await invoke(putProperties, put(record.id, { reviewed: true }));

    expect(response.statusCode).toBe(204);
    expect(stored(record.id)).toMatchObject({ properties: { reviewed: true }, payload: record.payload });
  });

  it("refuses properties that are no object with 422", async () => {
    const record = seeded();

    const response = await invoke(putProperties, put(record.id, ["a"]));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail.error_code).toBe("VALIDATION_ERROR");
  });

  it("answers 404 for an unknown record", async () => {
    expect((await invoke(putProperties, put(randomUUID(), {}))).statusCode).toBe(404);
  });
});

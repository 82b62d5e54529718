import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { handler as createRecord } from "../../../functions/observability/create-dataset-record.js";
import { handler as createDataset } from "../../../functions/observability/create-dataset.js";
import { handler as deleteDataset } from "../../../functions/observability/delete-dataset.js";
import { handler as getDataset } from "../../../functions/observability/get-dataset.js";
import { handler as listRecords } from "../../../functions/observability/list-dataset-records.js";
import { handler as listDatasets } from "../../../functions/observability/list-datasets.js";
import { handler as updateDataset } from "../../../functions/observability/update-dataset.js";
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
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const datasetPath = (id: string) => `/v1/observability/datasets/${id}`;
const seededDataset = (overrides = {}, owner = caller) => {
  const dataset = aDataset(owner, overrides);
  tables.put("datasets", aDatasetItem(dataset));
  return dataset;
};

describe("POST /v1/observability/datasets", () => {
  const create = (body: unknown) => aJsonEvent(body, { path: "/v1/observability/datasets", caller });

  it("creates an empty dataset owned by the caller and answers 201 Dataset", async () => {
    const response = await invoke(createDataset, create({ name: "support answers", description: "to judge" }));

    expect(response.statusCode).toBe(201);
    expect(response.json).toEqual({
      id: expect.any(String),
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      deleted_at: null,
      name: "support answers",
      description: "to judge",
      owner_id: caller.principal,
      workspace_id: caller.workspace,
    });
    expect(tables.items("datasets")).toEqual([expect.objectContaining({ pk: `WS#${caller.workspace}`, sk: `DS#${response.json.id}`, name: "support answers" })]);
  });

  it.each([
    ["a name under 5 characters", { name: "abcd", description: "" }],
    ["a name over 50 characters", { name: "x".repeat(51), description: "" }],
    ["a description over 200 characters", { name: "valid name", description: "x".repeat(201) }],
    ["no description", { name: "valid name" }],
  ])("refuses %s with 422 VALIDATION_ERROR, storing nothing", async (_what, body) => {
    const response = await invoke(createDataset, create(body));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail.error_code).toBe("VALIDATION_ERROR");
    expect(tables.items("datasets")).toEqual([]);
  });

  it("answers 403 to a viewer (observability:read only)", async () => {
    const response = await invoke(createDataset, aJsonEvent({ name: "valid name", description: "" }, { path: "/v1/observability/datasets", caller: { ...caller, roles: ["observability_viewer"] } }));

    expect(response.statusCode).toBe(403);
    expect(tables.items("datasets")).toEqual([]);
  });
});

describe("GET /v1/observability/datasets", () => {
  const list = (query: Record<string, string> = {}) => anEvent({ path: "/v1/observability/datasets", query, caller });

  it("lists the workspace's datasets oldest first in pages, with the count and the links", async () => {
    const [a, b, c] = ["2025-01-01", "2025-01-02", "2025-01-03"].map((day) => seededDataset({ createdAt: `${day}T00:00:00.000Z` }));
    seededDataset({}, aCaller());

    const first = await invoke(listDatasets, list({ page_size: "2" }));
    const second = await invoke(listDatasets, list({ page: "2", page_size: "2" }));

    expect(first.statusCode).toBe(200);
    expect(first.json.datasets).toEqual({ results: [expect.objectContaining({ id: a!.id }), expect.objectContaining({ id: b!.id })], count: 3, next: "/v1/observability/datasets?page=2&page_size=2", previous: null });
    expect(second.json.datasets).toEqual({ results: [expect.objectContaining({ id: c!.id })], count: 3, next: null, previous: "/v1/observability/datasets?page=1&page_size=2" });
  });

  it("answers the count alone for page_size 0 and refuses page 0 with 422", async () => {
    seededDataset();
    expect((await invoke(listDatasets, list({ page_size: "0" }))).json.datasets).toMatchObject({ results: [], count: 1 });
    expect((await invoke(listDatasets, list({ page: "0" }))).statusCode).toBe(422);
  });
});

describe("GET /v1/observability/datasets/{dataset_id}", () => {
  const get = (id: string, who = caller) => anEvent({ path: datasetPath(id), pathParameters: { dataset_id: id }, caller: who });

  it("answers the dataset", async () => {
    const dataset = seededDataset();

    const response = await invoke(getDataset, get(dataset.id.toUpperCase()));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: dataset.id, name: dataset.name, owner_id: caller.principal, workspace_id: caller.workspace });
  });

  it("answers 404 DATASET_NOT_FOUND for another workspace's dataset", async () => {
    const dataset = seededDataset({}, aCaller());

    const response = await invoke(getDataset, get(dataset.id));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail.error_code).toBe("DATASET_NOT_FOUND");
  });
});

describe("PATCH /v1/observability/datasets/{dataset_id}", () => {
  const patch = (id: string, body: unknown) => aJsonEvent(body, { method: "PATCH", path: datasetPath(id), pathParameters: { dataset_id: id }, caller });

  it("changes the fields given and keeps the others", async () => {
    const dataset = seededDataset();

    const response = await invoke(updateDataset, patch(dataset.id, { name: "renamed set", description: null }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ name: "renamed set", description: dataset.description });
    expect(response.json.updated_at).not.toBe(dataset.updatedAt);
    expect(tables.items("datasets")[0]).toMatchObject({ name: "renamed set" });
  });

  it("answers 404 for another workspace's dataset and leaves it", async () => {
    const dataset = seededDataset({}, aCaller());

    expect((await invoke(updateDataset, patch(dataset.id, { name: "mine now!" }))).statusCode).toBe(404);
    expect(tables.items("datasets")[0]).toMatchObject({ name: dataset.name });
  });
});

describe("DELETE /v1/observability/datasets/{dataset_id}", () => {
  const remove = (id: string) => anEvent({ method: "DELETE", path: datasetPath(id), pathParameters: { dataset_id: id }, caller });

  it("deletes the dataset and its records, nothing else, and answers 204", async () => {
    const dataset = seededDataset();
    const other = seededDataset();
    tables.put("datasets", aRecordItem(aRecord(dataset)), aRecordItem(aRecord(dataset)), aRecordItem(aRecord(other)));

    const response = await invoke(deleteDataset, remove(dataset.id));

    expect(response.statusCode).toBe(204);
    expect(tables.items("datasets").map((item) => item.datasetId ?? item.id)).toEqual([other.id, other.id]);
  });

  it("answers 404 for an unknown dataset", async () => {
    expect((await invoke(deleteDataset, remove(randomUUID()))).json.detail.error_code).toBe("DATASET_NOT_FOUND");
  });
});

describe("POST /v1/observability/datasets/{dataset_id}/records", () => {
  const create = (id: string, body: unknown) => aJsonEvent(body, { path: `${datasetPath(id)}/records`, pathParameters: { dataset_id: id }, caller });

  it("adds a DIRECT_INPUT record and answers 201 DatasetRecord", async () => {
    const dataset = seededDataset();
    const payload = { messages: [{ role: "user", content: "Hi" }] };

    const response = await invoke(createRecord, create(dataset.id, { payload }));

    expect(response.statusCode).toBe(201);
    expect(response.json).toEqual({ id: expect.any(String), created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO), deleted_at: null, dataset_id: dataset.id, payload, properties: {}, source: "DIRECT_INPUT" });
    expect(tables.items("datasets")).toContainEqual(expect.objectContaining({ sk: `REC#${response.json.id}`, parentKey: `${caller.workspace}#DS#${dataset.id}`, payloadJson: JSON.stringify(payload) }));
  });

  it("answers 404 DATASET_NOT_FOUND into another workspace's dataset, storing nothing", async () => {
    const dataset = seededDataset({}, aCaller());

    const response = await invoke(createRecord, create(dataset.id, { payload: {} }));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail.error_code).toBe("DATASET_NOT_FOUND");
    expect(tables.items("datasets")).toHaveLength(1);
  });

  it("refuses a malformed conversation with 422 DATASET_RECORD_FORMAT_ERROR, storing nothing", async () => {
    const dataset = seededDataset();

    const response = await invoke(createRecord, create(dataset.id, { payload: { messages: [{ content: "who?" }] } }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail.error_code).toBe("DATASET_RECORD_FORMAT_ERROR");
    expect(tables.items("datasets")).toHaveLength(1);
  });
});

describe("GET /v1/observability/datasets/{dataset_id}/records", () => {
  const list = (id: string, query: Record<string, string> = {}) => anEvent({ path: `${datasetPath(id)}/records`, pathParameters: { dataset_id: id }, query, caller });

  it("lists the dataset's records oldest first, not another dataset's", async () => {
    const dataset = seededDataset();
    const [a, b] = [aRecord(dataset, { createdAt: "2025-02-01T00:00:00.000Z" }), aRecord(dataset, { createdAt: "2025-02-02T00:00:00.000Z" })];
    tables.put("datasets", aRecordItem(b), aRecordItem(a), aRecordItem(aRecord(seededDataset())));

    const response = await invoke(listRecords, list(dataset.id, { page_size: "1" }));

    expect(response.statusCode).toBe(200);
    expect(response.json.records).toEqual({ results: [expect.objectContaining({ id: a.id, dataset_id: dataset.id })], count: 2, next: `/v1/observability/datasets/${dataset.id}/records?page=2&page_size=1`, previous: null });
  });

  it("answers 404 for another workspace's dataset", async () => {
    const dataset = seededDataset({}, aCaller());
    tables.put("datasets", aRecordItem(aRecord(dataset)));

    expect((await invoke(listRecords, list(dataset.id))).statusCode).toBe(404);
  });
});

/**
 * Datasets and dataset records driven by the official, unmodified SDK (`client.beta.observability.datasets.*`
 * and `.datasets.records.*`) against the local server: every answer parses into the SDK's types (dates as
 * Date, snake_case remapped), 201 and 204 where the SDK expects them, errors as ObservabilityError.
 */
import { Mistral } from "@mistralai/mistralai";
import { ObservabilityError } from "@mistralai/mistralai/models/errors";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { spanStore } from "../../shared/store/observability/spans.js";
import { useEmbeddedApi } from "../support/api.js";
import { aChatSpan } from "../support/dataset-items.js";
import { datasetsClient } from "../support/datasets-client.js";
import { errorOf, sdkClient } from "../support/sdk.js";
import { useTelemetryDir } from "../support/telemetry-dir.js";
import { newTenant } from "../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
beforeAll(() => {
  client = sdkClient(api, tenant.key);
});
// The embedded server runs the handlers in this process: judgements land in this file's telemetry directory.
const telemetry = useTelemetryDir();
const conversation = { messages: [{ role: "user", content: "What is 2+2?" }, { role: "assistant", content: "4" }] };
const aDataset = (name = "sdk dataset") => client.beta.observability.datasets.create({ name, description: "made by the SDK" });

describe("client.beta.observability.datasets: POST /v1/observability/datasets, GET /v1/observability/datasets, GET /v1/observability/datasets/{dataset_id}, PATCH /v1/observability/datasets/{dataset_id}, DELETE /v1/observability/datasets/{dataset_id}", () => {
  it("creates (201), fetches, lists, updates and deletes a dataset", async () => {
    const created = await aDataset("sdk lifecycle");
    expect(created).toMatchObject({ name: "sdk lifecycle", description: "made by the SDK", ownerId: tenant.caller.principal, workspaceId: tenant.caller.workspace, deletedAt: null });
    expect(created.createdAt).toBeInstanceOf(Date);

    expect(await client.beta.observability.datasets.fetch({ datasetId: created.id })).toEqual(created);
    const listed = await client.beta.observability.datasets.list({ q: "sdk lifecycle", pageSize: 10 });
    expect(listed.datasets).toMatchObject({ count: 1, results: [{ id: created.id }] });
    const updated = await client.beta.observability.datasets.update({ datasetId: created.id, updateDatasetRequest: { name: "sdk renamed" } });
    expect(updated).toMatchObject({ id: created.id, name: "sdk renamed", description: "made by the SDK" });

    await client.beta.observability.datasets.delete({ datasetId: created.id });
    const gone = await errorOf(client.beta.observability.datasets.fetch({ datasetId: created.id }), ObservabilityError);
    expect(gone.detail.errorCode).toBe("DATASET_NOT_FOUND");
  });
});

describe("client.beta.observability.datasets records: POST /v1/observability/datasets/{dataset_id}/records, GET /v1/observability/datasets/{dataset_id}/records", () => {
  it("creates a DIRECT_INPUT record (201) and lists it", async () => {
    const dataset = await aDataset();

    const record = await client.beta.observability.datasets.createRecord({ datasetId: dataset.id, createDatasetRecordRequest: { payload: conversation, properties: { by: "sdk" } } });
    const listed = await client.beta.observability.datasets.listRecords({ datasetId: dataset.id });

    expect(record).toMatchObject({ datasetId: dataset.id, payload: conversation, properties: { by: "sdk" }, source: "DIRECT_INPUT", deletedAt: null });
    expect(listed.records).toMatchObject({ count: 1, results: [{ id: record.id }] });
  });

  it("answers a malformed conversation with ObservabilityError DATASET_RECORD_FORMAT_ERROR", async () => {
    const dataset = await aDataset();

    const error = await errorOf(client.beta.observability.datasets.createRecord({ datasetId: dataset.id, createDatasetRecordRequest: { payload: { messages: "not a list" } } }), ObservabilityError);

    expect(error.detail.errorCode).toBe("DATASET_RECORD_FORMAT_ERROR");
  });
});

describe("client.beta.observability.datasets.records: GET /v1/observability/dataset-records/{dataset_record_id}, PUT /v1/observability/dataset-records/{dataset_record_id}/payload, PUT /v1/observability/dataset-records/{dataset_record_id}/properties, DELETE /v1/observability/dataset-records/{dataset_record_id}, POST /v1/observability/dataset-records/bulk-delete", () => {
  it("fetches, replaces the payload and the properties (204), and deletes one record", async () => {
    const dataset = await aDataset();
    const record = await client.beta.observability.datasets.createRecord({ datasetId: dataset.id, createDatasetRecordRequest: { payload: conversation } });
    const records = client.beta.observability.datasets.records;

    expect(await records.fetch({ datasetRecordId: record.id })).toEqual(record);
    await records.updatePayload({ datasetRecordId: record.id, updateDatasetRecordPayloadRequest: { payload: { messages: [{ role: "user", content: "changed" }] } } });
    await records.updateProperties({ datasetRecordId: record.id, updateDatasetRecordPropertiesRequest: { properties: { reviewed: true } } });
    expect(await records.fetch({ datasetRecordId: record.id })).toMatchObject({ payload: { messages: [{ role: "user", content: "changed" }] }, properties: { reviewed: true } });

    await records.delete({ datasetRecordId: record.id });
    expect((await errorOf(records.fetch({ datasetRecordId: record.id }), ObservabilityError)).detail.errorCode).toBe("DATASET_RECORD_NOT_FOUND");
  });

  it("bulk-deletes all the named records, or none when one is unknown", async () => {
    const dataset = await aDataset();
    const make = () => client.beta.observability.datasets.createRecord({ datasetId: dataset.id, createDatasetRecordRequest: { payload: conversation } });
    const [a, b] = [await make(), await make()];
    const records = client.beta.observability.datasets.records;

    const refused = await errorOf(records.bulkDelete({ datasetRecordIds: [a.id, randomUUID()] }), ObservabilityError);
    expect(refused.detail.errorCode).toBe("DATASET_RECORD_NOT_FOUND");
    expect((await client.beta.observability.datasets.listRecords({ datasetId: dataset.id })).records.count).toBe(2);

    await records.bulkDelete({ datasetRecordIds: [a.id, b.id] });
    expect((await client.beta.observability.datasets.listRecords({ datasetId: dataset.id })).records.count).toBe(0);
  });

  it("fetches a record made from a span, source TELEMETRY_SPAN (the spec's value beyond the OpenAPI enum)", async () => {
    const dataset = await aDataset();
    const span = aChatSpan(tenant.caller);
    await spanStore.put([span], 4_102_444_800);
    const made = await datasetsClient(api, tenant).fromSpans(dataset.id, [{ trace_id: span.trace_id, span_id: span.span_id }]);

    const record = await client.beta.observability.datasets.records.fetch({ datasetRecordId: made.body.records[0].id });

    expect(record).toMatchObject({ source: "TELEMETRY_SPAN", payload: { messages: [{ role: "system" }, { role: "user" }, { role: "assistant", content: "Paris." }] } });
  });

  it("shows another workspace nothing: 404 for its records and datasets", async () => {
    const dataset = await aDataset();
    const record = await client.beta.observability.datasets.createRecord({ datasetId: dataset.id, createDatasetRecordRequest: { payload: conversation } });
    const stranger = sdkClient(api, (await newTenant()).key);

    expect((await errorOf(stranger.beta.observability.datasets.records.fetch({ datasetRecordId: record.id }), ObservabilityError)).detail.errorCode).toBe("DATASET_RECORD_NOT_FOUND");
    expect((await errorOf(stranger.beta.observability.datasets.fetch({ datasetId: dataset.id }), ObservabilityError)).detail.errorCode).toBe("DATASET_NOT_FOUND");
    expect((await stranger.beta.observability.datasets.list({})).datasets.count).toBe(0);
  });
});

describe("client.beta.observability.datasets.records.judge: POST /v1/observability/dataset-records/{dataset_record_id}/live-judging", () => {
  const judge = (datasetRecordId: string, output: any) =>
    client.beta.observability.datasets.records.judge({
      datasetRecordId,
      judgeDatasetRecordRequest: { judgeDefinition: { name: "sdk judge", description: "From the SDK", modelName: "mistral-small-latest", output, instructions: "Judge it.", tools: [] } },
    });

  // It reads the evaluations from the telemetry files this process waits for: the bundled run writes them in another process.
  it.skipIf(inject("bundles"))("answers a classification with one of its options and a regression with a number in its range (offline provider)", async () => {
    const dataset = await aDataset();
    const record = await client.beta.observability.datasets.createRecord({ datasetId: dataset.id, createDatasetRecordRequest: { payload: conversation } });

    const classified = await judge(record.id, { type: "CLASSIFICATION", options: [{ value: "yes", description: "Right" }, { value: "no", description: "Wrong" }] });
    const scored = await judge(record.id, { type: "REGRESSION", min: 0, minDescription: "bad", max: 10, maxDescription: "good" });

    expect(classified).toEqual({ analysis: expect.stringContaining("[offline]"), answer: "yes" });
    expect(typeof scored.answer).toBe("number");
    expect(scored.answer).toBeGreaterThanOrEqual(0);
    expect(scored.answer).toBeLessThanOrEqual(10);
    expect(telemetry.evaluations(tenant.caller.workspace).filter((e) => e.metadata.dataset_record_id === record.id).map((e) => e.score_label)).toEqual(["yes", ""]);
  });

  it("answers an unknown record with ObservabilityError DATASET_RECORD_NOT_FOUND", async () => {
    const error = await errorOf(judge(randomUUID(), { type: "CLASSIFICATION", options: [{ value: "yes", description: "" }] }), ObservabilityError);

    expect(error.detail.errorCode).toBe("DATASET_RECORD_NOT_FOUND");
  });
});

import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { spanStore } from "../../../shared/store/observability/spans.js";
import { useEmbeddedApi } from "../../support/api.js";
import { aChatSpan } from "../../support/dataset-items.js";
import { aConversation, aDatasetBody, datasetsClient } from "../../support/datasets-client.js";
import { footprint } from "../../support/footprint.js";
import { useTelemetryDir } from "../../support/telemetry-dir.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const datasets = datasetsClient(api, tenant);
const stranger = async () => datasetsClient(api, await newTenant());
const NEVER = 4_102_444_800;

// The embedded server runs the handlers in this process: judgements land in this file's telemetry directory.
const telemetry = useTelemetryDir();
const evaluationsOf = (workspace: string) => telemetry.evaluations(workspace);

const aJudge = (output: Record<string, unknown>) => ({ name: "answer quality", description: "Judges the answer", model_name: "mistral-small-latest", output, instructions: "Judge the assistant's last answer.", tools: [] });
const CLASSES = { type: "CLASSIFICATION", options: [{ value: "good", description: "Helpful and right" }, { value: "bad", description: "Unhelpful or wrong" }] };
const SCALE = { type: "REGRESSION", min: 1, min_description: "useless", max: 5, max_description: "perfect" };

describe("POST /v1/observability/datasets", () => {
  it("creates a dataset that fetch, list and update then see", async () => {
    const created = await datasets.created(aDatasetBody({ name: "first set" }));

    expect(created).toMatchObject({ name: "first set", owner_id: tenant.caller.principal, workspace_id: tenant.caller.workspace, deleted_at: null });
    expect((await datasets.get(created.id)).body).toEqual(created);
    const updated = await datasets.update(created.id, { description: "changed" });
    expect(updated.body).toMatchObject({ name: "first set", description: "changed" });
    expect((await datasets.list({ q: "first" })).body.datasets).toMatchObject({ count: 1, results: [{ id: created.id, description: "changed" }] });
    expect((await datasets.list({ q: "nothing like it" })).body.datasets).toMatchObject({ count: 0, results: [] });
  });

  it("refuses a short name with 422 in the observability envelope", async () => {
    const reply = await datasets.create({ name: "abc", description: "" });

    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({ detail: { message: expect.stringContaining("name"), error_code: "VALIDATION_ERROR" } });
  });
});

describe("GET /v1/observability/datasets", () => {
  it("pages oldest first and never shows another workspace's datasets", async () => {
    const ids = [];
    for (const name of ["set one", "set two", "set three"]) ids.push((await datasets.created(aDatasetBody({ name }))).id);
    await (await stranger()).created();

    const page = await datasets.list({ page: 2, page_size: 2 });

    expect(page.status).toBe(200);
    expect(page.body.datasets).toMatchObject({ count: 3, results: [{ id: ids[2] }], next: null, previous: "/v1/observability/datasets?page=1&page_size=2" });
  });
});

describe("GET /v1/observability/datasets/{dataset_id}", () => {
  it("answers 404 DATASET_NOT_FOUND to another workspace", async () => {
    const created = await datasets.created();

    const reply = await (await stranger()).get(created.id);

    expect(reply.status).toBe(404);
    expect(reply.body.detail.error_code).toBe("DATASET_NOT_FOUND");
  });
});

describe("PATCH /v1/observability/datasets/{dataset_id}", () => {
  it("leaves another workspace's dataset as it was", async () => {
    const created = await datasets.created();
    const before = await footprint(tenant.caller);

    expect((await (await stranger()).update(created.id, { name: "taken over" })).status).toBe(404);
    expect(await footprint(tenant.caller)).toEqual(before);
  });
});

describe("DELETE /v1/observability/datasets/{dataset_id}", () => {
  it("deletes the dataset and its records", async () => {
    const created = await datasets.created();
    const record = await datasets.createdRecord(aConversation(), created.id);

    expect((await datasets.remove(created.id)).status).toBe(204);
    expect((await datasets.get(created.id)).status).toBe(404);
    expect((await datasets.getRecord(record.id)).status).toBe(404);
  });
});

describe("POST /v1/observability/datasets/{dataset_id}/records", () => {
  it("adds a DIRECT_INPUT record that GET and the list answer", async () => {
    const created = await datasets.created();

    const reply = await datasets.createRecord(created.id, { payload: aConversation(), properties: { topic: "geo" } });

    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ dataset_id: created.id, payload: aConversation(), properties: { topic: "geo" }, source: "DIRECT_INPUT", deleted_at: null });
    expect((await datasets.getRecord(reply.body.id)).body).toEqual(reply.body);
  });

  it("refuses a record into an unknown dataset with 404, storing nothing", async () => {
    const before = await footprint(tenant.caller);

    const reply = await datasets.createRecord(randomUUID(), { payload: {} });

    expect(reply.status).toBe(404);
    expect(reply.body.detail.error_code).toBe("DATASET_NOT_FOUND");
    expect(await footprint(tenant.caller)).toEqual(before);
  });
});

describe("GET /v1/observability/datasets/{dataset_id}/records", () => {
  it("lists a dataset's records oldest first with the count", async () => {
    const created = await datasets.created();
    const first = await datasets.createdRecord(aConversation("one"), created.id);
    const second = await datasets.createdRecord(aConversation("two"), created.id);
    await datasets.createdRecord();

    const reply = await datasets.listRecords(created.id);

    expect(reply.status).toBe(200);
    expect(reply.body.records).toMatchObject({ count: 2, next: null, previous: null, results: [{ id: first.id }, { id: second.id }] });
  });
});

describe("GET /v1/observability/dataset-records/{dataset_record_id}", () => {
  it("answers 404 DATASET_RECORD_NOT_FOUND to another workspace", async () => {
    const record = await datasets.createdRecord();

    const reply = await (await stranger()).getRecord(record.id);

    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail: { message: expect.any(String), error_code: "DATASET_RECORD_NOT_FOUND" } });
  });
});

describe("DELETE /v1/observability/dataset-records/{dataset_record_id}", () => {
  it("deletes the record once: the second delete is a 404", async () => {
    const record = await datasets.createdRecord();

    expect((await datasets.removeRecord(record.id)).status).toBe(204);
    expect((await datasets.getRecord(record.id)).status).toBe(404);
    expect((await datasets.removeRecord(record.id)).status).toBe(404);
  });
});

describe("POST /v1/observability/dataset-records/bulk-delete", () => {
  it("deletes all the named records, or none when one is unknown", async () => {
    const created = await datasets.created();
    const [a, b, c] = [await datasets.createdRecord(aConversation("a"), created.id), await datasets.createdRecord(aConversation("b"), created.id), await datasets.createdRecord(aConversation("c"), created.id)];
    const unknown = randomUUID();

    const refused = await datasets.bulkDelete([a.id, unknown]);
    expect(refused.status).toBe(404);
    expect(refused.body.detail).toEqual({ message: expect.stringContaining(unknown), error_code: "DATASET_RECORD_NOT_FOUND" });
    expect((await datasets.getRecord(a.id)).status).toBe(200);

    expect((await datasets.bulkDelete([a.id, b.id])).status).toBe(204);
    expect((await datasets.listRecords(created.id)).body.records).toMatchObject({ count: 1, results: [{ id: c.id }] });
  });

  it("deletes more records than one DynamoDB batch read or transaction takes (150)", async () => {
    const created = await datasets.created();
    const ids: string[] = [];
    for (let i = 0; i < 15; i += 1) ids.push(...(await Promise.all(Array.from({ length: 10 }, (_, j) => datasets.createdRecord(aConversation(`q${i}-${j}`), created.id)))).map((r) => r.id));

    expect((await datasets.bulkDelete(ids)).status).toBe(204);
    expect((await datasets.listRecords(created.id)).body.records.count).toBe(0);
  });

  it("does not delete another workspace's records", async () => {
    const record = await datasets.createdRecord();

    expect((await (await stranger()).bulkDelete([record.id])).status).toBe(404);
    expect((await datasets.getRecord(record.id)).status).toBe(200);
  });
});

describe("PUT /v1/observability/dataset-records/{dataset_record_id}/payload", () => {
  it("replaces the payload (204), and refuses a malformed conversation with 422 DATASET_RECORD_FORMAT_ERROR", async () => {
    const record = await datasets.createdRecord();

    expect((await datasets.putPayload(record.id, aConversation("new question", "new answer"))).status).toBe(204);
    expect((await datasets.getRecord(record.id)).body.payload).toEqual(aConversation("new question", "new answer"));

    const refused = await datasets.putPayload(record.id, { messages: [{ role: "user" }] });
    expect(refused.status).toBe(422);
    expect(refused.body.detail.error_code).toBe("DATASET_RECORD_FORMAT_ERROR");
    expect((await datasets.getRecord(record.id)).body.payload).toEqual(aConversation("new question", "new answer"));
  });
});

describe("PUT /v1/observability/dataset-records/{dataset_record_id}/properties", () => {
  it("replaces the properties (204) and leaves another workspace's record alone", async () => {
    const record = await datasets.createdRecord(aConversation(), undefined, { a: 1 });

    expect((await datasets.putProperties(record.id, { b: 2 })).status).toBe(204);
    expect((await datasets.getRecord(record.id)).body.properties).toEqual({ b: 2 });
    expect((await (await stranger()).putProperties(record.id, { c: 3 })).status).toBe(404);
    expect((await datasets.getRecord(record.id)).body.properties).toEqual({ b: 2 });
  });
});

describe("POST /v1/observability/datasets/{dataset_id}/records/from-spans", () => {
  it("makes a TELEMETRY_SPAN record from a stored span", async () => {
    const created = await datasets.created();
    const span = aChatSpan(tenant.caller);
    await spanStore.put([span], NEVER);

    const reply = await datasets.fromSpans(created.id, [{ trace_id: span.trace_id, span_id: span.span_id }]);

    expect(reply.status).toBe(201);
    expect(reply.body.records).toEqual([
      expect.objectContaining({
        dataset_id: created.id,
        source: "TELEMETRY_SPAN",
        payload: { messages: [{ role: "system", content: "Answer in one word." }, { role: "user", content: "What is the capital of France?" }, { role: "assistant", content: "Paris." }] },
      }),
    ]);
    expect((await datasets.getRecord(reply.body.records[0].id)).body.source).toBe("TELEMETRY_SPAN");
  });

  it("answers 404 SPAN_NOT_FOUND for another workspace's span, making no record", async () => {
    const created = await datasets.created();
    const other = await newTenant();
    const span = aChatSpan(other.caller);
    await spanStore.put([span], NEVER);

    const reply = await datasets.fromSpans(created.id, [{ trace_id: span.trace_id, span_id: span.span_id }]);

    expect(reply.status).toBe(404);
    expect(reply.body.detail.error_code).toBe("SPAN_NOT_FOUND");
    expect((await datasets.listRecords(created.id)).body.records.count).toBe(0);
  });
});

describe("POST /v1/observability/dataset-records/{dataset_record_id}/live-judging", () => {
  it("judges a record made from a span on the offline provider: the answer is an option, and the evaluation is stored under the span", async () => {
    const created = await datasets.created();
    const span = aChatSpan(tenant.caller);
    await spanStore.put([span], NEVER);
    const record = (await datasets.fromSpans(created.id, [{ trace_id: span.trace_id, span_id: span.span_id }])).body.records[0];

    const reply = await datasets.judge(record.id, aJudge(CLASSES));

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ analysis: expect.stringContaining("[offline]"), answer: "good" });
    expect(evaluationsOf(tenant.caller.workspace)).toEqual([
      expect.objectContaining({
        trace_id: span.trace_id,
        span_id: span.span_id,
        conversation_id: span.conversation_id,
        evaluation_name: "answer quality",
        score_label: "good",
        score_value: 0,
        explanation: reply.body.analysis,
        metadata: expect.objectContaining({ dataset_id: created.id, dataset_record_id: record.id, judge_model: "mistral-small-latest" }),
      }),
    ]);
  });

  it("judges a typed-in record with a regression judge: a number in the range, the evaluation found by the record's ids", async () => {
    const record = await datasets.createdRecord();

    const reply = await datasets.judge(record.id, aJudge(SCALE));

    expect(reply.status).toBe(200);
    expect(reply.body.answer).toBeGreaterThanOrEqual(1);
    expect(reply.body.answer).toBeLessThanOrEqual(5);
    expect(evaluationsOf(tenant.caller.workspace)).toEqual([expect.objectContaining({ trace_id: "", span_id: "", score_value: reply.body.answer, metadata: expect.objectContaining({ dataset_record_id: record.id }) })]);
  });

  it("answers another workspace 404 and stores no evaluation for it", async () => {
    const record = await datasets.createdRecord();
    const other = await newTenant();

    const reply = await datasetsClient(api, other).judge(record.id, aJudge(CLASSES));

    expect(reply.status).toBe(404);
    expect(reply.body.detail.error_code).toBe("DATASET_RECORD_NOT_FOUND");
    expect(evaluationsOf(other.caller.workspace)).toEqual([]);
    expect(evaluationsOf(tenant.caller.workspace)).toEqual([]);
  });

  it("refuses an unknown judge model with 422 naming model_name", async () => {
    const record = await datasets.createdRecord();

    const reply = await datasets.judge(record.id, { ...aJudge(CLASSES), model_name: "no-such-model" });

    expect(reply.status).toBe(422);
    expect(reply.body.detail).toEqual({ message: expect.stringContaining("judge_definition.model_name"), error_code: "VALIDATION_ERROR" });
  });
});

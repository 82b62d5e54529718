import { TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/observability/records-from-spans.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { aChatSpan, aDataset, aDatasetItem } from "../../support/dataset-items.js";
import { aSpanItems } from "../../support/span-items.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";

const dynamo = mockDynamo();
let tables: FakeTables;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
});
const caller = aCaller();
const fromSpans = (datasetId: string, spans: unknown) =>
  aJsonEvent({ spans }, { path: `/v1/observability/datasets/${datasetId}/records/from-spans`, pathParameters: { dataset_id: datasetId }, caller });
const records = () => tables.items("datasets").filter((item) => String(item.sk).startsWith("REC#"));

describe("POST /v1/observability/datasets/{dataset_id}/records/from-spans", () => {
  it("makes one TELEMETRY_SPAN record per span, its payload the span's conversation as chat messages", async () => {
    const dataset = aDataset(caller);
    const span = aChatSpan(caller);
    const toolSpan = aChatSpan(caller, {
      input_messages: JSON.stringify([
        { role: "user", parts: [{ type: "text", content: "Weather?" }] },
        { role: "assistant", parts: [{ type: "tool_call", id: "call1", name: "weather", arguments: { city: "Paris" } }] },
        { role: "tool", parts: [{ type: "tool_call_response", id: "call1", response: "sunny" }] },
      ]),
      system_instructions: "",
    });
    tables.put("datasets", aDatasetItem(dataset));
    tables.put("telemetry", ...aSpanItems([span]), ...aSpanItems([toolSpan]));

    const response = await invoke(handler, fromSpans(dataset.id, [{ trace_id: span.trace_id.toUpperCase(), span_id: span.span_id }, { trace_id: toolSpan.trace_id, span_id: toolSpan.span_id }]));

    expect(response.statusCode).toBe(201);
    expect(response.json.records).toHaveLength(2);
    expect(response.json.records[0]).toMatchObject({
      dataset_id: dataset.id,
      source: "TELEMETRY_SPAN",
      payload: {
        messages: [
          { role: "system", content: "Answer in one word." },
          { role: "user", content: "What is the capital of France?" },
          { role: "assistant", content: "Paris." },
        ],
      },
      properties: { trace_id: span.trace_id, span_id: span.span_id, model: "mistral-small-latest", operation_name: "chat" },
    });
    expect(response.json.records[1].payload.messages).toEqual([
      { role: "user", content: "Weather?" },
      { role: "assistant", content: "", tool_calls: [{ id: "call1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", content: "sunny", tool_call_id: "call1" },
      { role: "assistant", content: "Paris." },
    ]);
    expect(records().find((item) => item.id === response.json.records[0].id)).toMatchObject({ span: { traceId: span.trace_id, spanId: span.span_id, conversationId: "conv-1", responseId: "cmpl-1" } });
  });

  it("answers 404 SPAN_NOT_FOUND naming a missing span (another workspace's too) and makes no record", async () => {
    const dataset = aDataset(caller);
    const mine = aChatSpan(caller);
    const theirs = aChatSpan(aCaller());
    tables.put("datasets", aDatasetItem(dataset));
    tables.put("telemetry", ...aSpanItems([mine]), ...aSpanItems([theirs]));

    const response = await invoke(handler, fromSpans(dataset.id, [mine, theirs].map((s) => ({ trace_id: s.trace_id, span_id: s.span_id }))));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail).toEqual({ message: expect.stringContaining(theirs.span_id), error_code: "SPAN_NOT_FOUND" });
    expect(records()).toEqual([]);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it("refuses a span without captured messages with 422 DATASET_RECORD_FORMAT_ERROR", async () => {
    const dataset = aDataset(caller);
    const span = aChatSpan(caller, { input_messages: "", output_messages: "", system_instructions: "" });
    tables.put("datasets", aDatasetItem(dataset));
    tables.put("telemetry", ...aSpanItems([span]));

    const response = await invoke(handler, fromSpans(dataset.id, [{ trace_id: span.trace_id, span_id: span.span_id }]));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail.error_code).toBe("DATASET_RECORD_FORMAT_ERROR");
    expect(records()).toEqual([]);
  });

  it("answers 404 DATASET_NOT_FOUND for another workspace's dataset, and 422 for ids that are not hex", async () => {
    const theirs = aDataset(aCaller());
    const span = aChatSpan(caller);
    tables.put("datasets", aDatasetItem(theirs));
    tables.put("telemetry", ...aSpanItems([span]));

    const response = await invoke(handler, fromSpans(theirs.id, [{ trace_id: span.trace_id, span_id: span.span_id }]));
    expect(response.statusCode).toBe(404);
    expect(response.json.detail.error_code).toBe("DATASET_NOT_FOUND");
    expect((await invoke(handler, fromSpans(theirs.id, [{ trace_id: "x", span_id: span.span_id }]))).statusCode).toBe(422);
    expect(records()).toEqual([]);
  });
});

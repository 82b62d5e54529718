import { GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler as getSpan } from "../../../functions/observability/get-span.js";
import { handler as getTraceSpans } from "../../../functions/observability/get-trace-spans.js";
import { handler as getTrace } from "../../../functions/observability/get-trace.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { useFakeTables } from "../../support/fake-table.js";
import { aSpan, aSpanItems, messagesJson } from "../../support/span-items.js";

const dynamo = mockDynamo();
const tables = useFakeTables(dynamo);
const caller = aCaller({ roles: ["observability_viewer"] });
const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const at = (second: number) => `2026-11-23T12:00:${String(second).padStart(2, "0")}.000000Z`;

/** A trace of `n` chat spans, a second apart, stored in the caller's workspace. */
function storedTrace(n: number, workspace = caller) {
  const spans = Array.from({ length: n }, (_, i) =>
    aSpan(workspace, { trace_id: traceId, start_time: at(i), end_time: at(i + 1), parent_span_id: i === 0 ? "" : "0".repeat(15) + "1", input_messages: messagesJson(["user", `q${i}`]), output_messages: messagesJson(["assistant", `a${i}`]) }),
  );
  tables.put("telemetry", ...aSpanItems(spans));
  return spans;
}

describe("GET /v1/observability/traces/{trace_id}", () => {
  it("derives the trace from its spans and the count of its evaluations", async () => {
    const spans = storedTrace(3);
    tables.put("telemetry", { pk: `EVALS#${caller.workspace}#${traceId}`, sk: "COUNT", count: 2, ttl: 1 });

    const response = await invoke(getTrace, anEvent({ path: `/v1/observability/traces/${traceId}`, pathParameters: { trace_id: traceId }, caller }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({
      trace_id: traceId,
      root_span_id: spans[0]!.span_id,
      workspace_id: caller.workspace,
      span_count: 3,
      llm_call_count: 3,
      evaluation_count: 2,
      input_tokens: 30,
      start_time: at(0),
      end_time: at(3),
      duration_ns: 3_000_000_000,
      first_turn_last_input_message: "q0",
      last_turn_last_output_message: "a2",
    });
  });

  it("answers 404 TRACE_NOT_FOUND in the observability envelope for a trace of another workspace", async () => {
    storedTrace(1, aCaller());

    const response = await invoke(getTrace, anEvent({ path: `/v1/observability/traces/${traceId}`, pathParameters: { trace_id: traceId }, caller }));

    expect(response.statusCode).toBe(404);
    expect(response.json).toStrictEqual({ detail: { message: `Trace '${traceId}' not found`, error_code: "TRACE_NOT_FOUND" } });
  });

  it("refuses a key without observability:read with 403 AUTH_FORBIDDEN before reading", async () => {
    const response = await invoke(getTrace, anEvent({ path: `/v1/observability/traces/${traceId}`, pathParameters: { trace_id: traceId }, caller: aCaller({ roles: ["billing"] }) }));

    expect(response.statusCode).toBe(403);
    expect(response.json.detail.error_code).toBe("AUTH_FORBIDDEN");
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(0);
  });
});

describe("GET /v1/observability/traces/{trace_id}/spans", () => {
  const list = (query: Record<string, string> = {}) => invoke(getTraceSpans, anEvent({ path: `/v1/observability/traces/${traceId}/spans`, pathParameters: { trace_id: traceId }, query, caller }));

  it("pages the spans in start order with a cursor and a next link", async () => {
    const spans = storedTrace(5);

    const first = await list({ page_size: "2" });
    const second = await list({ page_size: "2", cursor: first.json.spans.cursor });
    const third = await list({ page_size: "2", cursor: second.json.spans.cursor });

    expect(first.statusCode).toBe(200);
    expect(first.json.spans.results.map((s: { span_id: string }) => s.span_id)).toStrictEqual([spans[0]!.span_id, spans[1]!.span_id]);
    expect(first.json.spans.next).toBe(`/v1/observability/traces/${traceId}/spans?page_size=2&cursor=${first.json.spans.cursor}`);
    expect(second.json.spans.results.map((s: { span_id: string }) => s.span_id)).toStrictEqual([spans[2]!.span_id, spans[3]!.span_id]);
    expect(third.json.spans.results.map((s: { span_id: string }) => s.span_id)).toStrictEqual([spans[4]!.span_id]);
    expect(third.json.spans).toMatchObject({ next: null, cursor: null });
  });

  it("answers 50 by default and keeps spans that started within from/to", async () => {
    storedTrace(60);

    expect((await list()).json.spans.results).toHaveLength(50);
    const windowed = await list({ from: "2026-11-23T12:00:10Z", to: "2026-11-23T13:00:12+01:00" });
    expect(windowed.json.spans.results.map((s: { start_time: string }) => s.start_time)).toStrictEqual([at(10), at(11), at(12)]);
  });

  it("answers 404 for an unknown trace, 422 VALIDATION_ERROR for a page size over 100 or a cursor it did not issue", async () => {
    expect((await list()).json).toStrictEqual({ detail: { message: `Trace '${traceId}' not found`, error_code: "TRACE_NOT_FOUND" } });
    storedTrace(1);
    const tooMany = await list({ page_size: "101" });
    const forged = await list({ cursor: "garbage" });

    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json.detail.error_code).toBe("VALIDATION_ERROR");
    expect(forged.statusCode).toBe(422);
    expect(forged.json.detail.error_code).toBe("VALIDATION_ERROR");
  });
});

describe("GET /v1/observability/traces/{trace_id}/spans/{span_id}", () => {
  it("answers the span by its ids, every field of GetSpan present", async () => {
    const [span] = storedTrace(1);

    const response = await invoke(getSpan, anEvent({ path: `/v1/observability/traces/${traceId}/spans/${span!.span_id}`, pathParameters: { trace_id: traceId, span_id: span!.span_id }, caller }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual(span);
    expect(dynamo.commandCalls(GetCommand).map((c) => c.args[0].input.Key)).toStrictEqual([
      { pk: `SPAN#${caller.workspace}#${traceId}#${span!.span_id}`, sk: "SPAN" },
      { pk: `TRACE#${caller.workspace}#${traceId}`, sk: `SPAN#${span!.start_time}#${span!.span_id}` },
    ]);
  });

  it("answers 404 SPAN_NOT_FOUND for an unknown span", async () => {
    storedTrace(1);

    const response = await invoke(getSpan, anEvent({ path: `/v1/observability/traces/${traceId}/spans/00000000000000aa`, pathParameters: { trace_id: traceId, span_id: "00000000000000aa" }, caller }));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail.error_code).toBe("SPAN_NOT_FOUND");
  });
});

import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as traceInfo } from "../../../functions/workflows/trace-info.js";
import { handler as traceOtel } from "../../../functions/workflows/trace-otel.js";
import { traceIdOf, traceIdOfParent } from "../../../shared/domain/workflows/trace-context.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { seedRun } from "../../support/workflow-builders.js";
import { aSpan, aSpanItems } from "../../support/span-items.js";

vi.mock("../../../shared/engine/workflow-machines.js", () => ({}));
vi.mock("../../../shared/engine/timers.js", () => ({}));

const dynamo = mockDynamo();
const caller = aCaller();
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

let tables: ReturnType<typeof serveTables>;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
});

const at = (id: string, which: "info" | "otel") =>
  anEvent({ path: `/v1/workflows/executions/${id}/trace/${which}`, resource: `/v1/workflows/executions/{execution_id}/trace/${which}`, pathParameters: { execution_id: id }, caller });

describe("GET /v1/workflows/executions/{execution_id}/trace/info", () => {
  it("answers the execution's trace id and no trace data while the run has made no model call", async () => {
    await seedRun(caller.workspace, { executionId: "t-1", traceId: TRACE });

    const response = await invoke(traceInfo, at("t-1", "info"));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ otel_trace_id: TRACE, has_trace_data: false });
  });

  it("answers null for a run recorded without a trace id, and 404 WF_1100 for an unknown execution", async () => {
    await seedRun(caller.workspace, { executionId: "t-old" });

    expect((await invoke(traceInfo, at("t-old", "info"))).json).toEqual({ otel_trace_id: null, has_trace_data: false });
    const missing = await invoke(traceInfo, at("nope", "info"));
    expect(missing.statusCode).toBe(404);
    expect(missing.json).toMatchObject({ code: "WF_1100" });
  });
});

describe("GET /v1/workflows/executions/{execution_id}/trace/otel", () => {
  it("answers the execution with data_source none and no trace data", async () => {
    const run = await seedRun(caller.workspace, { executionId: "t-2", traceId: TRACE, status: "COMPLETED", result: { ok: 1 } });

    const response = await invoke(traceOtel, at("t-2", "otel"));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({
      workflow_name: run.workflowName,
      workflow_id: run.workflowId,
      deployment_name: run.deploymentName,
      execution_id: "t-2",
      parent_execution_id: null,
      root_execution_id: "t-2",
      run_id: run.runId,
      user_id: null,
      status: "COMPLETED",
      start_time: run.startTime,
      end_time: run.endTime,
      total_duration_ms: 1000,
      registered_by: null,
      result: { ok: 1 },
      data_source: "none",
      otel_trace_id: TRACE,
      otel_trace_data: null,
    });
    expect((await invoke(traceOtel, at("nope", "otel"))).statusCode).toBe(404);
  });
});

describe("trace data of a run that called models", () => {
  it("reads the spans of the run's trace id from the point store: has_trace_data, and OTLP resource spans in batches", async () => {
    await seedRun(caller.workspace, { executionId: "t-3", traceId: TRACE });
    const chat = aSpan(caller, { trace_id: TRACE, workflow_name: "wf", usage_input_tokens: 9, response_finish_reasons: ["stop"], span_attributes: { "platform.route": "workflow x" } });
    const other = aSpan(aCaller(), { trace_id: TRACE });
    tables.put("telemetry", ...aSpanItems([chat, other]));

    const info = await invoke(traceInfo, at("t-3", "info"));
    const otel = await invoke(traceOtel, at("t-3", "otel"));

    expect(info.json).toEqual({ otel_trace_id: TRACE, has_trace_data: true });
    expect(otel.json.data_source).toBe("platform-telemetry");
    const batches = otel.json.otel_trace_data.batches;
    expect(batches).toHaveLength(1);
    expect(batches[0].resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "mistral-platform-api" } });
    const [span] = batches[0].scopeSpans[0].spans;
    expect(span).toMatchObject({ traceId: TRACE, spanId: chat.span_id, name: "chat mistral-small-latest", kind: "SPAN_KIND_CLIENT", startTimeUnixNano: "1795435200000000000", status: { code: 0 } });
    expect(span.attributes).toEqual(
      expect.arrayContaining([
        { key: "gen_ai.operation.name", value: { stringValue: "chat" } },
        { key: "gen_ai.workflow.name", value: { stringValue: "wf" } },
        { key: "gen_ai.usage.input_tokens", value: { intValue: "9" } },
        { key: "gen_ai.response.finish_reasons", value: { arrayValue: { values: [{ stringValue: "stop" }] } } },
        { key: "platform.route", value: { stringValue: "workflow x" } },
      ]),
    );
  });
});

describe("trace ids of executions (W3C traceparent)", () => {
  it("takes the trace id of a valid traceparent, and a new one otherwise or with force_new_trace", () => {
    expect(traceIdOfParent(`00-${TRACE}-00f067aa0ba902b7-01`)).toBe(TRACE);
    for (const bad of ["", "garbage", `ff-${TRACE}-00f067aa0ba902b7-01`, `00-${"0".repeat(32)}-00f067aa0ba902b7-01`, `00-${TRACE}-${"0".repeat(16)}-01`, `00-${TRACE.toUpperCase()}-00f067aa0ba902b7-01`, `00-${TRACE}-00f067aa0ba902b7-01-extra`]) {
      expect(traceIdOfParent(bad)).toBeUndefined();
    }
    expect(traceIdOfParent(`01-${TRACE}-00f067aa0ba902b7-01-future`)).toBe(TRACE);
    expect(traceIdOf({ traceparent: `00-${TRACE}-00f067aa0ba902b7-01`, force_new_trace: true })).toMatch(/^[0-9a-f]{32}$/);
    expect(traceIdOf({ traceparent: `00-${TRACE}-00f067aa0ba902b7-01`, force_new_trace: true })).not.toBe(TRACE);
    expect(traceIdOf({})).not.toBe(traceIdOf({}));
  });
});

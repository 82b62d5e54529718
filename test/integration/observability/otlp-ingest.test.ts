import { describe, expect, it } from "vitest";
import { decodeExportResponse, encodeProtobuf } from "../../../shared/http/otlp.js";
import { useEmbeddedApi } from "../../support/api.js";
import { filesClient } from "../../support/files-client.js";
import { aLogsRequest, anExportRequest, anOtlpSpan, hex, str } from "../../support/otlp.js";
import { aWireResourceSpans, aWireSpan, deepArrayValue, emptyResourceSpans } from "../../support/otlp-wire.js";
import { newTenant } from "../../support/tenant.js";
import { telemetryRows } from "../../support/telemetry-files.js";

const { api, tenant } = useEmbeddedApi();
const http = filesClient(api, tenant);

async function post(path: string, body: Uint8Array | string, type: string, key: string | null = tenant.key) {
  const response = await fetch(`${api.url}${path}`, { method: "POST", headers: { "content-type": type, ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: typeof body === "string" ? body : Buffer.from(body) });
  return { status: response.status, type: response.headers.get("content-type") ?? "", bytes: new Uint8Array(await response.arrayBuffer()) };
}
const json = (reply: { bytes: Uint8Array }) => JSON.parse(Buffer.from(reply.bytes).toString("utf8"));

describe("POST /telemetry/v1/traces", () => {
  it("stores OTLP/JSON spans in the key's workspace with their GenAI fields, answering an empty ExportTraceServiceResponse", async () => {
    const trace = hex(16);
    const root = anOtlpSpan(trace, 0, { name: "agent run", attributes: [str("gen_ai.operation.name", "invoke_agent"), str("gen_ai.agent.name", "helper"), str("workspace_id", "someone-else")] });
    const child = anOtlpSpan(trace, 1, { parentSpanId: root.spanId });

    const reply = await post("/telemetry/v1/traces", JSON.stringify(anExportRequest([root, child])), "application/json");

    expect(reply.status).toBe(200);
    expect(reply.type).toContain("application/json");
    expect(json(reply)).toStrictEqual({});
    const span = (await http.request("GET", `/v1/observability/traces/${trace}/spans/${child.spanId}`)).body;
    expect(span).toMatchObject({
      workspace_id: tenant.caller.workspace,
      organization_id: tenant.caller.organization,
      trace_id: trace,
      parent_span_id: root.spanId,
      span_kind: "Client",
      service_name: "my-app",
      operation_name: "chat",
      provider_name: "mistral_ai",
      request_model: "mistral-small-latest",
      response_model: "mistral-small-2506",
      usage_input_tokens: 12,
      usage_output_tokens: 7,
      response_finish_reasons: ["stop"],
      request_temperature: 0.5,
      duration_ns: 250_000_000,
      span_attributes: { "http.request.method": "POST" },
      resource_attributes: { "service.name": "my-app", "deployment.environment.name": "test" },
      scope_name: "@mistralai/mistralai",
      scope_version: "2.7.0",
    });
    const trace_ = (await http.request("GET", `/v1/observability/traces/${trace}`)).body;
    expect(trace_).toMatchObject({ root_span_id: root.spanId, root_span_name: "agent run", agent_name: "helper", environment: "test", span_count: 2, llm_call_count: 1, workspace_id: tenant.caller.workspace });
    expect((await telemetryRows("spans", tenant.caller.workspace)).filter((row) => row.trace_id === trace)).toHaveLength(2);
  });

  it("decodes protobuf and answers protobuf, with partial_success counting the invalid spans", async () => {
    const trace = hex(16);
    const good = anOtlpSpan(trace, 0);
    const badId = anOtlpSpan("00000000000000000000000000000000", 1);
    const backwards = anOtlpSpan(trace, 2, { startTimeUnixNano: "2000", endTimeUnixNano: "1000" });

    const reply = await post("/telemetry/v1/traces", encodeProtobuf("traces", anExportRequest([good, badId, backwards])), "application/x-protobuf");

    expect(reply.status).toBe(200);
    expect(reply.type).toBe("application/x-protobuf");
    const answer = decodeExportResponse("traces", reply.bytes) as { partialSuccess: { rejectedSpans: string; errorMessage: string } };
    expect(answer.partialSuccess.rejectedSpans).toBe("2");
    expect(answer.partialSuccess.errorMessage).toMatch(/traceId must be 32 hex digits.*end not before the start/);
    const spans = (await http.request("GET", `/v1/observability/traces/${trace}/spans`)).body.spans.results;
    expect(spans.map((s: { span_id: string }) => s.span_id)).toStrictEqual([good.spanId]);
  });

  it("answers JSON partial success in OTLP/JSON's names", async () => {
    const reply = await post("/telemetry/v1/traces", JSON.stringify(anExportRequest([anOtlpSpan("xyz", 0)])), "application/json");

    expect(json(reply)).toStrictEqual({ partialSuccess: { rejectedSpans: "1", errorMessage: expect.stringContaining("traceId") } });
  });

  it("refuses a body over the limit with 413, another media type with 415, garbage with 422, and no key with 401", async () => {
    const huge = await post("/telemetry/v1/traces", "x".repeat(4 * 1024 * 1024 + 1), "application/json");
    expect(huge.status).toBe(413);
    expect(json(huge).detail.message).toMatch(/at most 4194304 bytes/);
    expect((await post("/telemetry/v1/traces", "{}", "text/plain")).status).toBe(415);
    expect((await post("/telemetry/v1/traces", "{not json", "application/json")).status).toBe(422);
    expect((await post("/telemetry/v1/traces", new Uint8Array([0xff, 0xff, 0xff]), "application/x-protobuf")).status).toBe(422);
    expect((await post("/telemetry/v1/traces", "{}", "application/json", null)).status).toBe(401);
  });

  it("rejects only the spans it cannot keep (a 60,000-level array value, a 26-digit start time), storing the rest", async () => {
    const trace = hex(16);
    const good = anOtlpSpan(trace, 0);
    const deep = anOtlpSpan(trace, 1, { attributes: [] });
    const late = anOtlpSpan(trace, 2, { startTimeUnixNano: "12345678901234567890123456" });
    // JSON.stringify recurses: the deep value is written as text into the one empty attribute list.
    const body = JSON.stringify(anExportRequest([good, deep, late])).replace('"attributes":[]', `"attributes":[{"key":"deep","value":${'{"arrayValue":{"values":['.repeat(60_000)}{"stringValue":"x"}${"]}}".repeat(60_000)}}]`);

    const viaJson = await post("/telemetry/v1/traces", body, "application/json");
    const viaProto = await post("/telemetry/v1/traces", Buffer.concat([encodeProtobuf("traces", anExportRequest([anOtlpSpan(trace, 3)])), aWireResourceSpans([aWireSpan(trace, hex(8), "deep", deepArrayValue(60_000))])]), "application/x-protobuf");

    expect(viaJson.status).toBe(200);
    expect(json(viaJson)).toStrictEqual({ partialSuccess: { rejectedSpans: "2", errorMessage: expect.stringMatching(/deeper than 32 levels.*before the year 10000/) } });
    expect(viaProto.status).toBe(200);
    expect(decodeExportResponse("traces", viaProto.bytes)).toStrictEqual({ partialSuccess: { rejectedSpans: "1", errorMessage: expect.stringContaining("deeper than 32 levels") } });
    const spans = (await http.request("GET", `/v1/observability/traces/${trace}/spans`)).body.spans.results;
    // The good JSON span and the protobuf request's good span; neither deep one, nor the late one.
    expect(spans).toHaveLength(2);
    expect(spans.map((s: { span_id: string }) => s.span_id)).toContain(good.spanId);
    expect(spans.map((s: { span_name: string }) => s.span_name)).not.toContain("deep span");
  });

  it("refuses a request holding more items than its bounds with 413, in either encoding, and the server answers on", async () => {
    const flood = await post("/telemetry/v1/traces", emptyResourceSpans(2 * 1024 * 1024 - 1), "application/x-protobuf");
    const floodJson = await post("/telemetry/v1/traces", JSON.stringify({ resourceSpans: Array.from({ length: 10_001 }, () => ({})) }), "application/json");

    expect(flood.status).toBe(413);
    expect(json(flood).detail.message).toMatch(/at most 10000 resources/);
    expect(floodJson.status).toBe(413);
    expect((await post("/telemetry/v1/traces", "{}", "application/json")).status).toBe(200);
  });

  it("keeps attribute keys named like Object.prototype's members as span attributes", async () => {
    const trace = hex(16);
    const span = anOtlpSpan(trace, 0, { attributes: [str("constructor", "c"), str("__proto__", "p"), str("toString", "t")] });

    const reply = await post("/telemetry/v1/traces", JSON.stringify(anExportRequest([span])), "application/json");

    expect(json(reply)).toStrictEqual({});
    const read = await http.request("GET", `/v1/observability/traces/${trace}/spans/${span.spanId}`);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    // The JSON answer's schema drops a `__proto__` key (zod builds records by assignment); the stores keep it.
    expect(Object.entries(read.body.span_attributes)).toStrictEqual([["constructor", "c"], ["toString", "t"]]);
    const row = (await telemetryRows("spans", tenant.caller.workspace)).find((r) => r.span_id === span.spanId)!;
    expect(Object.entries(row.span_attributes)).toStrictEqual([["constructor", "c"], ["__proto__", "p"], ["toString", "t"]]);
  });

  it("keeps another workspace's key from reading what was ingested, and a viewer's key from ingesting (403)", async () => {
    const trace = hex(16);
    await post("/telemetry/v1/traces", JSON.stringify(anExportRequest([anOtlpSpan(trace)])), "application/json");
    const other = await newTenant();
    const viewer = await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, roles: ["observability_viewer"] });

    expect((await http.request("GET", `/v1/observability/traces/${trace}`, { key: other.key })).status).toBe(404);
    expect((await post("/telemetry/v1/traces", JSON.stringify(anExportRequest([anOtlpSpan(hex(16))])), "application/json", viewer.key)).status).toBe(403);
  });
});

describe("POST /telemetry/v1/logs", () => {
  it("stores log records (JSON and protobuf) correlated to their trace and span, rejecting bad ids", async () => {
    const trace = hex(16);
    const span = hex(8);

    const viaJson = await post("/telemetry/v1/logs", JSON.stringify(aLogsRequest([{ traceId: trace, spanId: span, body: "hello log" }, { traceId: "nope" }])), "application/json");
    const viaProto = await post("/telemetry/v1/logs", encodeProtobuf("logs", aLogsRequest([{ traceId: trace, spanId: span, body: "proto log", severity: 17 }])), "application/x-protobuf");

    expect(json(viaJson)).toStrictEqual({ partialSuccess: { rejectedLogRecords: "1", errorMessage: expect.stringContaining("traceId") } });
    expect(decodeExportResponse("logs", viaProto.bytes)).toStrictEqual({});
    const logs = (await telemetryRows("logs", tenant.caller.workspace)).filter((row) => row.trace_id === trace);
    expect(logs.map((l) => [l.body, l.span_id, l.severity_number, l.service_name, l.workspace_id])).toStrictEqual([
      ["hello log", span, 9, "my-app", tenant.caller.workspace],
      ["proto log", span, 17, "my-app", tenant.caller.workspace],
    ]);
    expect(logs[0]).toMatchObject({ scope_name: "app.logger", log_attributes: { logger: "main" }, severity_text: "INFO" });
  });
});

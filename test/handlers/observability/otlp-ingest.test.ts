import { BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler as logs } from "../../../functions/observability/otlp-logs.js";
import { handler as traces } from "../../../functions/observability/otlp-traces.js";
import { decodeExportResponse, encodeProtobuf } from "../../../shared/http/otlp.js";
import { freezeDate, mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { aLogsRequest, anExportRequest, anOtlpSpan, hex, str } from "../../support/otlp.js";

const dynamo = mockDynamo({ resolves: {} });
const s3 = mockS3({ resolves: {} });
freezeDate("2026-11-23T12:00:00.000Z");
const caller = aCaller();

beforeEach(() => {
  vi.stubEnv("TELEMETRY_DIR", "");
  vi.stubEnv("BUCKET_TELEMETRY", "telemetry-bucket");
  vi.stubEnv("TELEMETRY_RETENTION_DAYS", "7");
});

const exportEvent = (path: string, body: string | Uint8Array, type: string, who = caller) =>
  anEvent({
    method: "POST",
    path,
    caller: who,
    headers: { "content-type": type },
    body: typeof body === "string" ? body : Buffer.from(body).toString("base64"),
    isBase64Encoded: typeof body !== "string",
  });

describe("POST /telemetry/v1/traces", () => {
  it("writes the spans to the point store with the retention's TTL and to the telemetry bucket, owned by the key's workspace", async () => {
    const trace = hex(16);
    const span = anOtlpSpan(trace, 0, { attributes: [str("gen_ai.operation.name", "chat"), str("workspace_id", "not-mine")] });

    const response = await invoke(traces, exportEvent("/telemetry/v1/traces", JSON.stringify(anExportRequest([span])), "application/json"));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({});
    const items = dynamo.commandCalls(BatchWriteCommand).flatMap((c) => Object.values(c.args[0].input.RequestItems ?? {}).flat()) as { PutRequest: { Item: Record<string, any> } }[];
    const ttl = Math.floor(Date.parse("2026-11-23T12:00:00.000Z") / 1000) + 7 * 86_400;
    expect(items.map((i) => [i.PutRequest.Item.pk, i.PutRequest.Item.ttl])).toStrictEqual([
      [`TRACE#${caller.workspace}#${trace}`, ttl],
      [`SPAN#${caller.workspace}#${trace}#${span.spanId}`, ttl],
    ]);
    expect(items[0]!.PutRequest.Item.span).toMatchObject({ workspace_id: caller.workspace, operation_name: "chat", span_attributes: { workspace_id: "not-mine" } });
    const put = s3.commandCalls(PutObjectCommand)[0]!.args[0].input;
    expect(put.Bucket).toBe("telemetry-bucket");
    expect(put.Key).toMatch(new RegExp(`^telemetry/spans/workspace_id=${caller.workspace}/dt=\\d{4}-\\d{2}-\\d{2}/`));
    expect(JSON.parse(String(put.Body).trim())).toMatchObject({ span_id: span.spanId, trace_id: trace });
  });

  it("answers protobuf with partial_success and writes only the valid spans", async () => {
    const body = encodeProtobuf("traces", anExportRequest([anOtlpSpan(hex(16)), anOtlpSpan("bad")]));

    const response = await invoke(traces, exportEvent("/telemetry/v1/traces", body, "application/x-protobuf"));

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/x-protobuf");
    expect(decodeExportResponse("traces", Buffer.from(response.body, "base64"))).toMatchObject({ partialSuccess: { rejectedSpans: "1" } });
    expect(dynamo.commandCalls(BatchWriteCommand)[0]!.args[0].input.RequestItems!["platform-telemetry"]).toHaveLength(2);
  });

  it("refuses 413 over 4 MiB and 403 without observability:write, writing nothing", async () => {
    const huge = await invoke(traces, exportEvent("/telemetry/v1/traces", "x".repeat(4 * 1024 * 1024 + 1), "application/json"));
    const viewer = await invoke(traces, exportEvent("/telemetry/v1/traces", JSON.stringify(anExportRequest([anOtlpSpan(hex(16))])), "application/json", aCaller({ roles: ["observability_viewer"] })));

    expect(huge.statusCode).toBe(413);
    expect(huge.json.detail.error_code).toBe("UNKNOWN_ERROR");
    expect(viewer.statusCode).toBe(403);
    expect(dynamo.commandCalls(BatchWriteCommand)).toHaveLength(0);
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
  });
});

describe("POST /telemetry/v1/logs", () => {
  it("appends the log records to the telemetry bucket, and nothing to the point store", async () => {
    const trace = hex(16);

    const response = await invoke(logs, exportEvent("/telemetry/v1/logs", JSON.stringify(aLogsRequest([{ traceId: trace, body: "hi" }])), "application/json"));

    expect(response.statusCode).toBe(200);
    const put = s3.commandCalls(PutObjectCommand)[0]!.args[0].input;
    expect(put.Key).toMatch(new RegExp(`^telemetry/logs/workspace_id=${caller.workspace}/`));
    expect(JSON.parse(String(put.Body).trim())).toMatchObject({ trace_id: trace, body: "hi", workspace_id: caller.workspace });
    expect(dynamo.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });
});

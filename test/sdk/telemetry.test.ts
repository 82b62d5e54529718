/**
 * The official SDK's own telemetry (`configureTelemetry(client)`, dedicated mode: its OTLP/HTTP exporter) against
 * a real `npm start`: its spans land through POST /telemetry/v1/traces in the key's workspace, and the point
 * reads find them by trace id, through the SDK (`beta.observability.traces.*`) and in the analytical files.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { Mistral } from "@mistralai/mistralai";
import { configureTelemetry, shutdownTelemetry } from "@mistralai/mistralai/extra/observability";
import * as errors from "@mistralai/mistralai/models/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killAllStarted, startNpmStart, useNpmStartDirs, type StartedProcess } from "../support/local-process.js";
import { errorOf } from "../support/sdk.js";
import { eventually, telemetryRows } from "../support/telemetry-files.js";

const dirs = useNpmStartDirs("platform-telemetry-");
let server: StartedProcess;
let dataDir: string;
let workspace: string;

beforeAll(async () => {
  dataDir = dirs.dataDir();
  server = await startNpmStart({ dataDir, key: `telemetry-${randomBytes(16).toString("hex")}` });
  workspace = /Workspace:\s+(\S+)/.exec(server.output())![1]!;
}, 120_000);
afterAll(() => killAllStarted());

describe("POST /telemetry/v1/traces (SDK configureTelemetry on npm start)", () => {
  it("exports the SDK's chat spans to the ingest route; the point reads find them by trace id", async () => {
    const client = new Mistral({ apiKey: server.key, serverURL: server.url });
    expect(await configureTelemetry(client)).toBe(true);

    const first = await client.chat.complete({ model: "mistral-small-latest", messages: [{ role: "user", content: "What is the best French cheese?" }] });
    await client.chat.complete({ model: "mistral-small-latest", messages: [{ role: "user", content: "And the best wine?" }] });
    await shutdownTelemetry(client);
    expect(first.choices[0]?.message?.content).toBeTruthy();

    const files = join(dataDir, "telemetry");
    const sdkSpans = await eventually("the SDK's spans", async () => {
      // The platform's own spans of the two calls are there too (scope platform.span-writer): the SDK's are the others.
      const exported = (await telemetryRows("spans", workspace, files)).filter((row) => row.scope_name !== "platform.span-writer");
      return exported.length >= 2 ? exported : undefined;
    }, 15_000);
    expect(sdkSpans.every((row) => row.workspace_id === workspace)).toBe(true);
    const chat = sdkSpans.find((row) => row.operation_name === "chat")!;
    expect(chat).toMatchObject({ request_model: "mistral-small-latest", scope_name: "mistralai_sdk_tracer", service_name: "mistralai_sdk" });
    expect(chat.usage_input_tokens).toBeGreaterThan(0);

    const reader = new Mistral({ apiKey: server.key, serverURL: server.url });
    const trace = await reader.beta.observability.traces.getTraceById({ traceId: chat.trace_id });
    const spans = await reader.beta.observability.traces.getTraceSpans({ traceId: chat.trace_id, pageSize: 100 });
    const span = await reader.beta.observability.traces.getSpanById({ traceId: chat.trace_id, spanId: chat.span_id });

    expect(trace).toMatchObject({ traceId: chat.trace_id, workspaceId: workspace });
    expect(trace.llmCallCount).toBeGreaterThanOrEqual(1);
    expect(spans.spans.results!.map((s) => s.spanId)).toContain(chat.span_id);
    expect(span).toMatchObject({ spanId: chat.span_id, traceId: chat.trace_id, operationName: "chat", requestModel: "mistral-small-latest" });
    const missing = await errorOf(reader.beta.observability.traces.getTraceById({ traceId: "0".repeat(31) + "1" }), errors.ObservabilityError);
    expect(missing.data$.detail.errorCode).toBe("TRACE_NOT_FOUND");
  }, 60_000);
});

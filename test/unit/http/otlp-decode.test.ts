import { describe, expect, it } from "vitest";
import { ApiError } from "../../../shared/domain/errors.js";
import { OTLP_BOUNDS } from "../../../shared/domain/observability/otlp-bounds.js";
import { decodeProtobuf, encodeProtobuf } from "../../../shared/http/otlp.js";
import { aLogsRequest, anExportRequest, anOtlpSpan, hex } from "../../support/otlp.js";
import { aWireResourceSpans, aWireSpan, deepArrayValue, emptyResourceSpans } from "../../support/otlp-wire.js";

describe("decodeProtobuf", () => {
  it("reads spans and log records into OTLP/JSON's shape with hex ids", () => {
    const span = anOtlpSpan(hex(16), 0, { parentSpanId: hex(8) });
    const logs = aLogsRequest([{ traceId: hex(16), spanId: hex(8), body: "hello" }]);

    const traces = decodeProtobuf("traces", encodeProtobuf("traces", anExportRequest([span])));
    const records = decodeProtobuf("logs", encodeProtobuf("logs", logs));

    expect(traces.resourceSpans![0]!.scopeSpans![0]!.spans![0]).toMatchObject({ traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId, name: span.name, startTimeUnixNano: span.startTimeUnixNano, attributes: span.attributes });
    expect(traces.resourceSpans![0]!.scopeSpans![0]!.scope).toStrictEqual({ name: "@mistralai/mistralai", version: "2.7.0" });
    expect(traces.resourceSpans![0]!.resource!.attributes).toHaveLength(2);
    expect(records.resourceLogs![0]!.scopeLogs![0]!.logRecords![0]).toMatchObject({ traceId: logs.resourceLogs![0]!.scopeLogs![0]!.logRecords![0]!.traceId, body: { stringValue: "hello" } });
  });

  it("refuses 4 MiB of empty resource spans with 413 before building them", () => {
    const started = performance.now();

    const refusal = (() => {
      try {
        decodeProtobuf("traces", emptyResourceSpans(2 * 1024 * 1024));
      } catch (error) {
        return error;
      }
    })();

    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).status).toBe(413);
    expect((refusal as ApiError).message).toContain(`at most ${OTLP_BOUNDS.resources} resources`);
    // A bound reached after 10,001 two-byte messages, not two million objects (which took seconds).
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("marks a span holding a 60,000-level array value unreadable without recursing, and keeps the span beside it", () => {
    const good = anOtlpSpan(hex(16), 0);
    const bytes = Buffer.concat([encodeProtobuf("traces", anExportRequest([good])), aWireResourceSpans([aWireSpan(hex(16), hex(8), "deep", deepArrayValue(60_000))])]);

    const request = decodeProtobuf("traces", bytes);

    expect(request.resourceSpans).toHaveLength(2);
    expect(request.resourceSpans![0]!.scopeSpans![0]!.spans![0]!.spanId).toBe(good.spanId);
    expect(request.resourceSpans![1]!.scopeSpans![0]!.spans).toStrictEqual([{ unreadable: expect.stringContaining(`deeper than ${OTLP_BOUNDS.depth} levels`) }]);
  });

  it("keeps a value nested right up to the bound", () => {
    const bytes = aWireResourceSpans([aWireSpan(hex(16), hex(8), "nested", deepArrayValue(OTLP_BOUNDS.depth - 1))]);

    const span = decodeProtobuf("traces", bytes).resourceSpans![0]!.scopeSpans![0]!.spans![0]!;

    expect(span.unreadable).toBeUndefined();
    expect(span.attributes![0]!.key).toBe("nested");
  });

  it("throws a plain error (the parser's 422) for bytes cut short or groups", () => {
    const bytes = encodeProtobuf("traces", anExportRequest([anOtlpSpan(hex(16))]));

    for (const broken of [bytes.subarray(0, bytes.length - 3), Buffer.from([0x0b, 0x0c])]) {
      let error: unknown;
      try {
        decodeProtobuf("traces", broken);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(ApiError);
    }
  });
});

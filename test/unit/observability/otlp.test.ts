import { describe, expect, it } from "vitest";
import { PayloadTooLarge } from "../../../shared/domain/errors.js";
import { OTLP_BOUNDS, boundJsonRequest } from "../../../shared/domain/observability/otlp-bounds.js";
import { logsFromOtlp, spansFromOtlp, type AnyValue, type ExportTraceRequest } from "../../../shared/domain/observability/otlp.js";
import { aLogsRequest, anExportRequest, anOtlpSpan, hex, str } from "../../support/otlp.js";

const owner = { organization: "org-1", workspace: "ws-1", principal: "user-1" };

/** An AnyValue of `levels` arrays in one another, built without recursion. */
function deepValue(levels: number): AnyValue {
  let value: AnyValue = { stringValue: "x" };
  for (let i = 0; i < levels; i += 1) value = { arrayValue: { values: [value] } };
  return value;
}

describe("spansFromOtlp", () => {
  it("keeps attribute keys named like Object.prototype's members as attributes, writing nothing else on the row", () => {
    const span = anOtlpSpan(hex(16), 0, { attributes: [str("constructor", "c"), str("__proto__", "p"), str("toString", "t"), str("hasOwnProperty", "h")] });

    const { rows, rejected } = spansFromOtlp(anExportRequest([span]), owner);

    expect(rejected).toBe(0);
    expect({ ...rows[0]!.span_attributes }).toStrictEqual(Object.fromEntries([["constructor", "c"], ["__proto__", "p"], ["toString", "t"], ["hasOwnProperty", "h"]]));
    expect(Object.keys(rows[0]!).filter((key) => /function|object/i.test(key))).toEqual([]);
    expect(Object.getPrototypeOf(rows[0]!.span_attributes)).toBe(Object.prototype);
  });

  it("rejects a span whose start time has no date (26 digits) with a reason, and keeps the others", () => {
    const trace = hex(16);
    const good = anOtlpSpan(trace, 0);
    const late = anOtlpSpan(trace, 1, { startTimeUnixNano: "12345678901234567890123456", endTimeUnixNano: "12345678901234567890123457" });

    const { rows, rejected, errors } = spansFromOtlp(anExportRequest([late, good]), owner);

    expect(rows.map((r) => r.span_id)).toEqual([good.spanId]);
    expect(rejected).toBe(1);
    expect(errors[0]).toMatch(/before the year 10000/);
  });

  it("rejects a span with a 60,000-level array attribute instead of overflowing the stack, and keeps the others", () => {
    const trace = hex(16);
    const good = anOtlpSpan(trace, 0);
    const deep = anOtlpSpan(trace, 1, { attributes: [{ key: "deep", value: deepValue(60_000) }] });

    const { rows, rejected, errors } = spansFromOtlp(anExportRequest([deep, good]), owner);

    expect(rows.map((r) => r.span_id)).toEqual([good.spanId]);
    expect(rejected).toBe(1);
    expect(errors[0]).toContain(`deeper than ${OTLP_BOUNDS.depth} levels`);
  });

  it("keeps numbers the stores cannot hold exactly as attributes, and rejects a span longer than 2^53 ns (a 500 in DynamoDB's marshaller before)", () => {
    const trace = hex(16);
    const big = anOtlpSpan(trace, 0, { attributes: [{ key: "gen_ai.usage.input_tokens", value: { intValue: "99999999999999999999999" } }, { key: "gen_ai.request.temperature", value: { doubleValue: 1e300 } }] });
    const long = anOtlpSpan(trace, 1, { startTimeUnixNano: "1", endTimeUnixNano: "1795000000250003000" });

    const { rows, errors } = spansFromOtlp(anExportRequest([big, long]), owner);

    expect(rows).toHaveLength(1);
    expect(rows[0]!.usage_input_tokens).toBe(0);
    expect(rows[0]!.span_attributes).toMatchObject({ "gen_ai.usage.input_tokens": "1e+23", "gen_ai.request.temperature": "1e+300" });
    expect(errors[0]).toContain("at most 2^53 ns");
  });

  it("rejects an item the decoder marked unreadable with the decoder's reason", () => {
    const { rows, rejected, errors } = spansFromOtlp(anExportRequest([{ unreadable: "more than 1024 attributes" }]), owner);

    expect(rows).toEqual([]);
    expect(rejected).toBe(1);
    expect(errors[0]).toContain("more than 1024 attributes");
  });
});

describe("logsFromOtlp", () => {
  it("rejects a record with a body nested past the bound, and keeps the others", () => {
    const request = aLogsRequest([{ body: "fine" }, { body: "deep" }]);
    request.resourceLogs![0]!.scopeLogs![0]!.logRecords![1]!.body = deepValue(60_000);

    const { rows, rejected } = logsFromOtlp(request, owner);

    expect(rows.map((r) => r.body)).toEqual(["fine"]);
    expect(rejected).toBe(1);
  });
});

describe("boundJsonRequest", () => {
  it("refuses more resource spans than the bound with 413 before mapping any", () => {
    const request = { resourceSpans: Array.from({ length: OTLP_BOUNDS.resources + 1 }, () => ({})) };

    expect(() => boundJsonRequest("traces", request)).toThrow(PayloadTooLarge);
  });

  it("refuses more values than the bound with 413, nested ones counted", () => {
    const wide: AnyValue = { arrayValue: { values: Array.from({ length: OTLP_BOUNDS.values }, () => ({ stringValue: "" })) } };
    const request = anExportRequest([anOtlpSpan(hex(16), 0, { attributes: [{ key: "wide", value: wide }] })]);

    expect(() => boundJsonRequest("traces", request as Record<string, unknown>)).toThrow(PayloadTooLarge);
  });

  it("marks a span nested too deep or with too many attributes unreadable, keeping its ids, and leaves the others", () => {
    const trace = hex(16);
    const deep = anOtlpSpan(trace, 0, { attributes: [{ key: "deep", value: deepValue(OTLP_BOUNDS.depth + 1) }] });
    const wide = anOtlpSpan(trace, 1, { attributes: Array.from({ length: OTLP_BOUNDS.attributesPerItem + 1 }, (_, i) => str(`k${i}`, "v")) });
    const fine = anOtlpSpan(trace, 2, { attributes: [{ key: "nested", value: deepValue(OTLP_BOUNDS.depth - 1) }] });
    const request = anExportRequest([deep, wide, fine]) as Record<string, unknown>;

    boundJsonRequest("traces", request);

    const spans = (request as ExportTraceRequest).resourceSpans![0]!.scopeSpans![0]!.spans!;
    expect(spans[0]).toStrictEqual({ traceId: trace, spanId: deep.spanId, unreadable: expect.stringContaining("deeper than") });
    expect(spans[1]).toStrictEqual({ traceId: trace, spanId: wide.spanId, unreadable: expect.stringContaining("attributes") });
    expect(spans[2]).toBe(fine);
  });
});

/**
 * The fuzz ring's OTLP export requests (issue 24, items 4 and 5): valid exports in both encodings, and the
 * items and floods that one request must never turn into a 5xx, a stall or a heap of objects: values nested
 * tens of thousands of levels, times with no date, attribute keys named like Object.prototype's members,
 * thousands of empty resources, too many attributes or values, bytes cut short. Hooked into the ring for the
 * rows whose body parser is OTLP's.
 */
import fc from "fast-check";
import { OTLP_BOUNDS } from "../../shared/domain/observability/otlp-bounds.js";
import type { AnyValue, ExportLogsRequest, ExportTraceRequest, KeyValue } from "../../shared/domain/observability/otlp.js";
import { encodeProtobuf, type OtlpSignal } from "../../shared/http/otlp.js";
import { aLogsRequest, anExportRequest, anOtlpSpan } from "./otlp.js";
import { aWireResourceSpans, aWireSpan, deepArrayValue, emptyResourceSpans, field } from "./otlp-wire.js";

const JSON_TYPE = "application/json";
const PROTOBUF = "application/x-protobuf";

export interface OtlpBody {
  variant: string;
  contentType: string;
  text: string | Buffer;
}

const hexOf = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`));
const attributeKey = fc.oneof(fc.constantFrom("__proto__", "constructor", "toString", "gen_ai.request.model", "gen_ai.usage.input_tokens", "gen_ai.response.finish_reasons", "http.method", ""), fc.string({ maxLength: 20 }));
const timeText = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: 1_700_000_000_000_000_000n, max: 1_900_000_000_000_000_000n }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom("12345678901234567890123456", "99999999999999999999", "-5", "0", "soon", "1e30", "") },
);

/** JSON text of a value `levels` arrays deep (JSON.stringify recurses; this does not). */
const deepJson = (levels: number) => `${'{"arrayValue":{"values":['.repeat(levels)}{"stringValue":"x"}${"]}}".repeat(levels)}`;

function attributeValue(): fc.Arbitrary<AnyValue> {
  const leaf = fc.oneof(
    fc.string({ maxLength: 20 }).map((stringValue) => ({ stringValue })),
    fc.boolean().map((boolValue) => ({ boolValue })),
    fc.oneof(fc.integer().map(String), fc.constantFrom("99999999999999999999999", "-1")).map((intValue) => ({ intValue })),
    fc.double().map((doubleValue) => ({ doubleValue })),
  );
  return fc.oneof(leaf, fc.array(leaf, { maxLength: 3 }).map((values) => ({ arrayValue: { values } })), fc.array(fc.tuple(attributeKey, leaf), { maxLength: 3 }).map((kvs) => ({ kvlistValue: { values: kvs.map(([key, value]) => ({ key, value })) } })));
}
const attributes: fc.Arbitrary<KeyValue[]> = fc.array(fc.tuple(attributeKey, attributeValue()).map(([key, value]) => ({ key, value })), { maxLength: 6 });

const spans = fc.array(fc.record({ traceId: hexOf(32), attributes, start: timeText, offset: fc.nat(1_000_000) }), { minLength: 1, maxLength: 4 }).map((drawn) =>
  drawn.map((s, i) => {
    const span = anOtlpSpan(s.traceId, i, { attributes: s.attributes });
    return /^\d{1,19}$/.test(s.start) ? { ...span, startTimeUnixNano: s.start, endTimeUnixNano: String(BigInt(s.start) + BigInt(s.offset)) } : { ...span, startTimeUnixNano: s.start };
  }),
);
const traces = spans.map((list) => anExportRequest(list));
const logs = fc.array(fc.record({ body: fc.string({ maxLength: 30 }), attributes, time: timeText }), { minLength: 1, maxLength: 4 }).map((records) => {
  const request = aLogsRequest(records.map((r) => ({ body: r.body })));
  request.resourceLogs![0]!.scopeLogs![0]!.logRecords!.forEach((record, i) => Object.assign(record, { attributes: records[i]!.attributes, timeUnixNano: records[i]!.time }));
  return request;
});

/** Protobuf of a request whose numbers protobuf can carry (times of at most 20 digits, 64-bit ints). */
function protobufOf(signal: OtlpSignal, request: ExportTraceRequest | ExportLogsRequest): Buffer | undefined {
  try {
    return Buffer.from(encodeProtobuf(signal, request));
  } catch {
    return undefined;
  }
}

/** Export requests for one OTLP route, valid and hostile, in both encodings. */
export function otlpBodies(signal: OtlpSignal): fc.Arbitrary<OtlpBody> {
  const valid: fc.Arbitrary<ExportTraceRequest | ExportLogsRequest> = signal === "traces" ? traces : logs;
  const [resources, scopes, items] = signal === "traces" ? ["resourceSpans", "scopeSpans", "spans"] : ["resourceLogs", "scopeLogs", "logRecords"];
  const deep = fc.constantFrom(OTLP_BOUNDS.depth - 1, OTLP_BOUNDS.depth + 1, 2_000, 60_000);
  const deepItem = signal === "traces" ? `{"traceId":"${"ab".repeat(16)}","spanId":"${"cd".repeat(8)}","startTimeUnixNano":"1795000000000000000","endTimeUnixNano":"1795000000000001000","attributes":[{"key":"deep","value":@}]}` : `{"timeUnixNano":"1795000000000000000","body":@}`;
  return fc.oneof(
    { weight: 4, arbitrary: valid.map((request) => ({ variant: "otlp json", contentType: JSON_TYPE, text: JSON.stringify(request) })) },
    { weight: 3, arbitrary: valid.map((request) => protobufOf(signal, request)).filter((bytes): bytes is Buffer => bytes !== undefined).map((text) => ({ variant: "otlp protobuf", contentType: PROTOBUF, text })) },
    {
      weight: 1,
      arbitrary: deep.map((levels) => ({ variant: `otlp json value ${levels} deep`, contentType: JSON_TYPE, text: `{"${resources}":[{"${scopes}":[{"${items}":[${deepItem.replace("@", deepJson(levels))}]}]}]}` })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(deep, hexOf(32), hexOf(16)).map(([levels, trace, span]) => ({
        variant: `otlp protobuf value ${levels} deep`,
        contentType: PROTOBUF,
        text: signal === "traces" ? Buffer.from(aWireResourceSpans([aWireSpan(trace, span, "deep", deepArrayValue(levels))])) : Buffer.from(field(1, field(2, field(2, field(5, deepArrayValue(levels)))))),
      })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(OTLP_BOUNDS.resources + 1, 2 * 1024 * 1024 - 1).map((count) => ({ variant: `otlp protobuf ${count} empty resources`, contentType: PROTOBUF, text: Buffer.from(emptyResourceSpans(count)) })),
    },
    { weight: 1, arbitrary: fc.constant({ variant: "otlp json too many resources", contentType: JSON_TYPE, text: JSON.stringify({ [resources]: Array.from({ length: OTLP_BOUNDS.resources + 1 }, () => ({})) }) }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(OTLP_BOUNDS.attributesPerItem + 1, OTLP_BOUNDS.values + 1).map((count) => ({
        variant: `otlp protobuf ${count} values in one attribute`,
        contentType: PROTOBUF,
        text: Buffer.from(aWireResourceSpans([aWireSpan("ab".repeat(16), "cd".repeat(8), "wide", field(5, Buffer.alloc(count * 2, Buffer.from([0x0a, 0x00]))))])),
      })),
    },
    { weight: 1, arbitrary: fc.tuple(valid, fc.nat()).map(([request, n]) => { const bytes = protobufOf(signal, request) ?? Buffer.from([0x0a, 0x05]); return { variant: "otlp protobuf cut short", contentType: PROTOBUF, text: bytes.subarray(0, n % Math.max(1, bytes.length)) }; }) },
    { weight: 1, arbitrary: fc.constantFrom("[]", "null", "42", '{"resourceSpans":{}}', '{"resourceLogs":[null,1,"x"]}', "{not json").map((text) => ({ variant: "otlp json not a request", contentType: JSON_TYPE, text })) },
  );
}

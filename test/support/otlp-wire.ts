/**
 * OTLP protobuf bytes written by hand, for what protobufjs's encoder cannot or will not build: values nested
 * tens of thousands of levels (its encoder recurses), floods of empty messages. Field numbers from
 * vendor/opentelemetry-proto.
 */

const varint = (value: number): number[] => {
  const out: number[] = [];
  let n = value;
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
};

/** A length-delimited field (wire type 2). */
export const field = (id: number, payload: Uint8Array): Uint8Array => Buffer.concat([Buffer.from([...varint((id << 3) | 2), ...varint(payload.length)]), payload]);

/** An AnyValue holding `levels` arrays in one another around a string, built inside out in one pass. */
export function deepArrayValue(levels: number): Uint8Array {
  const inner = field(1, Buffer.from("x"));
  const headers: number[][] = [];
  let size = inner.length;
  for (let i = 0; i < levels; i += 1) {
    // AnyValue.array_value (5) holding ArrayValue.values (1) holding the level below.
    const arrayValue = [0x0a, ...varint(size)];
    const arraySize = arrayValue.length + size;
    const anyValue = [0x2a, ...varint(arraySize)];
    headers.push([...anyValue, ...arrayValue]);
    size = anyValue.length + arraySize;
  }
  return Buffer.concat([...headers.reverse().map((h) => Buffer.from(h)), inner]);
}

const fixed64 = (id: number, value: bigint) => {
  const bytes = Buffer.alloc(9);
  bytes[0] = (id << 3) | 1;
  bytes.writeBigUInt64LE(value, 1);
  return bytes;
};

/** A Span with the given ids (hex), times, and one attribute `key` whose value is the given AnyValue bytes. */
export function aWireSpan(traceId: string, spanId: string, key: string, value: Uint8Array): Uint8Array {
  const start = 1_795_000_000_000_000_000n;
  return Buffer.concat([
    field(1, Buffer.from(traceId, "hex")),
    field(2, Buffer.from(spanId, "hex")),
    field(5, Buffer.from("deep span")),
    fixed64(7, start),
    fixed64(8, start + 1000n),
    field(9, Buffer.concat([field(1, Buffer.from(key)), field(2, value)])),
  ]);
}

/** An ExportTraceServiceRequest's one ResourceSpans holding one ScopeSpans with these spans: append it to another request's bytes to add it. */
export const aWireResourceSpans = (spans: Uint8Array[]): Uint8Array => field(1, field(2, Buffer.concat(spans.map((span) => field(2, span)))));

/** `count` empty ResourceSpans: two bytes each, an object each once decoded. */
export const emptyResourceSpans = (count: number): Uint8Array => Buffer.alloc(count * 2, Buffer.from([0x0a, 0x00]));

import protobuf from "protobufjs/light.js";
import { OTLP_BOUNDS, OtlpBudget, itemTooDeep, itemTooManyAttributes, resourceRefused } from "../domain/observability/otlp-bounds.js";
import type { ExportLogsRequest, ExportTraceRequest } from "../domain/observability/otlp.js";
import { otlpDescriptor } from "./otlp-descriptor.js";

/** The official opentelemetry-proto types (shared/http/otlp-descriptor.ts), resolved once. */
export const otlpRoot = protobuf.Root.fromJSON(otlpDescriptor as unknown as protobuf.INamespace).resolveAll() as protobuf.Root;

const type = (name: string) => otlpRoot.lookupType(name);
const ANY_VALUE = type("opentelemetry.proto.common.v1.AnyValue");
const KEY_VALUE = type("opentelemetry.proto.common.v1.KeyValue");
const RESOURCE = type("opentelemetry.proto.resource.v1.Resource");
const SCOPE = type("opentelemetry.proto.common.v1.InstrumentationScope");

/** The three levels above an item, as both signals lay them out: resource 1, scopes 2, schema_url 3; scope 1, items 2, schema_url 3. */
const LAYOUT = {
  traces: { resources: "resourceSpans", scopes: "scopeSpans", items: "spans", item: type("opentelemetry.proto.trace.v1.Span"), ids: ["traceId", "spanId", "parentSpanId"], noun: "spans" },
  logs: { resources: "resourceLogs", scopes: "scopeLogs", items: "logRecords", item: type("opentelemetry.proto.logs.v1.LogRecord"), ids: ["traceId", "spanId"], noun: "log records" },
} as const;

const LEN = 2;
const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: Number, bytes: String };

/** A reader held to one message's bytes: the fields of [start, end) one by one, lengths checked against the end. */
class Fields {
  readonly reader: protobuf.Reader;
  constructor(
    bytes: Uint8Array,
    start: number,
    readonly end: number,
  ) {
    this.reader = protobuf.Reader.create(bytes);
    this.reader.pos = start;
  }

  /** The next field's number and wire type, or undefined at the end. */
  next(): { id: number; wireType: number } | undefined {
    if (this.reader.pos >= this.end) return undefined;
    const tag = this.reader.uint32();
    const wireType = tag & 7;
    // Groups (3, 4) are not in OTLP, and protobufjs skips them recursively: refused, not skipped.
    if (wireType === 3 || wireType === 4 || wireType > 5) throw new Error(`wire type ${wireType} at offset ${this.reader.pos}`);
    return { id: tag >>> 3, wireType };
  }

  /** The extent of a length-delimited field just announced. */
  span(): { start: number; end: number } {
    const length = this.reader.uint32();
    const start = this.reader.pos;
    if (start + length > this.end) throw new Error(`a field of ${length} bytes at offset ${start} runs past its message`);
    this.reader.pos = start + length;
    return { start, end: start + length };
  }

  skip(wireType: number): void {
    if (wireType === LEN) this.span();
    else this.reader.skipType(wireType);
    if (this.reader.pos > this.end) throw new Error(`a field runs past its message at offset ${this.reader.pos}`);
  }
}

/**
 * Walks one message's nested messages without recursion and without building them, counting each against
 * the request's budget; answers why it cannot be kept (a value nested past the depth bound, too many
 * attributes of its own), or undefined. Stops at the first reason, so a 60,000-level value costs 33 steps.
 */
function check(bytes: Uint8Array, message: protobuf.Type, start: number, end: number, budget: OtlpBudget): string | undefined {
  const stack: { type: protobuf.Type; fields: Fields; depth: number }[] = [{ type: message, fields: new Fields(bytes, start, end), depth: 0 }];
  let attributes = 0;
  while (stack.length) {
    const frame = stack[stack.length - 1]!;
    const field = frame.fields.next();
    if (!field) {
      stack.pop();
      continue;
    }
    const declared = frame.type.fieldsById[field.id]?.resolvedType;
    if (!(declared instanceof protobuf.Type) || field.wireType !== LEN) {
      frame.fields.skip(field.wireType);
      continue;
    }
    const extent = frame.fields.span();
    budget.value();
    if (stack.length === 1 && declared === KEY_VALUE && ++attributes > OTLP_BOUNDS.attributesPerItem) return itemTooManyAttributes;
    const depth = frame.depth + (declared === ANY_VALUE ? 1 : 0);
    if (depth > OTLP_BOUNDS.depth) return itemTooDeep;
    stack.push({ type: declared, fields: new Fields(bytes, extent.start, extent.end), depth });
  }
  return undefined;
}

/** A message whose extent was checked, built by protobufjs in OTLP/JSON's shape. */
const build = (bytes: Uint8Array, message: protobuf.Type, extent: { start: number; end: number }) =>
  message.toObject(message.decode(bytes.subarray(extent.start, extent.end)), TO_OBJECT) as Record<string, unknown>;

const base64ToHex = (value: unknown) => (typeof value === "string" ? Buffer.from(value, "base64").toString("hex") : value);

/**
 * Decodes an export request level by level (request, resources, scopes), bounding the counts as it goes
 * (413 past a bound, before the rest is read) and checking each resource, scope and item before protobufjs
 * builds it: a span or log record nested too deep or with too many attributes becomes `{unreadable}`, which
 * the mapper rejects while the others are kept. Ids come out hex (OTLP/JSON) instead of protobufjs's base64.
 */
export function decodeBounded(signal: "traces", bytes: Uint8Array): ExportTraceRequest;
export function decodeBounded(signal: "logs", bytes: Uint8Array): ExportLogsRequest;
export function decodeBounded(signal: "traces" | "logs", bytes: Uint8Array): ExportTraceRequest | ExportLogsRequest {
  const layout = LAYOUT[signal];
  const budget = new OtlpBudget();
  const text = (extent: { start: number; end: number }) => Buffer.from(bytes.buffer, bytes.byteOffset + extent.start, extent.end - extent.start).toString("utf8");
  const readAttributesHolder = (message: protobuf.Type, extent: { start: number; end: number }) => {
    const why = check(bytes, message, extent.start, extent.end, budget);
    if (why) throw resourceRefused(why);
    return build(bytes, message, extent);
  };
  const readItem = (extent: { start: number; end: number }) => {
    budget.item(layout.noun);
    const why = check(bytes, layout.item, extent.start, extent.end, budget);
    if (why) return { unreadable: why };
    const item = build(bytes, layout.item, extent);
    for (const id of layout.ids) if (id in item) item[id] = base64ToHex(item[id]);
    return item;
  };
  const readScope = (extent: { start: number; end: number }) => {
    budget.scope();
    const out: Record<string, unknown> = {};
    const items: unknown[] = [];
    const fields = new Fields(bytes, extent.start, extent.end);
    for (let field = fields.next(); field; field = fields.next()) {
      if (field.wireType !== LEN || field.id > 3) fields.skip(field.wireType);
      else if (field.id === 1) out.scope = readAttributesHolder(SCOPE, fields.span());
      else if (field.id === 2) items.push(readItem(fields.span()));
      else out.schemaUrl = text(fields.span());
    }
    return { ...out, [layout.items]: items };
  };
  const readResource = (extent: { start: number; end: number }) => {
    budget.resource();
    const out: Record<string, unknown> = {};
    const scopes: unknown[] = [];
    const fields = new Fields(bytes, extent.start, extent.end);
    for (let field = fields.next(); field; field = fields.next()) {
      if (field.wireType !== LEN || field.id > 3) fields.skip(field.wireType);
      else if (field.id === 1) out.resource = readAttributesHolder(RESOURCE, fields.span());
      else if (field.id === 2) scopes.push(readScope(fields.span()));
      else out.schemaUrl = text(fields.span());
    }
    return { ...out, [layout.scopes]: scopes };
  };
  const resources: unknown[] = [];
  const fields = new Fields(bytes, 0, bytes.length);
  for (let field = fields.next(); field; field = fields.next()) {
    if (field.id === 1 && field.wireType === LEN) resources.push(readResource(fields.span()));
    else fields.skip(field.wireType);
  }
  return { [layout.resources]: resources } as ExportTraceRequest | ExportLogsRequest;
}

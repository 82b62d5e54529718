import type middy from "@middy/core";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import protobuf from "protobufjs/light.js";
import { PayloadTooLarge, Unprocessable, UnsupportedMediaType } from "../domain/errors.js";
import type { ExportLogsRequest, ExportTraceRequest } from "../domain/observability/otlp.js";
import type { BodyParser } from "./body.js";
import { otlpDescriptor } from "./otlp-descriptor.js";
import { Reply } from "./reply.js";

/**
 * OTLP/HTTP's two encodings (https://opentelemetry.io/docs/specs/otlp/#otlphttp): binary protobuf
 * (`application/x-protobuf`) and JSON (`application/json`), for requests and, in the request's encoding,
 * the answers. Protobuf is read with protobufjs and the official opentelemetry-proto types
 * (shared/http/otlp-descriptor.ts, generated from vendor/opentelemetry-proto), into OTLP/JSON's shape.
 */

/** The largest export request taken (decoded bytes); exporters batch 512 spans by default, far below it. */
export const OTLP_MAX_BYTES = 4 * 1024 * 1024;

const root = protobuf.Root.fromJSON(otlpDescriptor as unknown as protobuf.INamespace);
const types = {
  traces: { request: root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest"), response: root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse") },
  logs: { request: root.lookupType("opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest"), response: root.lookupType("opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse") },
};
export type OtlpSignal = keyof typeof types;

export type OtlpEncoding = "protobuf" | "json";

/** What the OTLP body parser leaves on the event: the decoded request and the encoding to answer in. */
export interface OtlpBody<T> {
  encoding: OtlpEncoding;
  request: T;
}

const base64ToHex = (value: unknown) => (typeof value === "string" ? Buffer.from(value, "base64").toString("hex") : value);

/** protobufjs's object form has ids as base64 (bytes); OTLP/JSON has them hex. */
function idsToHex(items: Record<string, unknown>[] | undefined, fields: string[]): void {
  for (const item of items ?? []) for (const field of fields) if (field in item) item[field] = base64ToHex(item[field]);
}

export function decodeProtobuf(signal: "traces", bytes: Uint8Array): ExportTraceRequest;
export function decodeProtobuf(signal: "logs", bytes: Uint8Array): ExportLogsRequest;
export function decodeProtobuf(signal: OtlpSignal, bytes: Uint8Array): ExportTraceRequest | ExportLogsRequest {
  const type = types[signal].request;
  const object = type.toObject(type.decode(bytes), { longs: String, enums: Number, bytes: String }) as Record<string, any>;
  if (signal === "traces") {
    for (const resource of object.resourceSpans ?? []) for (const scope of resource.scopeSpans ?? []) idsToHex(scope.spans, ["traceId", "spanId", "parentSpanId"]);
  } else {
    for (const resource of object.resourceLogs ?? []) for (const scope of resource.scopeLogs ?? []) idsToHex(scope.logRecords, ["traceId", "spanId"]);
  }
  return object as ExportTraceRequest | ExportLogsRequest;
}

/** Encodes a request (tests, the benchmark): the inverse of decodeProtobuf. */
export function encodeProtobuf(signal: OtlpSignal, request: ExportTraceRequest | ExportLogsRequest): Uint8Array {
  const copy = structuredClone(request) as Record<string, any>;
  const hexToBytes = (items: Record<string, unknown>[] | undefined, fields: string[]) => {
    for (const item of items ?? []) for (const field of fields) if (typeof item[field] === "string") item[field] = Buffer.from(item[field] as string, "hex");
  };
  if (signal === "traces") for (const r of copy.resourceSpans ?? []) for (const s of r.scopeSpans ?? []) hexToBytes(s.spans, ["traceId", "spanId", "parentSpanId"]);
  else for (const r of copy.resourceLogs ?? []) for (const s of r.scopeLogs ?? []) hexToBytes(s.logRecords, ["traceId", "spanId"]);
  const type = types[signal].request;
  return type.encode(type.fromObject(copy)).finish();
}

/** The body parser of the ingest routes: protobuf or JSON (415 otherwise), 413 over OTLP_MAX_BYTES, 422 when it cannot be read. */
export const otlpBody = (signal: OtlpSignal): BodyParser =>
  Object.assign(parserOf(signal), { unreadable: { contentType: "application/json", body: "42" } });

const parserOf =
  (signal: OtlpSignal) =>
  (): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
    before: async (request) => {
      const event = request.event;
      const contentType = (event.headers?.["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
      const encoding: OtlpEncoding | undefined = contentType === "application/x-protobuf" ? "protobuf" : contentType === "application/json" ? "json" : undefined;
      if (!encoding) throw new UnsupportedMediaType();
      const bytes = Buffer.from(event.body ?? "", event.isBase64Encoded ? "base64" : "utf8");
      if (bytes.length > OTLP_MAX_BYTES) throw new PayloadTooLarge(`An OTLP export request may hold at most ${OTLP_MAX_BYTES} bytes; this one holds ${bytes.length}: export smaller batches`);
      let decoded: unknown;
      try {
        decoded = encoding === "protobuf" ? decodeProtobuf(signal as "traces", bytes) : bytes.length ? JSON.parse(bytes.toString("utf8")) : {};
      } catch (error) {
        throw new Unprocessable([{ loc: ["body"], msg: `Not an OTLP ${signal} export request in ${encoding}: ${(error as Error).message}`, type: encoding === "json" ? "json_invalid" : "value_error" }]);
      }
      if (decoded === null || typeof decoded !== "object" || Array.isArray(decoded)) {
        throw new Unprocessable([{ loc: ["body"], msg: `An OTLP ${signal} export request is an object`, type: "value_error" }]);
      }
      (event as unknown as { body: OtlpBody<unknown> }).body = { encoding, request: decoded };
    },
  });

/**
 * The export answer: empty on full success, `partial_success` naming the rejected items otherwise (OTLP/JSON
 * spells it `partialSuccess` with `rejectedSpans` / `rejectedLogRecords`), in the request's encoding.
 */
export function exportReply(signal: OtlpSignal, encoding: OtlpEncoding, outcome: { rejected: number; errorMessage: string }): Reply {
  const count = signal === "traces" ? "rejectedSpans" : "rejectedLogRecords";
  const message = outcome.rejected > 0 ? { partialSuccess: { [count]: String(outcome.rejected), errorMessage: outcome.errorMessage } } : {};
  if (encoding === "json") return Reply.json(200, message);
  const type = types[signal].response;
  return new Reply(200, Buffer.from(type.encode(type.fromObject(message)).finish()), { "content-type": "application/x-protobuf" });
}

/** Reads an export answer (tests and the benchmark). */
export function decodeExportResponse(signal: OtlpSignal, bytes: Uint8Array): Record<string, unknown> {
  const type = types[signal].response;
  return type.toObject(type.decode(bytes), { longs: String }) as Record<string, unknown>;
}

import type middy from "@middy/core";
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { ApiError, PayloadTooLarge, Unprocessable, UnsupportedMediaType } from "../domain/errors.js";
import { boundJsonRequest } from "../domain/observability/otlp-bounds.js";
import type { ExportLogsRequest, ExportTraceRequest } from "../domain/observability/otlp.js";
import type { BodyParser } from "./body.js";
import { decodeBounded, otlpRoot } from "./otlp-decode.js";
import { Reply } from "./reply.js";

/**
 * OTLP/HTTP's two encodings (https://opentelemetry.io/docs/specs/otlp/#otlphttp): binary protobuf
 * (`application/x-protobuf`) and JSON (`application/json`), for requests and, in the request's encoding,
 * the answers. Protobuf is read with protobufjs and the official opentelemetry-proto types
 * (shared/http/otlp-descriptor.ts, generated from vendor/opentelemetry-proto), into OTLP/JSON's shape.
 * Both encodings are held to the same bounds on what they hold (docs/observability/ingest.md, "Bounds").
 */

/** The largest export request taken (decoded bytes); exporters batch 512 spans by default, far below it. */
export const OTLP_MAX_BYTES = 4 * 1024 * 1024;

const root = otlpRoot;
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

/**
 * A protobuf export request in OTLP/JSON's shape, within the bounds (shared/domain/observability/otlp-bounds.ts):
 * 413 past a count, items that cannot be kept marked `unreadable` (shared/http/otlp-decode.ts).
 */
export function decodeProtobuf(signal: "traces", bytes: Uint8Array): ExportTraceRequest;
export function decodeProtobuf(signal: "logs", bytes: Uint8Array): ExportLogsRequest;
export function decodeProtobuf(signal: OtlpSignal, bytes: Uint8Array): ExportTraceRequest | ExportLogsRequest {
  return decodeBounded(signal as "traces", bytes);
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
  Object.assign(parserOf(signal), { unreadable: { contentType: "application/json", body: "42" }, otlp: signal });

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
        // A bound passed (413) or resource attributes that cannot be read (400) say so; anything else is an unreadable body.
        if (error instanceof ApiError) throw error;
        throw new Unprocessable([{ loc: ["body"], msg: `Not an OTLP ${signal} export request in ${encoding}: ${(error as Error).message}`, type: encoding === "json" ? "json_invalid" : "value_error" }]);
      }
      if (decoded === null || typeof decoded !== "object" || Array.isArray(decoded)) {
        throw new Unprocessable([{ loc: ["body"], msg: `An OTLP ${signal} export request is an object`, type: "value_error" }]);
      }
      if (encoding === "json") boundJsonRequest(signal, decoded as Record<string, unknown>);
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

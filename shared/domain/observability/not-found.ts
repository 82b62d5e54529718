import { ApiError } from "../errors.js";

/** 404s of the point reads, with the observability family's codes (`{"detail":{"message","error_code"}}`). */
export class TraceNotFound extends ApiError {
  constructor(traceId: string) {
    super(404, "not_found_error", `Trace '${traceId}' not found`, "trace_not_found", null, { familyCodes: { observability: "TRACE_NOT_FOUND" } });
  }
}

export class SpanNotFound extends ApiError {
  constructor(traceId: string, spanId: string) {
    super(404, "not_found_error", `Span '${spanId}' of trace '${traceId}' not found`, "span_not_found", null, { familyCodes: { observability: "SPAN_NOT_FOUND" } });
  }
}

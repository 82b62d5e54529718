import { randomBytes } from "node:crypto";

/**
 * OpenTelemetry trace ids of executions (docs/workflows.md, "Traces"): the caller's W3C `traceparent`
 * unless `force_new_trace`, else a new one.
 */

/** W3C trace context: version-traceid-parentid-flags, lowercase hex; version ff and all-zero ids are invalid. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The trace id of a `traceparent`, or undefined when it is not a valid one. */
export function traceIdOfParent(traceparent: string | null | undefined): string | undefined {
  const match = TRACEPARENT.exec(traceparent?.trim() ?? "");
  if (!match) return undefined;
  const [, version, traceId, parentId, , rest] = match;
  if (version === "ff" || /^0+$/.test(traceId!) || /^0+$/.test(parentId!)) return undefined;
  // Version 00 has exactly four fields; later versions may add more.
  if (version === "00" && rest) return undefined;
  return traceId;
}

export const newTraceId = (): string => randomBytes(16).toString("hex");

/** The trace id an execution starts with: the caller's trace unless a new one is asked for (or the traceparent is unusable). */
export function traceIdOf(request: { traceparent?: string | null; force_new_trace?: boolean | null }): string {
  return (!request.force_new_trace && traceIdOfParent(request.traceparent)) || newTraceId();
}

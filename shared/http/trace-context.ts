import type { APIGatewayProxyEvent } from "aws-lambda";
import { parseTraceparent, type TraceContext } from "../domain/observability/genai.js";

/** The caller's W3C trace context (`traceparent`, `tracestate` headers), when it sent a valid one: model-call spans join its trace. */
export function traceContextOf(event: Pick<APIGatewayProxyEvent, "headers">): TraceContext | undefined {
  const headers = event.headers ?? {};
  const header = (name: string) => headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1] ?? undefined;
  return parseTraceparent(header("traceparent"), header("tracestate"));
}

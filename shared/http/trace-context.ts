import type { APIGatewayProxyEvent } from "aws-lambda";
import { parseTraceparent, type TraceContext } from "../domain/observability/genai.js";

/** A request header by its lower-case name, whatever case the client sent it in. */
export function headerOf(event: Pick<APIGatewayProxyEvent, "headers">, name: string): string | undefined {
  const headers = event.headers ?? {};
  return headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1] ?? undefined;
}

/** The caller's W3C trace context (`traceparent`, `tracestate` headers), when it sent a valid one: model-call spans join its trace. */
export function traceContextOf(event: Pick<APIGatewayProxyEvent, "headers">): TraceContext | undefined {
  return parseTraceparent(headerOf(event, "traceparent"), headerOf(event, "tracestate"));
}

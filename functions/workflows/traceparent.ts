import type { APIGatewayProxyEvent } from "aws-lambda";
import type { WorkflowExecutionRequest } from "../../shared/schemas/workflows.js";

/** The execute body's `traceparent`, else the request's W3C `traceparent` header (the execution's trace id comes from it). */
export function withTraceparent(body: WorkflowExecutionRequest, event: Pick<APIGatewayProxyEvent, "headers">): WorkflowExecutionRequest {
  if (body.traceparent) return body;
  const header = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === "traceparent")?.[1];
  return header ? { ...body, traceparent: header.slice(0, 256) } : body;
}

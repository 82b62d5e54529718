/**
 * Telemetry rows as the writers file them (shared/domain/observability/records.ts): a span, a log and a span
 * evaluation with every field filled as the API shows it, overridable per test. `aTraceOf` makes a root span
 * and children of one trace. Written with shared/blobs/telemetry.ts `appendTelemetry`, they are what the
 * engine's searches read.
 */
import { randomBytes } from "node:crypto";
import { emptySpan } from "../../shared/domain/observability/genai.js";
import type { LogRow, SpanEvaluationRow, SpanRow, TelemetryOwner } from "../../shared/domain/observability/records.js";

const hex = (bytes: number) => randomBytes(bytes).toString("hex");
export const aTraceId = () => hex(16);
export const aSpanId = () => hex(8);

const owner = (workspace: string): TelemetryOwner => ({ customer_id: "cust-1", organization_id: "org-1", workspace_id: workspace, user_id: "user-1" });

export const messages = (role: string, ...texts: string[]) => JSON.stringify([{ role, parts: texts.map((content) => ({ type: "text", content })) }]);

export function aSpanRow(workspace: string, overrides: Partial<SpanRow> = {}): SpanRow {
  const start = overrides.start_time ?? new Date(Date.now() - 60_000).toISOString();
  const durationNs = overrides.duration_ns ?? 250_000_000;
  return {
    ...emptySpan({ trace_id: aTraceId(), span_id: aSpanId(), workspace_id: workspace, organization_id: "org-1" }),
    ...owner(workspace),
    start_time: start,
    end_time: new Date(Date.parse(start) + durationNs / 1e6).toISOString(),
    duration_ns: durationNs,
    span_name: "chat mistral-small-latest",
    span_kind: "CLIENT",
    service_name: "platform-api",
    status_code: "Ok",
    operation_name: "chat",
    provider_name: "mistral_ai",
    request_model: "mistral-small-latest",
    response_model: "mistral-small-latest",
    response_id: hex(8),
    output_type: "text",
    input_messages: messages("user", "hello"),
    output_messages: messages("assistant", "hi there"),
    request_choice_count: 1,
    request_temperature: 0.7,
    response_finish_reasons: ["stop"],
    usage_input_tokens: 10,
    usage_output_tokens: 5,
    resource_attributes: { "service.name": "platform-api", "deployment.environment.name": "test" },
    span_attributes: { "gen_ai.system": "mistral_ai" },
    scope_name: "platform",
    scope_version: "1",
    ...overrides,
  };
}

export function aLogRow(workspace: string, overrides: Partial<LogRow> = {}): LogRow {
  return {
    ...owner(workspace),
    timestamp: new Date(Date.now() - 60_000).toISOString(),
    trace_id: aTraceId(),
    span_id: aSpanId(),
    trace_flags: 1,
    severity_text: "INFO",
    severity_number: 9,
    service_name: "platform-api",
    body: "a log line",
    event_name: "",
    resource_schema_url: "",
    resource_attributes: { "service.name": "platform-api" },
    scope_schema_url: "",
    scope_name: "platform",
    scope_version: "1",
    scope_attributes: {},
    log_attributes: { "http.route": "/v1/chat/completions" },
    ...overrides,
  };
}

export function anEvaluationRow(workspace: string, overrides: Partial<SpanEvaluationRow> = {}): SpanEvaluationRow {
  return {
    ...owner(workspace),
    trace_id: aTraceId(),
    span_id: aSpanId(),
    response_id: hex(8),
    conversation_id: "",
    timestamp: new Date(Date.now() - 30_000).toISOString(),
    evaluation_name: "helpfulness",
    score_value: 0.8,
    score_label: "good",
    explanation: "answers the question",
    metadata: { judge: "offline" },
    ...overrides,
  };
}

/** A trace: a root span and children starting `stepMs` apart, each child overriding what it needs. */
export function aTraceOf(workspace: string, root: Partial<SpanRow>, children: Partial<SpanRow>[], stepMs = 100): SpanRow[] {
  const traceId = root.trace_id ?? aTraceId();
  const start = Date.parse(root.start_time ?? new Date(Date.now() - 120_000).toISOString());
  const rootSpan = aSpanRow(workspace, { operation_name: "", span_name: "workflow", response_model: "", request_model: "", ...root, trace_id: traceId, start_time: new Date(start).toISOString(), duration_ns: (children.length + 1) * stepMs * 1e6 });
  return [
    rootSpan,
    ...children.map((child, i) => aSpanRow(workspace, { parent_span_id: rootSpan.span_id, start_time: new Date(start + (i + 1) * stepMs).toISOString(), duration_ns: (stepMs / 2) * 1e6, ...child, trace_id: traceId })),
  ];
}

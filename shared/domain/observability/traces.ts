import type { SpanRow, TraceRow } from "./records.js";

/**
 * A trace as it is derived from its spans (docs/observability/ingest.md; the same derivation as the query
 * engine's SQL): owner, service and root from the root span (the one without a parent, else the earliest),
 * times from the extremes, counts by operation, token sums, models and tools used, and the first and last
 * LLM turns' last messages. `evaluationCount` is the number of span evaluations stored with this trace id.
 * Undefined when there are no spans: a trace exists only through them.
 */
export function traceFromSpans(spans: readonly SpanRow[], evaluationCount: number): TraceRow | undefined {
  if (spans.length === 0) return undefined;
  const byStart = [...spans].sort((a, b) => compareTimes(a.start_time, b.start_time));
  const root = byStart.find((span) => span.parent_span_id === "") ?? byStart[0]!;
  const start = byStart[0]!.start_time;
  const end = spans.reduce((latest, span) => (compareTimes(span.end_time, latest) > 0 ? span.end_time : latest), spans[0]!.end_time);
  const firstOf = (field: "conversation_id" | "workflow_name" | "agent_id" | "agent_name") => byStart.find((span) => span[field] !== "")?.[field] ?? "";
  const count = (test: (span: SpanRow) => boolean) => spans.filter(test).length;
  const sum = (field: "usage_input_tokens" | "usage_output_tokens" | "usage_cache_read_input_tokens" | "usage_cache_creation_input_tokens") =>
    spans.reduce((total, span) => total + (span[field] || 0), 0);
  const distinct = (values: string[]) => [...new Set(values.filter((v) => v !== ""))].sort();
  const llmCalls = byStart.filter(isLlmCall);
  const first = llmCalls[0];
  const last = llmCalls[llmCalls.length - 1];
  const errors = count((span) => span.status_code === "Error");
  return {
    customer_id: root.customer_id,
    organization_id: root.organization_id,
    workspace_id: root.workspace_id,
    user_id: root.user_id,
    trace_id: root.trace_id,
    root_span_id: root.span_id,
    root_span_name: root.span_name,
    start_time: start,
    end_time: end,
    duration_ns: nanosBetween(start, end),
    service_name: root.service_name,
    environment: root.resource_attributes["deployment.environment.name"] ?? root.resource_attributes["deployment.environment"] ?? "",
    conversation_id: firstOf("conversation_id"),
    workflow_name: firstOf("workflow_name"),
    agent_id: firstOf("agent_id"),
    agent_name: firstOf("agent_name"),
    status_code: errors > 0 ? "Error" : "Unset",
    error_count: errors,
    span_count: spans.length,
    gen_ai_span_count: count((span) => span.operation_name !== ""),
    llm_call_count: llmCalls.length,
    tool_call_count: count((span) => span.operation_name === "execute_tool"),
    retrieval_count: count((span) => span.operation_name === "retrieval" || span.operation_name === "embeddings"),
    evaluation_count: evaluationCount,
    input_tokens: sum("usage_input_tokens"),
    output_tokens: sum("usage_output_tokens"),
    cache_read_input_tokens: sum("usage_cache_read_input_tokens"),
    cache_creation_input_tokens: sum("usage_cache_creation_input_tokens"),
    models_used: distinct(spans.map((span) => span.response_model || span.request_model)),
    tools_used: distinct(spans.map((span) => span.tool_name)),
    first_turn_last_input_message: lastMessageText(first?.input_messages),
    first_turn_last_output_message: lastMessageText(first?.output_messages),
    last_turn_last_input_message: lastMessageText(last?.input_messages),
    last_turn_last_output_message: lastMessageText(last?.output_messages),
  };
}

const LLM_OPERATIONS = new Set(["chat", "text_completion", "generate_content"]);
export const isLlmCall = (span: Pick<SpanRow, "operation_name">): boolean => LLM_OPERATIONS.has(span.operation_name);

/** The text of the last message of a GenAI messages JSON array: its `text` parts' content joined by "\n"; "" when there is none. */
export function lastMessageText(messages: string | undefined): string {
  if (!messages) return "";
  let parsed: unknown;
  try {
    parsed = JSON.parse(messages);
  } catch {
    return "";
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return "";
  const last = parsed[parsed.length - 1] as { parts?: unknown };
  if (!Array.isArray(last?.parts)) return "";
  return last.parts
    .filter((part): part is { type: "text"; content: string } => part?.type === "text" && typeof part.content === "string")
    .map((part) => part.content)
    .join("\n");
}

/** ISO instants with up to nanosecond digits, compared as instants (lexical order holds only for one precision). */
function compareTimes(a: string, b: string): number {
  const diff = epochNanos(a) - epochNanos(b);
  return diff < 0n ? -1 : diff > 0n ? 1 : 0;
}

/** Nanoseconds since the epoch of an ISO-8601 UTC instant, keeping fraction digits past the millisecond. */
export function epochNanos(iso: string): bigint {
  const match = /^(.*?)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?$/.exec(iso);
  const whole = Date.parse(`${match?.[1] ?? iso}${match?.[3] ?? "Z"}`);
  if (Number.isNaN(whole)) return 0n;
  const fraction = (match?.[2] ?? "").padEnd(9, "0").slice(0, 9);
  return BigInt(whole) * 1_000_000n + BigInt(fraction);
}

/** An instant in nanoseconds since the epoch as ISO-8601 UTC with microseconds. */
export function isoFromNanos(nanos: bigint): string {
  const millis = nanos / 1_000_000n;
  const micros = (nanos / 1000n) % 1000n;
  return new Date(Number(millis)).toISOString().replace("Z", `${micros.toString().padStart(3, "0")}Z`);
}

export const nanosBetween = (start: string, end: string): number => Math.max(0, Number(epochNanos(end) - epochNanos(start)));

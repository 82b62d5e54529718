import { randomBytes } from "node:crypto";
import { emptySpan } from "../../shared/domain/observability/genai.js";
import type { SpanRow } from "../../shared/domain/observability/records.js";
import type { Caller } from "../../shared/domain/caller.js";

/** A span row of the caller's workspace (a chat call by default), with the fields given. */
export function aSpan(caller: Pick<Caller, "workspace" | "organization">, overrides: Partial<SpanRow> = {}): SpanRow {
  return {
    ...emptySpan({ trace_id: randomBytes(16).toString("hex"), span_id: randomBytes(8).toString("hex"), workspace_id: caller.workspace, organization_id: caller.organization }),
    start_time: "2026-11-23T12:00:00.000000Z",
    end_time: "2026-11-23T12:00:01.000000Z",
    duration_ns: 1_000_000_000,
    span_name: "chat mistral-small-latest",
    span_kind: "Client",
    service_name: "mistral-platform-api",
    operation_name: "chat",
    provider_name: "mistral_ai",
    request_model: "mistral-small-latest",
    response_model: "mistral-small-latest",
    usage_input_tokens: 10,
    usage_output_tokens: 5,
    ...overrides,
  };
}

/** The telemetry-table items of spans, as spanStore.put writes them. */
export function aSpanItems(spans: SpanRow[], ttl = 2_000_000_000): Record<string, unknown>[] {
  return spans.flatMap((span) => {
    const sk = `SPAN#${span.start_time}#${span.span_id}`;
    return [
      { pk: `TRACE#${span.workspace_id}#${span.trace_id}`, sk, ttl, span },
      { pk: `SPAN#${span.workspace_id}#${span.trace_id}#${span.span_id}`, sk: "SPAN", ttl, at: sk },
    ];
  });
}

/** GenAI messages JSON of one text message per entry. */
export const messagesJson = (...messages: [role: string, text: string][]): string => JSON.stringify(messages.map(([role, content]) => ({ role, parts: [{ type: "text", content }] })));

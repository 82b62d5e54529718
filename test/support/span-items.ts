import type { SpanRow } from "../../shared/domain/observability/records.js";
import type { Caller } from "../../shared/domain/caller.js";
import { aSpanRow } from "./telemetry-rows.js";

/** A span row of the caller's workspace (a chat call by default, no content, no attributes), with the fields given. */
export function aSpan(caller: Pick<Caller, "workspace" | "organization">, overrides: Partial<SpanRow> = {}): SpanRow {
  return aSpanRow(caller.workspace, {
    customer_id: "",
    organization_id: caller.organization,
    user_id: "",
    start_time: "2026-11-23T12:00:00.000000Z",
    end_time: "2026-11-23T12:00:01.000000Z",
    duration_ns: 1_000_000_000,
    span_kind: "Client",
    service_name: "mistral-platform-api",
    status_code: "Unset",
    response_id: "",
    output_type: "",
    input_messages: "",
    output_messages: "",
    request_choice_count: 0,
    request_temperature: null,
    response_finish_reasons: [],
    resource_attributes: {},
    span_attributes: {},
    scope_name: "",
    scope_version: "",
    ...overrides,
  });
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

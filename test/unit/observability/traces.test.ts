import { describe, expect, it } from "vitest";
import { epochNanos, isoFromNanos, lastMessageText, traceFromSpans } from "../../../shared/domain/observability/traces.js";
import { aCaller } from "../../support/builders.js";
import { aSpan, messagesJson } from "../../support/span-items.js";

const caller = aCaller();
const trace = "0af7651916cd43dd8448eb211c80319c";
const at = (second: number, micros = 0) => `2026-11-23T12:00:${String(second).padStart(2, "0")}.${String(micros).padStart(6, "0")}Z`;

describe("traceFromSpans", () => {
  it("derives the trace from its spans as the contract says", () => {
    const root = aSpan(caller, {
      trace_id: trace,
      span_id: "a".repeat(16),
      span_name: "workflow run",
      operation_name: "",
      start_time: at(0),
      end_time: at(30),
      service_name: "svc",
      user_id: "u1",
      customer_id: "c1",
      request_model: "",
      response_model: "",
      usage_input_tokens: 0,
      usage_output_tokens: 0,
      resource_attributes: { "deployment.environment": "old", "deployment.environment.name": "prod" },
    });
    const first = aSpan(caller, {
      trace_id: trace,
      parent_span_id: root.span_id,
      start_time: at(1),
      end_time: at(2),
      conversation_id: "conv-1",
      request_model: "mistral-large-latest",
      response_model: "",
      usage_cache_read_input_tokens: 3,
      input_messages: messagesJson(["user", "hello"], ["user", "first question"]),
      output_messages: JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "a" }, { type: "reasoning", content: "x" }, { type: "text", content: "b" }], finish_reason: "stop" }]),
    });
    const tool = aSpan(caller, { trace_id: trace, parent_span_id: root.span_id, start_time: at(3), end_time: at(4), operation_name: "execute_tool", tool_name: "search", request_model: "", response_model: "", usage_input_tokens: 0, usage_output_tokens: 0, status_code: "Error" });
    const embed = aSpan(caller, { trace_id: trace, parent_span_id: root.span_id, start_time: at(5), end_time: at(6), operation_name: "embeddings", response_model: "mistral-embed", agent_id: "ag", agent_name: "helper", usage_cache_creation_input_tokens: 7 });
    const last = aSpan(caller, { trace_id: trace, parent_span_id: root.span_id, start_time: at(10, 250), end_time: at(40, 500), operation_name: "text_completion", response_model: "codestral-latest", workflow_name: "wf", input_messages: messagesJson(["user", "last q"]), output_messages: messagesJson(["assistant", "last a"]) });

    const derived = traceFromSpans([last, embed, root, tool, first], 4)!;

    expect(derived).toStrictEqual({
      customer_id: "c1",
      organization_id: caller.organization,
      workspace_id: caller.workspace,
      user_id: "u1",
      trace_id: trace,
      root_span_id: root.span_id,
      root_span_name: "workflow run",
      start_time: at(0),
      end_time: at(40, 500),
      duration_ns: 40_000_500_000,
      service_name: "svc",
      environment: "prod",
      conversation_id: "conv-1",
      workflow_name: "wf",
      agent_id: "ag",
      agent_name: "helper",
      status_code: "Error",
      error_count: 1,
      span_count: 5,
      gen_ai_span_count: 4,
      llm_call_count: 2,
      tool_call_count: 1,
      retrieval_count: 1,
      evaluation_count: 4,
      input_tokens: 30,
      output_tokens: 15,
      cache_read_input_tokens: 3,
      cache_creation_input_tokens: 7,
      models_used: ["codestral-latest", "mistral-embed", "mistral-large-latest"],
      tools_used: ["search"],
      first_turn_last_input_message: "first question",
      first_turn_last_output_message: "a\nb",
      last_turn_last_input_message: "last q",
      last_turn_last_output_message: "last a",
    });
  });

  it("takes the earliest span as root when every span has a parent, and 'deployment.environment' when the new name is absent", () => {
    const early = aSpan(caller, { trace_id: trace, parent_span_id: "f".repeat(16), start_time: at(1), resource_attributes: { "deployment.environment": "staging" } });
    const later = aSpan(caller, { trace_id: trace, parent_span_id: "f".repeat(16), start_time: at(2) });

    const derived = traceFromSpans([later, early], 0)!;

    expect(derived).toMatchObject({ root_span_id: early.span_id, environment: "staging", status_code: "Unset", error_count: 0 });
  });

  it("answers nothing for no spans, and empty turn messages when content was not captured", () => {
    expect(traceFromSpans([], 3)).toBeUndefined();
    expect(traceFromSpans([aSpan(caller)], 0)).toMatchObject({ first_turn_last_input_message: "", last_turn_last_output_message: "", environment: "" });
  });
});

describe("message text and instants", () => {
  it("reads the last message's text parts, and nothing from what is not GenAI messages JSON", () => {
    expect(lastMessageText(messagesJson(["user", "one"], ["user", "two"]))).toBe("two");
    expect(lastMessageText("not json")).toBe("");
    expect(lastMessageText("{}")).toBe("");
    expect(lastMessageText("[]")).toBe("");
  });

  it("keeps nanoseconds past the millisecond and writes microseconds", () => {
    expect(epochNanos("2026-11-23T12:00:00.123456789Z") - epochNanos("2026-11-23T12:00:00Z")).toBe(123_456_789n);
    expect(epochNanos("2026-11-23T13:00:00+01:00")).toBe(epochNanos("2026-11-23T12:00:00Z"));
    expect(isoFromNanos(epochNanos("2026-11-23T12:00:00.123456789Z"))).toBe("2026-11-23T12:00:00.123456Z");
  });
});

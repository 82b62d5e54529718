import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { SpanRow } from "../../../shared/domain/observability/records.js";
import { agentsClient, anAgentRequest } from "../../support/agents-client.js";
import { useEmbeddedApi } from "../../support/api.js";
import { filesClient } from "../../support/files-client.js";
import { inferenceClient, userSays } from "../../support/inference-client.js";
import { newTenant } from "../../support/tenant.js";
import { eventually, telemetryRows } from "../../support/telemetry-files.js";

const { api, tenant } = useEmbeddedApi();
const client = inferenceClient(api, tenant);
const http = filesClient(api, tenant);

const traceIdOf = () => randomBytes(16).toString("hex");
const parentOf = () => randomBytes(8).toString("hex");
const traceparent = (trace: string, parent: string) => ({ traceparent: `00-${trace}-${parent}-01` });

/** The spans the point store has for a trace, through the route. */
async function spansOf(trace: string, key = tenant.key): Promise<SpanRow[]> {
  const reply = await http.request("GET", `/v1/observability/traces/${trace}/spans`, { key });
  return reply.status === 200 ? reply.body.spans.results : [];
}

describe("GET /v1/observability/traces/{trace_id}", () => {
  it("a chat call under a traceparent becomes a chat span of that trace, and the trace is derived from it", async () => {
    const trace = traceIdOf();
    const parent = parentOf();

    const reply = await http.request("POST", "/v1/chat/completions", {
      json: { ...userSays("mistral-small-latest", "hello spans"), max_tokens: 50, temperature: 0.3, top_p: 0.9, random_seed: 7, stop: ["\n\n"], metadata: { conversation_id: "conv-9" }, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hello spans" }] },
      headers: traceparent(trace, parent),
    });
    expect(reply.status).toBe(200);

    const got = await http.request("GET", `/v1/observability/traces/${trace}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      trace_id: trace,
      workspace_id: tenant.caller.workspace,
      organization_id: tenant.caller.organization,
      span_count: 1,
      llm_call_count: 1,
      conversation_id: "conv-9",
      input_tokens: reply.body.usage.prompt_tokens,
      output_tokens: reply.body.usage.completion_tokens,
      models_used: ["mistral-small-latest"],
      first_turn_last_input_message: "hello spans",
      status_code: "Unset",
    });
    const [span] = await spansOf(trace);
    expect(span).toMatchObject({
      parent_span_id: parent,
      span_name: "chat mistral-small-latest",
      span_kind: "Client",
      operation_name: "chat",
      provider_name: "mistral_ai",
      request_model: "mistral-small-latest",
      response_model: "mistral-small-latest",
      response_id: reply.body.id,
      request_max_tokens: 50,
      request_temperature: 0.3,
      request_top_p: 0.9,
      request_seed: 7,
      request_stop_sequences: ["\n\n"],
      request_choice_count: 1,
      response_finish_reasons: ["stop"],
      usage_input_tokens: reply.body.usage.prompt_tokens,
      usage_output_tokens: reply.body.usage.completion_tokens,
      user_id: tenant.caller.principal,
      system_instructions: JSON.stringify([{ type: "text", content: "Be brief." }]),
      input_messages: JSON.stringify([{ role: "user", parts: [{ type: "text", content: "hello spans" }] }]),
      status_code: "Unset",
    });
    expect(JSON.parse(span!.output_messages)).toStrictEqual([{ role: "assistant", parts: [{ type: "text", content: reply.body.choices[0].message.content }], finish_reason: "stop" }]);
    expect(span!.duration_ns).toBeGreaterThan(0);
    // The same span went to the analytical store.
    expect((await telemetryRows("spans", tenant.caller.workspace)).find((row) => row.span_id === span!.span_id)).toStrictEqual(span);
  });

  it("FIM, embeddings, a streamed chat and an agent completion each record their span; a failed call records an Error span", async () => {
    const trace = traceIdOf();
    const headers = traceparent(trace, parentOf());
    const agent = await agentsClient(api, tenant).create(anAgentRequest({ name: "span-agent", description: "answers" }));
    expect(agent.status).toBe(200);

    expect((await http.request("POST", "/v1/fim/completions", { json: { model: "codestral-latest", prompt: "def f():", max_tokens: 20 }, headers })).status).toBe(200);
    expect((await http.request("POST", "/v1/embeddings", { json: { model: "mistral-embed", input: ["a", "b"] }, headers })).status).toBe(200);
    expect((await http.request("POST", "/v1/agents/completions", { json: { agent_id: agent.body.id, messages: [{ role: "user", content: "hi agent" }] }, headers })).status).toBe(200);
    const streamed = await fetch(`${api.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json", ...headers },
      body: JSON.stringify({ ...userSays("mistral-small-latest", "stream me"), stream: true }),
    });
    expect(streamed.status).toBe(200);
    await streamed.text();
    expect((await http.request("POST", "/v1/chat/completions", { json: userSays("no-such-model", "x"), headers })).status).toBe(400);

    const spans = await eventually("five spans", async () => {
      const found = await spansOf(trace);
      return found.length === 5 ? found : undefined;
    });
    const byOperation = (operation: string) => spans.filter((s) => s.operation_name === operation);
    expect(byOperation("text_completion")).toMatchObject([{ request_model: "codestral-latest", request_max_tokens: 20, response_finish_reasons: [expect.any(String)] }]);
    expect(byOperation("embeddings")).toMatchObject([{ request_model: "mistral-embed", response_model: "mistral-embed", request_encoding_formats: ["float"], usage_output_tokens: 0, span_attributes: { "gen_ai.embeddings.input_count": "2" } }]);
    const chats = byOperation("chat");
    expect(chats.find((s) => s.agent_id === agent.body.id)).toMatchObject({ agent_name: "span-agent", agent_version: "1", agent_description: "answers" });
    expect(chats.find((s) => s.span_attributes["gen_ai.request.stream"] === "true")).toMatchObject({ response_finish_reasons: ["stop"], status_code: "Unset" });
    expect(chats.find((s) => s.request_model === "no-such-model")).toMatchObject({ status_code: "Error", error_type: expect.any(String), response_model: "" });
    expect(chats.find((s) => s.span_attributes["gen_ai.request.stream"] === "true")!.usage_output_tokens).toBeGreaterThan(0);

    const derived = (await http.request("GET", `/v1/observability/traces/${trace}`)).body;
    expect(derived).toMatchObject({ span_count: 5, llm_call_count: 4, retrieval_count: 1, error_count: 1, status_code: "Error", agent_id: agent.body.id });
  });

  it("keeps the span of a call whose sampling parameters DynamoDB cannot store as sent (1e-323 is kept as 0)", async () => {
    const trace = traceIdOf();

    const reply = await http.request("POST", "/v1/chat/completions", {
      json: { ...userSays("mistral-small-latest", "tiny penalties"), presence_penalty: 1e-323, frequency_penalty: -7e-323, temperature: 5e-324 },
      headers: traceparent(trace, parentOf()),
    });
    expect(reply.status).toBe(200);

    const [span] = await eventually("the call's span", async () => {
      const spans = await spansOf(trace);
      return spans.length ? spans : undefined;
    });
    expect(span).toMatchObject({ request_presence_penalty: 0, request_frequency_penalty: 0, request_temperature: 0, response_id: reply.body.id });
  });

  it("a call without traceparent starts a new trace; a workspace that turned content capture off keeps no messages", async () => {
    const admin = await newTenant({ admin: true, organization: tenant.caller.organization, workspace: tenant.caller.workspace });
    const off = await http.request("PATCH", `/v1/admin/workspaces/${tenant.caller.workspace}`, { json: { telemetry_content_capture: false }, key: admin.key });
    expect(off.status).toBe(200);
    const { forgetContentCapture } = await import("../../../shared/services/observability/span-writer.js");
    forgetContentCapture();

    const reply = await client.chat(userSays("mistral-small-latest", "secret words"));
    expect(reply.status).toBe(200);

    const span = await eventually("the span", async () => (await telemetryRows("spans", tenant.caller.workspace)).find((row) => row.response_id === reply.body.id));
    expect(span.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(span.parent_span_id).toBe("");
    expect(span).toMatchObject({ input_messages: "", output_messages: "", system_instructions: "" });
    expect((await http.request("GET", `/v1/observability/traces/${span.trace_id}`)).body.first_turn_last_input_message).toBe("");
  });

  it("counts the evaluations recordSpanEvaluation stores for the trace (evaluation_count) and appends them to the analytical store", async () => {
    const trace = traceIdOf();
    await http.request("POST", "/v1/chat/completions", { json: userSays("mistral-small-latest", "judge me"), headers: traceparent(trace, parentOf()) });
    const [span] = await spansOf(trace);
    const { recordSpanEvaluation } = await import("../../../shared/services/observability/span-writer.js");
    const evaluation = {
      customer_id: tenant.caller.organization,
      organization_id: tenant.caller.organization,
      workspace_id: tenant.caller.workspace,
      user_id: tenant.caller.principal,
      trace_id: trace,
      span_id: span!.span_id,
      response_id: span!.response_id,
      conversation_id: "",
      timestamp: new Date().toISOString(),
      evaluation_name: "helpfulness",
      score_value: 1,
      score_label: "good",
      explanation: "",
      metadata: {},
    };

    await recordSpanEvaluation(evaluation);
    await recordSpanEvaluation({ ...evaluation, evaluation_name: "tone" });

    expect((await http.request("GET", `/v1/observability/traces/${trace}`)).body.evaluation_count).toBe(2);
    expect((await telemetryRows("span_evaluations", tenant.caller.workspace)).filter((row) => row.trace_id === trace).map((row) => row.evaluation_name)).toStrictEqual(["helpfulness", "tone"]);
  });

  it("another workspace's key finds none of it (404 TRACE_NOT_FOUND, SPAN_NOT_FOUND)", async () => {
    const trace = traceIdOf();
    await http.request("POST", "/v1/chat/completions", { json: userSays("mistral-small-latest", "mine"), headers: traceparent(trace, parentOf()) });
    const [span] = await spansOf(trace);
    const other = await newTenant();

    const theirs = await http.request("GET", `/v1/observability/traces/${trace}`, { key: other.key });
    const theirSpans = await http.request("GET", `/v1/observability/traces/${trace}/spans`, { key: other.key });
    const theirSpan = await http.request("GET", `/v1/observability/traces/${trace}/spans/${span!.span_id}`, { key: other.key });

    expect(theirs.status).toBe(404);
    expect(theirs.body).toStrictEqual({ detail: { message: `Trace '${trace}' not found`, error_code: "TRACE_NOT_FOUND" } });
    expect(theirSpans.status).toBe(404);
    expect(theirSpan.status).toBe(404);
    expect(theirSpan.body.detail.error_code).toBe("SPAN_NOT_FOUND");
  });
});

describe("GET /v1/observability/traces/{trace_id}/spans", () => {
  it("pages a trace's spans with page_size and the cursor, and refuses a call without a key", async () => {
    const trace = traceIdOf();
    const headers = traceparent(trace, parentOf());
    for (let i = 0; i < 3; i += 1) await http.request("POST", "/v1/chat/completions", { json: userSays("mistral-small-latest", `turn ${i}`), headers });

    const first = await http.request("GET", `/v1/observability/traces/${trace}/spans`, { query: { page_size: 2 } });
    const second = await http.request("GET", `/v1/observability/traces/${trace}/spans`, { query: { page_size: 2, cursor: first.body.spans.cursor } });
    const viaNext = await http.request("GET", first.body.spans.next.split("?")[0], { query: Object.fromEntries(new URLSearchParams(first.body.spans.next.split("?")[1])) });

    expect(first.body.spans.results).toHaveLength(2);
    expect(second.body.spans.results).toHaveLength(1);
    expect(second.body.spans).toMatchObject({ next: null, cursor: null });
    expect(viaNext.body.spans.results).toStrictEqual(second.body.spans.results);
    expect((await http.request("GET", `/v1/observability/traces/${trace}/spans`, { key: null })).status).toBe(401);
  });
});

describe("GET /v1/observability/traces/{trace_id}/spans/{span_id}", () => {
  it("answers one span by its ids", async () => {
    const trace = traceIdOf();
    await http.request("POST", "/v1/embeddings", { json: { model: "mistral-embed", input: "one" }, headers: traceparent(trace, parentOf()) });
    const [listed] = await spansOf(trace);

    const got = await http.request("GET", `/v1/observability/traces/${trace}/spans/${listed!.span_id}`);

    expect(got.status).toBe(200);
    expect(got.body).toStrictEqual(listed);
  });
});

/**
 * Guardrails on chat calls (docs/routing.md, "Guardrails"; decision 0059): the request's checks, or the workspace's
 * default, run on the input before the model; a blocked call answers 403, leaves a usage record with that status and a
 * span saying which check blocked it.
 */
import { BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/inference/chat.js";
import { handler as agentCompletions } from "../../../functions/agents/completions.js";
import type { SpanRow } from "../../../shared/domain/observability/records.js";
import { providerNamed } from "../../../shared/inference/registry.js";
import { UpstreamError } from "../../../shared/inference/types.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { serveTables } from "../../support/fake-table.js";
import { aCaller, aJsonEvent, aModelEntry, aModelItem, anAliasItem, invokeStream, usageRecordsWritten } from "../../support/builders.js";
import { anAgentHead, anAgentsItems } from "../../support/agents-table.js";
import { aPlatformError } from "../../support/errors.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const small = aModelEntry({ id: "mistral-small-latest", endpoints: ["chat"], tokenizer: "v3" });
const classifier = { function_calling: false, vision: false, fine_tuning: false, classification: true };
const moderationV1 = aModelEntry({ id: "mistral-moderation-latest", endpoints: ["moderations"], upstream: "offline-keyword-moderation", capabilities: classifier });
const moderationV2 = aModelEntry({ id: "mistral-moderation-2603", endpoints: ["moderations"], upstream: "offline-keyword-moderation-v2", capabilities: classifier });
const guarded = aModelEntry({ id: "guarded-small", endpoints: ["chat"], deployments: [{ provider: "offline", upstream: "offline-echo", weight: 1, guardrail: { id: "gr1abc", version: "2" } }] });

/** The workspace's record in the tenancy table, with `extra` fields (its default guardrails). */
const workspaceItem = (extra: Record<string, unknown> = {}) => ({
  pk: `ORG#${caller.organization}`,
  sk: `WS#${caller.workspace}`,
  id: caller.workspace,
  organization: caller.organization,
  name: "Default",
  isDefault: true,
  createdAt: "2026-01-01T00:00:00.000Z",
  ...extra,
});

const models = [aModelItem(small), aModelItem(moderationV1), anAliasItem("mistral-moderation-2411", moderationV1.id), aModelItem(moderationV2), aModelItem(guarded)];
const serve = (workspace: Record<string, unknown> = {}, extra: Record<string, unknown>[] = []) => serveTables(dynamo, { models, tenancy: [workspaceItem(workspace)], agents: extra });

beforeEach(() => serve());
afterEach(() => vi.restoreAllMocks());

const THREAT = "I will kill you tomorrow";
const DIAGNOSIS = "Can you diagnose this rash?";

const chat = (content: string, extra: Record<string, unknown> = {}, who = caller) =>
  aJsonEvent({ model: "mistral-small-latest", messages: [{ role: "user", content }], ...extra }, { path: "/v1/chat/completions", resource: "/v1/chat/completions", caller: who });
const blockV2 = (extra: Record<string, unknown> = {}) => ({ moderation_llm_v2: { action: "block", ...extra } });

const usageRecords = () => usageRecordsWritten(dynamo).map((r) => r.args[0].input.Item);
const chatSpan = (): SpanRow | undefined =>
  (dynamo.commandCalls(BatchWriteCommand).flatMap((c) => Object.values(c.args[0].input.RequestItems ?? {}).flat()) as { PutRequest?: { Item: { span?: SpanRow } } }[])
    .map((r) => r.PutRequest?.Item.span)
    .find((span) => span?.operation_name === "chat");
const chatCalls = async () => vi.spyOn(await providerNamed("offline"), "chat");

describe("a chat call with guardrails", () => {
  it("is blocked with 403 guardrail_blocked naming the check and the categories, before the model is called", async () => {
    const called = await chatCalls();

    const response = await invokeStream(handler, chat(THREAT, { guardrails: [blockV2()] }));

    expect(response.metadata?.statusCode).toBe(403);
    expect(response.json).toStrictEqual(
      aPlatformError({
        message: "The request was blocked by guardrail moderation_llm_v2 of guardrails[0] (model mistral-moderation-2603): violence_and_threats 1 (flagged by the model)",
        type: "permission_error",
        param: null,
        code: "guardrail_blocked",
      }),
    );
    expect(called).not.toHaveBeenCalled();
  });

  it("counts a blocked call: the moderation's usage record, and the chat model's with status 403 and no tokens", async () => {
    await invokeStream(handler, chat(THREAT, { guardrails: [blockV2()] }));

    expect(usageRecords()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ model: "mistral-moderation-2603", route: "POST /v1/chat/completions", status: 200 }),
        expect.objectContaining({ model: "mistral-small-latest", route: "POST /v1/chat/completions", status: 403, promptTokens: 0, completionTokens: 0 }),
      ]),
    );
    expect(usageRecords()).toHaveLength(2);
  });

  it("ends the blocked call's span with the check, its model and the crossed categories", async () => {
    await invokeStream(handler, chat(THREAT, { guardrails: [{ moderation_llm_v1: { action: "none" } }, blockV2()] }));

    const span = chatSpan()!;
    expect(span.status_code).toBe("Error");
    expect(span.span_attributes).toMatchObject({
      "http.response.status_code": "403",
      "platform.guardrail.check": "moderation_llm_v2",
      "platform.guardrail.config": "1",
      "platform.guardrail.model": "mistral-moderation-2603",
      "platform.guardrail.outcome": "blocked",
      "platform.guardrail.categories": "violence_and_threats=1",
    });
    expect(JSON.parse(span.span_attributes["platform.guardrail.verdicts"]!)).toStrictEqual([
      { config: 0, check: "moderation_llm_v1", model: "mistral-moderation-2411", action: "none", outcome: "flagged", categories: "violence_and_threats=1" },
      { config: 1, check: "moderation_llm_v2", model: "mistral-moderation-2603", action: "block", outcome: "blocked", categories: "violence_and_threats=1" },
    ]);
  });

  it("answers an input that crosses nothing, its span saying the checks passed", async () => {
    const response = await invokeStream(handler, chat("Hello there", { guardrails: [blockV2()] }));

    expect(response.metadata?.statusCode ?? 200).toBe(200);
    expect(response.json.choices[0].message.content).toContain("Hello there");
    expect(usageRecords().map((r) => [r.model, r.status]).toSorted()).toStrictEqual([
      ["mistral-moderation-2603", 200],
      ["mistral-small-latest", 200],
    ]);
    expect(JSON.parse(chatSpan()!.span_attributes["platform.guardrail.verdicts"]!)).toMatchObject([{ outcome: "passed" }]);
    expect(chatSpan()!.span_attributes).not.toHaveProperty("platform.guardrail.check");
  });

  it("lets a check whose action is none through, recording what it flagged on the span", async () => {
    const response = await invokeStream(handler, chat(THREAT, { guardrails: [{ moderation_llm_v2: { action: "none" } }] }));

    expect(response.metadata?.statusCode ?? 200).toBe(200);
    expect(JSON.parse(chatSpan()!.span_attributes["platform.guardrail.verdicts"]!)).toMatchObject([{ outcome: "flagged", categories: "violence_and_threats=1" }]);
  });

  it("blocks on a custom threshold reached, and only on those when ignore_other_categories is set", async () => {
    const healthOnly = blockV2({ custom_category_thresholds: { health: 0.5 }, ignore_other_categories: true });

    expect((await invokeStream(handler, chat(THREAT, { guardrails: [healthOnly] }))).metadata?.statusCode ?? 200).toBe(200);
    const blocked = await invokeStream(handler, chat(DIAGNOSIS, { guardrails: [healthOnly] }));
    expect(blocked.metadata?.statusCode).toBe(403);
    expect(blocked.json.message).toContain("health 1 (threshold 0.5)");
  });

  it("blocks a stream before it starts: a 403 JSON answer, no event sent", async () => {
    const response = await invokeStream(handler, chat(THREAT, { stream: true, guardrails: [blockV2()] }));

    expect(response.metadata?.statusCode).toBe(403);
    expect(response.metadata?.headers?.["content-type"]).toBe("application/json");
    expect(response.json.code).toBe("guardrail_blocked");
  });

  it("runs the checks whatever models the caller's key may call (the key names only the chat model)", async () => {
    const limited = aCaller({ ...caller, models: ["mistral-small-latest"] });

    const response = await invokeStream(handler, chat(THREAT, { guardrails: [blockV2()] }, limited));

    expect(response.metadata?.statusCode).toBe(403);
    expect(response.json.code).toBe("guardrail_blocked");
  });

  it("refuses a malformed guardrail with 422 naming the field", async () => {
    const response = await invokeStream(handler, chat("Hello", { guardrails: [{ moderation_llm_v2: { action: "deny" } }] }));

    expect(response.metadata?.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "guardrails", 0, "moderation_llm_v2", "action"]);
  });
});

describe("a guardrail whose moderation fails", () => {
  const failing = async () => vi.spyOn(await providerNamed("offline"), "moderate").mockRejectedValue(new UpstreamError(502, "moderation upstream down"));

  it("blocks with 403 guardrail_unavailable when its config says block_on_error", async () => {
    await failing();

    const response = await invokeStream(handler, chat("Hello", { guardrails: [{ block_on_error: true, ...blockV2() }] }));

    expect(response.metadata?.statusCode).toBe(403);
    expect(response.json).toMatchObject({ type: "permission_error", code: "guardrail_unavailable" });
    expect(response.json.message).toContain("could not be evaluated");
    expect(chatSpan()!.span_attributes).toMatchObject({ "platform.guardrail.check": "moderation_llm_v2", "platform.guardrail.outcome": "failed" });
  });

  it("lets the call through when block_on_error is false (the default), its span saying the check failed", async () => {
    await failing();

    const response = await invokeStream(handler, chat("Hello", { guardrails: [blockV2()] }));

    expect(response.metadata?.statusCode ?? 200).toBe(200);
    expect(JSON.parse(chatSpan()!.span_attributes["platform.guardrail.verdicts"]!)).toMatchObject([{ outcome: "failed" }]);
  });

  it("counts a model_name the catalog does not know as a failure of the check", async () => {
    const unknown = { moderation_llm_v1: { action: "block", model_name: "no-such-moderation" } };

    expect((await invokeStream(handler, chat("Hello", { guardrails: [{ block_on_error: true, ...unknown }] }))).json).toMatchObject({ code: "guardrail_unavailable" });
    expect((await invokeStream(handler, chat("Hello", { guardrails: [unknown] }))).metadata?.statusCode ?? 200).toBe(200);
  });

  it("never blocks for a check that only watches (action none), even with block_on_error", async () => {
    await failing();

    const response = await invokeStream(handler, chat("Hello", { guardrails: [{ block_on_error: true, moderation_llm_v2: { action: "none" } }] }));

    expect(response.metadata?.statusCode ?? 200).toBe(200);
  });
});

describe("the workspace's default guardrails", () => {
  it("apply to a call that names none", async () => {
    serve({ defaultGuardrails: [{ block_on_error: false, moderation_llm_v2: { model_name: "mistral-moderation-2603", ignore_other_categories: false, action: "block" } }] });

    const response = await invokeStream(handler, chat(THREAT));

    expect(response.metadata?.statusCode).toBe(403);
    expect(response.json.code).toBe("guardrail_blocked");
  });

  it("give way to the call's own, even an empty list", async () => {
    serve({ defaultGuardrails: [{ block_on_error: false, moderation_llm_v2: { model_name: "mistral-moderation-2603", ignore_other_categories: false, action: "block" } }] });

    expect((await invokeStream(handler, chat(THREAT, { guardrails: [] }))).metadata?.statusCode ?? 200).toBe(200);
    expect((await invokeStream(handler, chat(THREAT, { guardrails: [{ moderation_llm_v2: { action: "none" } }] }))).metadata?.statusCode ?? 200).toBe(200);
    expect(usageRecords().filter((r) => r.model === "mistral-moderation-2603")).toHaveLength(1);
  });

  it("cost a call without guardrails no moderation and no read beyond the workspace's cached record", async () => {
    const moderate = vi.spyOn(await providerNamed("offline"), "moderate");

    expect((await invokeStream(handler, chat(THREAT))).metadata?.statusCode ?? 200).toBe(200);
    expect((await invokeStream(handler, chat(THREAT))).metadata?.statusCode ?? 200).toBe(200);

    expect(moderate).not.toHaveBeenCalled();
    expect(usageRecords().map((r) => r.model)).toStrictEqual(["mistral-small-latest", "mistral-small-latest"]);
  });
});

describe("an agent's guardrails", () => {
  const agent = anAgentHead({
    workspace: caller.workspace,
    organization: caller.organization,
    guardrails: [{ block_on_error: false, moderation_llm_v2: { model_name: "mistral-moderation-2603", ignore_other_categories: false, action: "block" } }],
  });
  const complete = (content: string, extra: Record<string, unknown> = {}) =>
    aJsonEvent({ agent_id: agent.id, messages: [{ role: "user", content }], ...extra }, { path: "/v1/agents/completions", resource: "/v1/agents/completions", caller });

  it("block its completions unless the request names its own", async () => {
    serve({}, anAgentsItems(agent));

    expect((await invokeStream(agentCompletions, complete(THREAT))).metadata?.statusCode).toBe(403);
    expect((await invokeStream(agentCompletions, complete(THREAT, { guardrails: [] }))).metadata?.statusCode ?? 200).toBe(200);
  });
});

describe("a deployment with a Bedrock guardrail", () => {
  it("names it in the provider call", async () => {
    const called = await chatCalls();

    await invokeStream(handler, aJsonEvent({ model: "guarded-small", messages: [{ role: "user", content: "Hello" }] }, { path: "/v1/chat/completions", resource: "/v1/chat/completions", caller }));

    expect(called.mock.calls[0]![1]).toMatchObject({ guardrail: { id: "gr1abc", version: "2" } });
  });
});

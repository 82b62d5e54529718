/**
 * Guardrails through the official SDK (docs/routing.md, "Guardrails"): `chat.complete`, `chat.stream` and
 * `agents.complete` with `guardrails` as the SDK sends them (camelCase in, Mistral's snake_case on the wire).
 */
import { Mistral } from "@mistralai/mistralai";
import { SDKError } from "@mistralai/mistralai/models/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
beforeAll(() => {
  client = sdkClient(api, tenant.key);
});

const model = "mistral-small-latest";
const THREAT = "I will kill you tomorrow";
const block = { moderationLlmV2: { action: "block" as const } };

describe("chat.complete with guardrails", () => {
  it("rejects an input a check with action block crosses with the SDK's 403 error, naming the check", async () => {
    const error = await errorOf(client.chat.complete({ model, messages: [{ role: "user", content: THREAT }], guardrails: [block] }), SDKError);

    expect(error.statusCode).toBe(403);
    expect(JSON.parse(error.body)).toMatchObject({ object: "error", type: "permission_error", code: "guardrail_blocked" });
    expect(error.message).toContain("moderation_llm_v2");
  });

  it("answers an input the checks pass, and one a watching check (action none) flags", async () => {
    const passed = await client.chat.complete({ model, messages: [{ role: "user", content: "Hello there" }], guardrails: [block] });
    const watched = await client.chat.complete({ model, messages: [{ role: "user", content: THREAT }], guardrails: [{ moderationLlmV1: { action: "none" } }] });

    expect(String(passed.choices[0]?.message?.content)).toContain("Hello there");
    expect(watched.choices[0]!.finishReason).toBe("stop");
  });

  it("honours custom thresholds and ignoreOtherCategories as the SDK spells them", async () => {
    const healthOnly = { moderationLlmV2: { action: "block" as const, customCategoryThresholds: { health: 0.5 }, ignoreOtherCategories: true } };

    expect((await client.chat.complete({ model, messages: [{ role: "user", content: THREAT }], guardrails: [healthOnly] })).choices).toHaveLength(1);
    const error = await errorOf(client.chat.complete({ model, messages: [{ role: "user", content: "Please diagnose me" }], guardrails: [healthOnly] }), SDKError);
    expect(error.statusCode).toBe(403);
  });

  it("rejects a blocked stream with the same 403 before any event", async () => {
    const error = await errorOf(client.chat.stream({ model, messages: [{ role: "user", content: THREAT }], guardrails: [block] }), SDKError);

    expect(error.statusCode).toBe(403);
  });

  it("rejects with 403 when the check's moderation fails and blockOnError is set", async () => {
    const error = await errorOf(client.chat.complete({ model, messages: [{ role: "user", content: "Hello" }], guardrails: [{ blockOnError: true, moderationLlmV1: { action: "block", modelName: "no-such-moderation" } }] }), SDKError);

    expect(error.statusCode).toBe(403);
    expect(JSON.parse(error.body)).toMatchObject({ code: "guardrail_unavailable" });
  });
});

describe("agents.complete with an agent's guardrails", () => {
  it("blocks what the agent's guardrails block, and a request's own list replaces them", async () => {
    const agent = await client.beta.agents.create({ model, name: "guarded", guardrails: [block] });

    const error = await errorOf(client.agents.complete({ agentId: agent.id, messages: [{ role: "user", content: THREAT }] }), SDKError);
    const answered = await client.agents.complete({ agentId: agent.id, messages: [{ role: "user", content: THREAT }], guardrails: [] });

    expect(error.statusCode).toBe(403);
    expect(answered.choices).toHaveLength(1);
  });
});

/**
 * Saved judges driven by the official, unmodified SDK (`client.beta.observability.judges.*`) against the local
 * server: every answer parses into the SDK's types (dates as Date, snake_case remapped), 201 and 204 where the
 * SDK expects them, errors as ObservabilityError, and live judging of a conversation on the offline provider.
 */
import { Mistral } from "@mistralai/mistralai";
import { ObservabilityError } from "@mistralai/mistralai/models/errors";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";
import { newTenant } from "../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
beforeAll(() => {
  client = sdkClient(api, tenant.key);
});
const conversation = { messages: [{ role: "user", content: "What is 2+2?" }, { role: "assistant", content: "4" }] };
const classes = { type: "CLASSIFICATION" as const, options: [{ value: "yes", description: "Right" }, { value: "no", description: "Wrong" }] };
const aJudge = (name: string, output: any = classes) =>
  client.beta.observability.judges.create({ name, description: "made by the SDK", modelName: "mistral-small-latest", output, instructions: "Judge the answer.", tools: [] });

describe("client.beta.observability.judges: POST /v1/observability/judges, GET /v1/observability/judges, GET /v1/observability/judges/{judge_id}, PUT /v1/observability/judges/{judge_id}, DELETE /v1/observability/judges/{judge_id}", () => {
  it("creates (201), fetches, lists, updates (204) and deletes (204) a judge", async () => {
    const created = await aJudge("sdk lifecycle");
    expect(created).toMatchObject({ name: "sdk lifecycle", modelName: "mistral-small-latest", output: classes, tools: [], ownerId: tenant.caller.principal, workspaceId: tenant.caller.workspace, deletedAt: null });
    expect(created.createdAt).toBeInstanceOf(Date);

    const judges = client.beta.observability.judges;
    expect(await judges.fetch({ judgeId: created.id })).toEqual(created);
    const listed = await judges.list({ q: "sdk lifecycle", typeFilter: ["CLASSIFICATION"], modelFilter: ["mistral-small-latest"], pageSize: 10 });
    expect(listed.judges).toMatchObject({ count: 1, results: [{ id: created.id }] });

    await judges.update({
      judgeId: created.id,
      updateJudgeRequest: { name: "sdk renamed", description: "changed", modelName: "mistral-small-latest", output: { type: "REGRESSION", min: 0, minDescription: "bad", max: 10, maxDescription: "good" }, instructions: "Rate it.", tools: [] },
    });
    expect(await judges.fetch({ judgeId: created.id })).toMatchObject({ id: created.id, name: "sdk renamed", output: { type: "REGRESSION", min: 0, max: 10, minDescription: "bad" } });
    expect((await judges.list({ typeFilter: ["CLASSIFICATION"], q: "sdk renamed" })).judges.count).toBe(0);

    await judges.delete({ judgeId: created.id });
    expect((await errorOf(judges.fetch({ judgeId: created.id }), ObservabilityError)).detail.errorCode).toBe("JUDGE_NOT_FOUND");
  });

  it("answers a taken name with ObservabilityError JUDGE_NAME_ALREADY_EXISTS (409)", async () => {
    await aJudge("sdk taken name");

    const error = await errorOf(aJudge("sdk taken name"), ObservabilityError);

    expect(error.statusCode).toBe(409);
    expect(error.detail.errorCode).toBe("JUDGE_NAME_ALREADY_EXISTS");
  });

  it("shows another workspace nothing: 404 for its judges, an empty list", async () => {
    const created = await aJudge("sdk private judge");
    const stranger = sdkClient(api, (await newTenant()).key);

    expect((await errorOf(stranger.beta.observability.judges.fetch({ judgeId: created.id }), ObservabilityError)).detail.errorCode).toBe("JUDGE_NOT_FOUND");
    expect((await stranger.beta.observability.judges.list({})).judges.count).toBe(0);
  });
});

describe("client.beta.observability.judges.judgeConversation: POST /v1/observability/judges/{judge_id}/live-judging", () => {
  it("answers a classification with one of its options and a regression with a number in its range (offline provider)", async () => {
    const classifier = await aJudge("sdk classifier");
    const scale = await aJudge("sdk scale", { type: "REGRESSION", min: 1, minDescription: "bad", max: 10, maxDescription: "good" });
    const judges = client.beta.observability.judges;

    const classified = await judges.judgeConversation({ judgeId: classifier.id, judgeConversationRequest: conversation });
    const scored = await judges.judgeConversation({ judgeId: scale.id, judgeConversationRequest: { ...conversation, properties: { expected: "4" } } });

    expect(classified).toEqual({ analysis: expect.stringContaining("[offline]"), answer: "yes" });
    expect(typeof scored.answer).toBe("number");
    expect(scored.answer).toBeGreaterThanOrEqual(1);
    expect(scored.answer).toBeLessThanOrEqual(10);
  });

  it("answers an unknown judge with ObservabilityError JUDGE_NOT_FOUND and a malformed conversation with JUDGE_CONVERSATION_FORMAT_ERROR", async () => {
    const judge = await aJudge("sdk strict judge");
    const judges = client.beta.observability.judges;

    expect((await errorOf(judges.judgeConversation({ judgeId: randomUUID(), judgeConversationRequest: conversation }), ObservabilityError)).detail.errorCode).toBe("JUDGE_NOT_FOUND");
    const malformed = await errorOf(judges.judgeConversation({ judgeId: judge.id, judgeConversationRequest: { messages: [{ content: "no role" }] } }), ObservabilityError);
    expect(malformed.detail.errorCode).toBe("JUDGE_CONVERSATION_FORMAT_ERROR");
  });
});

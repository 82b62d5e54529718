import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { handler as createJudge } from "../../../functions/observability/create-judge.js";
import { handler as deleteJudge } from "../../../functions/observability/delete-judge.js";
import { handler as getJudge } from "../../../functions/observability/get-judge.js";
import { handler as judgeConversation } from "../../../functions/observability/judge-conversation.js";
import { handler as listJudges } from "../../../functions/observability/list-judges.js";
import { handler as updateJudge } from "../../../functions/observability/update-judge.js";
import { providerNamed } from "../../../shared/inference/registry.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, aModelEntry, aModelItem, anEvent, invoke } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { aJudge, aJudgeItems } from "../../support/judge-items.js";
import { aJudgeBody, aScale } from "../../support/judges-client.js";
import { useTelemetryDir } from "../../support/telemetry-dir.js";

const dynamo = mockDynamo();
const small = aModelEntry({ id: "mistral-small-latest", endpoints: ["chat"], tokenizer: "v3" });
const embed = aModelEntry({ id: "mistral-embed", endpoints: ["embeddings"], tokenizer: "v1", upstream: "offline-hash-embed", dimensions: [1024] });
let tables: FakeTables;
const telemetry = useTelemetryDir();
beforeEach(() => {
  tables = serveTables(dynamo, { models: [aModelItem(small), aModelItem(embed)] }, { writes: true });
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(join(telemetry.dir, "span_evaluations"), { recursive: true, force: true });
});

const caller = aCaller();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const judgePath = (id: string) => `/v1/observability/judges/${id}`;
const seeded = (overrides = {}, owner = caller) => {
  const judge = aJudge(owner, overrides);
  tables.put("datasets", ...aJudgeItems(judge));
  return judge;
};
const judgeItems = () => tables.items("datasets").filter((item) => String(item.sk).startsWith("JUDGE"));

describe("POST /v1/observability/judges", () => {
  const create = (body: unknown, who = caller) => aJsonEvent(body, { path: "/v1/observability/judges", caller: who });

  it("saves the judge owned by the caller, claims its name and answers 201 Judge", async () => {
    const response = await invoke(createJudge, create(aJudgeBody()));

    expect(response.statusCode).toBe(201);
    expect(response.json).toEqual({
      id: expect.any(String),
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      deleted_at: null,
      owner_id: caller.principal,
      workspace_id: caller.workspace,
      ...aJudgeBody(),
      up_revision: null,
      down_revision: null,
      base_revision: null,
    });
    expect(judgeItems()).toEqual([
      expect.objectContaining({ pk: `WS#${caller.workspace}`, sk: `JUDGE#${response.json.id}`, parentKey: `${caller.workspace}#JUDGES`, outputType: "CLASSIFICATION", revision: 1 }),
      { pk: `WS#${caller.workspace}`, sk: "JUDGENAME#answer quality", judgeId: response.json.id },
    ]);
  });

  it("fills a regression's default min (0)", async () => {
    const response = await invoke(createJudge, create(aJudgeBody({ output: { type: "REGRESSION", min_description: "no", max: 10, max_description: "yes" } })));

    expect(response.statusCode).toBe(201);
    expect(response.json.output).toEqual({ type: "REGRESSION", min: 0, min_description: "no", max: 10, max_description: "yes" });
  });

  it("answers 409 JUDGE_NAME_ALREADY_EXISTS for a name the workspace has, storing nothing", async () => {
    seeded({ name: "taken name" });

    const response = await invoke(createJudge, create(aJudgeBody({ name: "taken name" })));

    expect(response.statusCode).toBe(409);
    expect(response.json.detail.error_code).toBe("JUDGE_NAME_ALREADY_EXISTS");
    expect(judgeItems()).toHaveLength(2);
  });

  it("takes a name another workspace has", async () => {
    seeded({ name: "shared name" }, aCaller());

    expect((await invoke(createJudge, create(aJudgeBody({ name: "shared name" })))).statusCode).toBe(201);
  });

  it.each([
    ["a name under 5 characters", "VALIDATION_ERROR", aJudgeBody({ name: "abcd" })],
    ["no instructions", "VALIDATION_ERROR", { ...aJudgeBody(), instructions: undefined }],
    ["an unknown output type", "VALIDATION_ERROR", aJudgeBody({ output: { type: "RANKING", options: [] } })],
    ["repeated option values", "VALIDATION_ERROR", aJudgeBody({ output: { type: "CLASSIFICATION", options: [{ value: "a", description: "" }, { value: "a", description: "" }] } })],
    ["min not below max", "VALIDATION_ERROR", aJudgeBody({ output: aScale(5, 5) })],
    ["an unknown model", "VALIDATION_ERROR", aJudgeBody({ model_name: "no-such-model" })],
    ["a model that does not chat", "VALIDATION_ERROR", aJudgeBody({ model_name: "mistral-embed" })],
    ["tools", "FEATURE_NOT_SUPPORTED", aJudgeBody({ tools: ["web_search"] })],
  ])("refuses %s with 422 %s, storing nothing", async (_what, code, body) => {
    const response = await invoke(createJudge, create(body));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail.error_code).toBe(code);
    expect(judgeItems()).toEqual([]);
  });

  it("names the body field of a bad model in the message", async () => {
    const response = await invoke(createJudge, create(aJudgeBody({ model_name: "no-such-model" })));

    expect(response.json.detail.message).toContain("model_name");
  });

  it("answers 403 to a viewer (observability:read only)", async () => {
    const response = await invoke(createJudge, create(aJudgeBody(), { ...caller, roles: ["observability_viewer"] }));

    expect(response.statusCode).toBe(403);
    expect(judgeItems()).toEqual([]);
  });
});

describe("GET /v1/observability/judges", () => {
  const list = (query: Record<string, string | string[]> = {}) => anEvent({ path: "/v1/observability/judges", query, caller });

  it("lists the workspace's judges oldest first in pages, with the count and the links", async () => {
    const [a, b, c] = ["2025-01-01", "2025-01-02", "2025-01-03"].map((day, i) => seeded({ name: `judge ${i}`, createdAt: `${day}T00:00:00.000Z` }));
    seeded({}, aCaller());

    const first = await invoke(listJudges, list({ page_size: "2" }));
    const second = await invoke(listJudges, list({ page: "2", page_size: "2" }));

    expect(first.statusCode).toBe(200);
    expect(first.json.judges).toEqual({ results: [expect.objectContaining({ id: a!.id, name: "judge 0" }), expect.objectContaining({ id: b!.id })], count: 3, next: "/v1/observability/judges?page=2&page_size=2", previous: null });
    expect(second.json.judges).toEqual({ results: [expect.objectContaining({ id: c!.id })], count: 3, next: null, previous: "/v1/observability/judges?page=1&page_size=2" });
  });

  it("keeps repeated filters in the links", async () => {
    seeded({ name: "judge one" });
    seeded({ name: "judge two" });

    const response = await invoke(listJudges, list({ page_size: "1", type_filter: ["CLASSIFICATION", "REGRESSION"], model_filter: "mistral-small-latest" }));

    expect(response.json.judges.next).toBe("/v1/observability/judges?page=2&page_size=1&type_filter=CLASSIFICATION&type_filter=REGRESSION&model_filter=mistral-small-latest");
  });

  it.each([
    ["page 0", { page: "0" }],
    ["page_size over 100", { page_size: "101" }],
    ["an unknown output type", { type_filter: "RANKING" }],
  ])("refuses %s with 422 VALIDATION_ERROR", async (_what, query) => {
    const response = await invoke(listJudges, list(query));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail.error_code).toBe("VALIDATION_ERROR");
  });

  it("answers the count alone for page_size 0", async () => {
    seeded();

    expect((await invoke(listJudges, list({ page_size: "0" }))).json.judges).toEqual({ results: [], count: 1, next: null, previous: null });
  });
});

describe("GET /v1/observability/judges/{judge_id}", () => {
  const get = (id: string) => anEvent({ path: judgePath(id), pathParameters: { judge_id: id }, caller });

  it("answers the judge, its id in any case", async () => {
    const judge = seeded();

    const response = await invoke(getJudge, get(judge.id.toUpperCase()));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: judge.id, name: judge.name, model_name: "mistral-small-latest", output: judge.output, owner_id: caller.principal, workspace_id: caller.workspace, deleted_at: null });
  });

  it("answers 404 JUDGE_NOT_FOUND for another workspace's judge", async () => {
    const judge = seeded({}, aCaller());

    const response = await invoke(getJudge, get(judge.id));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail.error_code).toBe("JUDGE_NOT_FOUND");
  });

  it("refuses an id that is no UUID with 422", async () => {
    expect((await invoke(getJudge, get("not-a-uuid"))).statusCode).toBe(422);
  });
});

describe("PUT /v1/observability/judges/{judge_id}", () => {
  const put = (id: string, body: unknown) => aJsonEvent(body, { method: "PUT", path: judgePath(id), pathParameters: { judge_id: id }, caller });

  it("replaces the definition, keeps id, owner and creation, moves the name's claim and answers 204", async () => {
    const judge = seeded();

    const response = await invoke(updateJudge, put(judge.id, aJudgeBody({ name: "renamed judge", output: aScale(0, 10) })));

    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    const [item, claim] = judgeItems();
    expect(item).toMatchObject({ id: judge.id, ownerId: judge.ownerId, createdAt: judge.createdAt, name: "renamed judge", output: aScale(0, 10), outputType: "REGRESSION", revision: 2 });
    expect(item!.updatedAt).not.toBe(judge.updatedAt);
    expect(claim).toEqual({ pk: `WS#${caller.workspace}`, sk: "JUDGENAME#renamed judge", judgeId: judge.id });
  });

  it("changes nothing for the same definition", async () => {
    const judge = seeded();
    const before = structuredClone(judgeItems());

    expect((await invoke(updateJudge, put(judge.id, aJudgeBody()))).statusCode).toBe(204);
    expect(judgeItems()).toEqual(before);
    expect(judge.name).toBe(aJudgeBody().name);
  });

  it("answers 409 JUDGE_NAME_ALREADY_EXISTS for another judge's name, changing nothing", async () => {
    const judge = seeded();
    seeded({ name: "other judge" });
    const before = structuredClone(judgeItems());

    const response = await invoke(updateJudge, put(judge.id, aJudgeBody({ name: "other judge" })));

    expect(response.statusCode).toBe(409);
    expect(response.json.detail.error_code).toBe("JUDGE_NAME_ALREADY_EXISTS");
    expect(judgeItems()).toEqual(before);
  });

  it("answers 404 for another workspace's judge and leaves it", async () => {
    const judge = seeded({}, aCaller());

    const response = await invoke(updateJudge, put(judge.id, aJudgeBody({ name: "mine now!" })));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail.error_code).toBe("JUDGE_NOT_FOUND");
    expect(judgeItems()[0]).toMatchObject({ name: judge.name, revision: 1 });
  });

  it("answers 404 for another workspace's judge even when the body would be refused", async () => {
    const judge = seeded({}, aCaller());

    const response = await invoke(updateJudge, put(judge.id, aJudgeBody({ tools: ["web_search"], model_name: "no-such-model" })));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail.error_code).toBe("JUDGE_NOT_FOUND");
  });

  it("answers 409 JUDGE_DID_NOT_CHANGE when the judge keeps changing under the update, having written nothing", async () => {
    const judge = seeded();
    const writes: unknown[] = [];
    // Every read shows the judge at a revision another writer has already moved past.
    dynamo.on(TransactWriteCommand).callsFake((input) => {
      writes.push(input);
      throw new TransactionCanceledException({ message: "Transaction cancelled", $metadata: {} });
    });

    const response = await invoke(updateJudge, put(judge.id, aJudgeBody({ description: "changed" })));

    expect(response.statusCode).toBe(409);
    expect(response.json.detail.error_code).toBe("JUDGE_DID_NOT_CHANGE");
    expect(writes).toHaveLength(3);
    expect(judgeItems()[0]).toMatchObject({ description: judge.description, revision: 1 });
  });

  it("refuses a partial body with 422, changing nothing", async () => {
    const judge = seeded();

    const response = await invoke(updateJudge, put(judge.id, { name: "only a name" }));

    expect(response.statusCode).toBe(422);
    expect(judgeItems()[0]).toMatchObject({ name: judge.name, revision: 1 });
  });
});

describe("DELETE /v1/observability/judges/{judge_id}", () => {
  const remove = (id: string) => anEvent({ method: "DELETE", path: judgePath(id), pathParameters: { judge_id: id }, caller });

  it("deletes the judge and its name's claim, nothing else, and answers 204", async () => {
    const judge = seeded();
    const other = seeded({ name: "kept judge" });

    const response = await invoke(deleteJudge, remove(judge.id));

    expect(response.statusCode).toBe(204);
    expect(judgeItems().map((item) => item.sk)).toEqual([`JUDGE#${other.id}`, "JUDGENAME#kept judge"]);
  });

  it("answers 404 JUDGE_NOT_FOUND for an unknown or another workspace's judge", async () => {
    const theirs = seeded({}, aCaller());

    expect((await invoke(deleteJudge, remove(randomUUID()))).json.detail.error_code).toBe("JUDGE_NOT_FOUND");
    expect((await invoke(deleteJudge, remove(theirs.id))).statusCode).toBe(404);
    expect(judgeItems()).toHaveLength(2);
  });
});

describe("POST /v1/observability/judges/{judge_id}/live-judging", () => {
  const conversation = { messages: [{ role: "user", content: "What is the capital of France?" }, { role: "assistant", content: "Paris." }] };
  const judgeIt = (id: string, body: unknown) => aJsonEvent(body, { path: `${judgePath(id)}/live-judging`, pathParameters: { judge_id: id }, caller });

  it("answers a classification on the offline provider with its first option, reading the conversation and its properties, storing no evaluation", async () => {
    const judge = seeded();
    const spy = vi.spyOn(await providerNamed("offline"), "chat");

    const response = await invoke(judgeConversation, judgeIt(judge.id, { ...conversation, properties: { expected: "Paris" } }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ analysis: expect.stringContaining("[offline]"), answer: "good" });
    const request = spy.mock.calls[0]![0];
    expect(request.response_format).toMatchObject({ type: "json_schema", json_schema: { schema: { properties: { answer: { type: "string", enum: ["good", "bad"] } } } } });
    expect(request.messages[0]!.content).toContain(judge.instructions);
    expect(request.messages.at(-1)!.content).toMatch(/^Judge this conversation:\n\nuser: What is the capital of France\?\n\nassistant: Paris\.\n\nProperties of this conversation:\n.*"expected": "Paris"/s);
    expect(telemetry.evaluations(caller.workspace)).toEqual([]);
  });

  it("answers a regression with a number in its range, asking again when the first answer is out of it", async () => {
    const judge = seeded({ output: { type: "REGRESSION", min: 2, min_description: "bad", max: 7, max_description: "good" } });
    const spy = vi.spyOn(await providerNamed("offline"), "chat");
    spy.mockResolvedValueOnce({ choices: [{ content: '{"analysis":"big","answer":9}', toolCalls: [], finishReason: "stop" }] });
    spy.mockResolvedValueOnce({ choices: [{ content: '{"analysis":"fine","answer":6.5}', toolCalls: [], finishReason: "stop" }] });

    const response = await invoke(judgeConversation, judgeIt(judge.id, conversation));

    expect(response.json).toEqual({ analysis: "fine", answer: 6.5 });
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it("answers 404 JUDGE_NOT_FOUND for another workspace's judge, calling no model", async () => {
    const judge = seeded({}, aCaller());
    const spy = vi.spyOn(await providerNamed("offline"), "chat");

    const response = await invoke(judgeConversation, judgeIt(judge.id, conversation));

    expect(response.statusCode).toBe(404);
    expect(response.json.detail.error_code).toBe("JUDGE_NOT_FOUND");
    expect(spy).not.toHaveBeenCalled();
  });

  it.each([
    ["a message without a role", "JUDGE_CONVERSATION_FORMAT_ERROR", { messages: [{ content: "who?" }] }],
    ["a message whose content is a number", "JUDGE_CONVERSATION_FORMAT_ERROR", { messages: [{ role: "user", content: 4 }] }],
    ["no messages", "VALIDATION_ERROR", { messages: [] }],
    ["messages that are no list", "VALIDATION_ERROR", { messages: "hi" }],
  ])("refuses %s with 422 %s, calling no model", async (_what, code, body) => {
    const judge = seeded();
    const spy = vi.spyOn(await providerNamed("offline"), "chat");

    const response = await invoke(judgeConversation, judgeIt(judge.id, body));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail.error_code).toBe(code);
    expect(spy).not.toHaveBeenCalled();
  });

  it("answers 422 VALIDATION_ERROR when the judge's model has left the catalog, saying to update the judge", async () => {
    const judge = seeded({ model_name: "retired-model" });

    const response = await invoke(judgeConversation, judgeIt(judge.id, conversation));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toEqual({ message: expect.stringContaining("Update the judge"), error_code: "VALIDATION_ERROR" });
  });
});

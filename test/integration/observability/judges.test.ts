import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { footprint } from "../../support/footprint.js";
import { aJudgeBody, aScale, judgesClient } from "../../support/judges-client.js";
import { useTelemetryDir } from "../../support/telemetry-dir.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const judges = judgesClient(api, tenant);
const stranger = async () => judgesClient(api, await newTenant());
// The embedded server runs the handlers in this process: a judgement would land in this file's telemetry directory.
const telemetry = useTelemetryDir();
const conversation = { messages: [{ role: "user", content: "What is the capital of France?" }, { role: "assistant", content: "Paris." }] };

describe("POST /v1/observability/judges", () => {
  it("saves a judge that fetch then answers as created", async () => {
    const reply = await judges.create(aJudgeBody());

    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ ...aJudgeBody(), owner_id: tenant.caller.principal, workspace_id: tenant.caller.workspace, deleted_at: null, up_revision: null });
    expect((await judges.get(reply.body.id)).body).toEqual(reply.body);
  });

  it("refuses a second judge of the same name with 409 JUDGE_NAME_ALREADY_EXISTS, storing nothing", async () => {
    await judges.created({ name: "one of a kind" });
    const before = await footprint(tenant.caller);

    const reply = await judges.create(aJudgeBody({ name: "one of a kind" }));

    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({ detail: { message: expect.stringContaining("one of a kind"), error_code: "JUDGE_NAME_ALREADY_EXISTS" } });
    expect(await footprint(tenant.caller)).toEqual(before);
  });

  it("refuses a short name with 422 in the observability envelope", async () => {
    const reply = await judges.create(aJudgeBody({ name: "abc" }));

    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({ detail: { message: expect.stringContaining("name"), error_code: "VALIDATION_ERROR" } });
  });
});

describe("GET /v1/observability/judges", () => {
  it("pages oldest first, filters by type, model and name, and never shows another workspace's judges", async () => {
    const a = await judges.created({ name: "tone classifier" });
    const b = await judges.created({ name: "helpfulness scale", output: aScale() });
    const c = await judges.created({ name: "tone scale", output: aScale(0, 10) });
    await (await stranger()).created({ name: "tone classifier" });
    const ids = (reply: { body: any }) => reply.body.judges.results.map((j: { id: string }) => j.id);

    const page = await judges.list({ page: 2, page_size: 2 });
    expect(page.status).toBe(200);
    expect(page.body.judges).toMatchObject({ count: 3, next: null, previous: "/v1/observability/judges?page=1&page_size=2" });
    expect(ids(page)).toEqual([c.id]);

    expect(ids(await judges.list({ type_filter: "REGRESSION" }))).toEqual([b.id, c.id]);
    expect(ids(await judges.list({ type_filter: ["REGRESSION", "CLASSIFICATION"] }))).toEqual([a.id, b.id, c.id]);
    expect(ids(await judges.list({ q: "tone" }))).toEqual([a.id, c.id]);
    expect(ids(await judges.list({ q: "tone", type_filter: "REGRESSION" }))).toEqual([c.id]);
    expect((await judges.list({ model_filter: "mistral-small-latest" })).body.judges.count).toBe(3);
    expect((await judges.list({ model_filter: ["some-other-model"] })).body.judges).toEqual({ results: [], count: 0, next: null, previous: null });
  });
});

describe("GET /v1/observability/judges/{judge_id}", () => {
  it("answers 404 JUDGE_NOT_FOUND to another workspace and to an unknown id", async () => {
    const created = await judges.created();

    const reply = await (await stranger()).get(created.id);

    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail: { message: expect.any(String), error_code: "JUDGE_NOT_FOUND" } });
    expect((await judges.get(randomUUID())).status).toBe(404);
  });
});

describe("PUT /v1/observability/judges/{judge_id}", () => {
  it("replaces the definition (204) under the same id, and frees the old name", async () => {
    const created = await judges.created({ name: "first name" });

    const reply = await judges.update(created.id, aJudgeBody({ name: "second name", output: aScale(0, 3), instructions: "Rate it." }));

    expect(reply.status).toBe(204);
    const fetched = (await judges.get(created.id)).body;
    expect(fetched).toMatchObject({ id: created.id, created_at: created.created_at, name: "second name", output: aScale(0, 3), instructions: "Rate it." });
    expect(fetched.updated_at > created.updated_at).toBe(true);
    expect((await judges.create(aJudgeBody({ name: "first name" }))).status).toBe(201);
    expect((await judges.create(aJudgeBody({ name: "second name" }))).status).toBe(409);
  });

  it("leaves another workspace's judge as it was", async () => {
    const created = await judges.created();
    const before = await footprint(tenant.caller);

    expect((await (await stranger()).update(created.id, aJudgeBody({ name: "taken over" }))).status).toBe(404);
    expect(await footprint(tenant.caller)).toEqual(before);
  });
});

describe("DELETE /v1/observability/judges/{judge_id}", () => {
  it("deletes the judge once, freeing its name: the second delete is a 404", async () => {
    const created = await judges.created({ name: "short lived" });

    expect((await judges.remove(created.id)).status).toBe(204);
    expect((await judges.get(created.id)).status).toBe(404);
    expect((await judges.remove(created.id)).status).toBe(404);
    expect((await judges.create(aJudgeBody({ name: "short lived" }))).status).toBe(201);
  });
});

describe("POST /v1/observability/judges/{judge_id}/live-judging", () => {
  it("judges a conversation with the saved judge on the offline provider, storing no evaluation", async () => {
    const classifier = await judges.created();
    const scale = await judges.created({ output: aScale(2, 9) });

    const classified = await judges.judge(classifier.id, conversation);
    const scored = await judges.judge(scale.id, { ...conversation, properties: { topic: "geography" } });

    expect(classified.status).toBe(200);
    expect(classified.body).toEqual({ analysis: expect.stringContaining("[offline]"), answer: "good" });
    expect(scored.body).toEqual({ analysis: expect.stringContaining("[offline]"), answer: 2 });
    expect(telemetry.evaluations(tenant.caller.workspace)).toEqual([]);
  });

  it("judges with the definition as updated", async () => {
    const created = await judges.created();
    await judges.update(created.id, aJudgeBody({ name: created.name, output: { type: "CLASSIFICATION", options: [{ value: "pass", description: "" }, { value: "fail", description: "" }] } }));

    expect((await judges.judge(created.id, conversation)).body.answer).toBe("pass");
  });

  it("answers 404 JUDGE_NOT_FOUND to another workspace and 422 JUDGE_CONVERSATION_FORMAT_ERROR to a malformed conversation", async () => {
    const created = await judges.created();

    expect((await (await stranger()).judge(created.id, conversation)).body.detail.error_code).toBe("JUDGE_NOT_FOUND");
    const malformed = await judges.judge(created.id, { messages: [{ role: "narrator", content: "Once upon a time" }] });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail.error_code).toBe("JUDGE_CONVERSATION_FORMAT_ERROR");
  });
});

/**
 * Create, retrieve and delete over HTTP against the local API and DynamoDB Local, as one tenant per test.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { agentsClient, anAgentRequest } from "../../support/agents-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const client = agentsClient(api, tenant);

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const weatherTool = {
  type: "function",
  function: { name: "get_weather", description: "Weather for a city", strict: false, parameters: { type: "object", properties: { city: { type: "string" } } } },
};

/** Every field CreateAgentRequest has, set to something other than its default. */
const everyField = {
  model: "mistral-large-latest",
  name: "Support bot",
  instructions: "Answer in French.",
  description: "Answers support questions",
  tools: [
    weatherTool,
    { type: "web_search" },
    { type: "web_search_premium", tool_configuration: { include: ["news"], exclude: null, requires_confirmation: null } },
    { type: "code_interpreter" },
    { type: "image_generation" },
    { type: "document_library", library_ids: ["lib-1"] },
    { type: "connector", connector_id: "conn-1", authorization: { type: "api-key", value: "k" } },
  ],
  completion_args: {
    stop: ["\n\n"],
    presence_penalty: 0.5,
    frequency_penalty: -0.5,
    temperature: 0.2,
    top_p: 0.9,
    max_tokens: 100,
    random_seed: 7,
    prediction: { type: "content", content: "Bonjour" },
    response_format: { type: "json_object" },
    tool_choice: "any",
    reasoning_effort: "low",
  },
  guardrails: [{ block_on_error: true, moderation_llm_v1: { action: "block" } }],
  handoffs: [randomUUID()],
  metadata: { team: "support", tier: 2 },
  version_message: "first cut",
};

describe("POST /v1/agents", () => {
  it("creates version 1 of an agent from model and name alone", async () => {
    const reply = await client.create(anAgentRequest());

    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.body).toMatchObject({
      object: "agent",
      model: "mistral-small-latest",
      name: "helper",
      version: 1,
      versions: [1],
      deployment_chat: false,
      source: "api",
      instructions: null,
      description: null,
      tools: [],
      handoffs: null,
      metadata: null,
      guardrails: null,
      version_message: null,
      owner_id: tenant.caller.principal,
    });
    expect(reply.body.completion_args).toMatchObject({ response_format: { type: "text" }, tool_choice: "auto" });
    expect(reply.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.body.created_at).toMatch(ISO);
    expect(reply.body.updated_at).toBe(reply.body.created_at);
  });

  it("keeps every field of CreateAgentRequest and answers them back", async () => {
    const reply = await client.create(everyField);

    expect(reply.status).toBe(200);
    const { version_message, ...fields } = everyField;
    expect(reply.body).toMatchObject({ ...fields, version_message, version: 1 });
    expect(reply.body.guardrails).toEqual([
      { block_on_error: true, moderation_llm_v1: { action: "block", model_name: "mistral-moderation-2411", ignore_other_categories: false } },
    ]);
    const read = await client.get(reply.body.id);
    expect(read.body).toEqual(reply.body);
  });

  it("rejects unknown fields, and a missing model or name, with 422 detail", async () => {
    const unknown = await client.create(anAgentRequest({ colour: "blue" }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toContainEqual(expect.objectContaining({ loc: ["body", "colour"], type: "extra_forbidden" }));

    const missing = await client.create({ name: "no model" });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toContainEqual(expect.objectContaining({ loc: ["body", "model"], type: "missing" }));

    const noName = await client.create({ model: "mistral-small-latest" });
    expect(noName.status).toBe(422);
    expect(noName.body.detail).toContainEqual(expect.objectContaining({ loc: ["body", "name"], type: "missing" }));
  });

  it("rejects out-of-range completion_args, unknown tool kinds and unknown fields inside completion_args", async () => {
    for (const body of [
      anAgentRequest({ completion_args: { temperature: 1.5 } }),
      anAgentRequest({ completion_args: { seed: 1 } }),
      anAgentRequest({ tools: [{ type: "teleport" }] }),
      anAgentRequest({ handoffs: [] }),
      anAgentRequest({ version_message: "x".repeat(501) }),
    ]) {
      const reply = await client.create(body);
      expect(reply.status, JSON.stringify(body)).toBe(422);
    }
  });

  it("refuses a model the catalog does not have, or one that cannot chat, with 400", async () => {
    const unknown = await client.create(anAgentRequest({ model: "no-such-model" }));
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ object: "error", type: "invalid_request_error", code: "invalid_model", param: "model" });

    const embeddings = await client.create(anAgentRequest({ model: "mistral-embed" }));
    expect(embeddings.status).toBe(400);
    expect(embeddings.body).toMatchObject({ code: "model_capability_missing", param: "model" });
  });

  it("takes a model by its alias and keeps the name it was given", async () => {
    const reply = await client.create(anAgentRequest({ model: "mistral-small" }));
    expect(reply.status).toBe(200);
    expect(reply.body.model).toBe("mistral-small");
  });
});

describe("GET /v1/agents/{agent_id}", () => {
  it("answers the agent as created", async () => {
    const created = (await client.create(anAgentRequest({ instructions: "Be brief." }))).body;

    const reply = await client.get(created.id);

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(created);
  });

  it("answers 404 for an unknown id, a malformed id and another workspace's agent", async () => {
    const theirs = (await agentsClient(api, await newTenant()).create(anAgentRequest())).body;

    for (const id of [randomUUID(), "not-an-id", theirs.id]) {
      const reply = await client.get(id);
      expect(reply.status, id).toBe(404);
      expect(reply.body).toMatchObject({ object: "error", type: "not_found_error", code: "agent_not_found" });
    }
  });
});

describe("DELETE /v1/agents/{agent_id}", () => {
  it("answers 204 with no body, after which the agent and every version are gone", async () => {
    const agent = (await client.create(anAgentRequest())).body;
    await client.update(agent.id, { description: "v2" });

    const reply = await client.remove(agent.id);

    expect(reply.status).toBe(204);
    expect(reply.body).toBe("");
    expect((await client.get(agent.id)).status).toBe(404);
    expect((await client.getVersion(agent.id, 1)).status).toBe(404);
    expect((await client.listVersions(agent.id)).status).toBe(404);
    expect((await client.update(agent.id, { description: "v3" })).status).toBe(404);
    expect((await client.switchVersion(agent.id, 1)).status).toBe(404);
    expect((await client.list()).body).toEqual([]);
  });

  it("answers 404 the second time and for another workspace's agent, which stays", async () => {
    const agent = (await client.create(anAgentRequest())).body;
    expect((await client.remove(agent.id)).status).toBe(204);
    expect((await client.remove(agent.id)).status).toBe(404);

    const other = agentsClient(api, await newTenant());
    const theirs = (await other.create(anAgentRequest())).body;
    expect((await client.remove(theirs.id)).status).toBe(404);
    expect((await other.get(theirs.id)).status).toBe(200);
  });
});

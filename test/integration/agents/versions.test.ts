/**
 * Versions: PATCH writes a new current version, PATCH .../version switches, versions are listed and read
 * by number, and `agent_version` takes a number or an alias (the OpenAPI's alias routes).
 */
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { agentsClient, anAgentRequest } from "../../support/agents-client.js";

const { api, tenant } = useEmbeddedApi();
const client = agentsClient(api, tenant);

/** An agent with `count` versions: version n has description `v<n>`. */
async function agentWithVersions(count: number, extra: Record<string, unknown> = {}) {
  const agent = (await client.create(anAgentRequest({ description: "v1", ...extra }))).body;
  for (let n = 2; n <= count; n += 1) {
    const reply = await client.update(agent.id, { description: `v${n}` });
    expect(reply.status).toBe(200);
  }
  return agent as { id: string; created_at: string };
}

describe("PATCH /v1/agents/{agent_id}", () => {
  it("writes a new version that becomes current, keeping the fields it does not name", async () => {
    const agent = (await client.create(anAgentRequest({ instructions: "Be brief.", metadata: { team: "a" }, completion_args: { temperature: 0.3 } }))).body;

    const reply = await client.update(agent.id, { name: "renamed", description: "now described", version_message: "rename" });

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: agent.id,
      version: 2,
      versions: [1, 2],
      name: "renamed",
      description: "now described",
      instructions: "Be brief.",
      metadata: { team: "a" },
      model: "mistral-small-latest",
      version_message: "rename",
      created_at: agent.created_at,
    });
    expect(reply.body.completion_args.temperature).toBe(0.3);
    expect(Date.parse(reply.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(agent.updated_at));
    expect((await client.get(agent.id)).body).toEqual(reply.body);
  });

  it("clears a nullable field given as null, leaves model and name given as null, and does not inherit version_message", async () => {
    const agent = (await client.create(anAgentRequest({ description: "d", version_message: "first" }))).body;

    const reply = await client.update(agent.id, { description: null, name: null, model: null });

    expect(reply.body).toMatchObject({ description: null, name: "helper", model: "mistral-small-latest", version_message: null, version: 2 });
  });

  it("sets deployment_chat, replaces tools and completion_args, and changes the model to another chat model", async () => {
    const agent = (await client.create(anAgentRequest({ completion_args: { temperature: 0.3, max_tokens: 5 } }))).body;

    const reply = await client.update(agent.id, { deployment_chat: true, tools: [{ type: "web_search" }], completion_args: { top_p: 0.5 }, model: "codestral-latest" });

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ deployment_chat: true, tools: [{ type: "web_search" }], model: "codestral-latest" });
    expect(reply.body.completion_args).toMatchObject({ top_p: 0.5, temperature: null, max_tokens: null });
  });

  it("refuses unknown fields (422), a model that cannot chat (400), and an unknown agent (404), writing no version", async () => {
    const agent = (await client.create(anAgentRequest())).body;

    expect((await client.update(agent.id, { colour: "blue" })).status).toBe(422);
    expect((await client.update(agent.id, { model: "mistral-embed" })).status).toBe(400);
    expect((await client.update(agent.id, { model: "no-such-model" })).status).toBe(400);
    expect((await client.update("3b241101-e2bb-4255-8caf-4136c566a962", { name: "x" })).status).toBe(404);
    expect((await client.get(agent.id)).body.versions).toEqual([1]);
  });
});

describe("GET /v1/agents/{agent_id}/versions", () => {
  it("lists every version newest first, each as the agent was at that version", async () => {
    const agent = await agentWithVersions(3);

    const reply = await client.listVersions(agent.id);

    expect(reply.status).toBe(200);
    expect(reply.body.map((a: { version: number }) => a.version)).toEqual([3, 2, 1]);
    expect(reply.body.map((a: { description: string }) => a.description)).toEqual(["v3", "v2", "v1"]);
    for (const version of reply.body) expect(version).toMatchObject({ id: agent.id, versions: [1, 2, 3], object: "agent" });
  });

  it("pages with page and page_size (default 20), and answers an empty page past the end", async () => {
    const agent = await agentWithVersions(23);

    const first = await client.listVersions(agent.id);
    expect(first.body.map((a: { version: number }) => a.version)).toEqual(Array.from({ length: 20 }, (_, i) => 23 - i));
    const second = await client.listVersions(agent.id, { page: 1 });
    expect(second.body.map((a: { version: number }) => a.version)).toEqual([3, 2, 1]);
    const small = await client.listVersions(agent.id, { page: 2, page_size: 5 });
    expect(small.body.map((a: { version: number }) => a.version)).toEqual([13, 12, 11, 10, 9]);
    expect((await client.listVersions(agent.id, { page: 5, page_size: 5 })).body).toEqual([]);
  });

  it("refuses page_size over 100 with 422", async () => {
    const agent = await agentWithVersions(1);
    expect((await client.listVersions(agent.id, { page_size: 101 })).status).toBe(422);
  });
});

describe("GET /v1/agents/{agent_id}/versions/{version}", () => {
  it("answers the agent as of that version, with the version's own time as updated_at", async () => {
    const agent = await agentWithVersions(3);
    const listed = (await client.listVersions(agent.id)).body;

    const reply = await client.getVersion(agent.id, 2);

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ version: 2, versions: [1, 2, 3], description: "v2" });
    expect(reply.body).toEqual(listed[1]);
  });

  it("answers 404 for a version that does not exist", async () => {
    const agent = await agentWithVersions(2);
    for (const version of ["3", "0", "nope"]) {
      const reply = await client.getVersion(agent.id, version);
      expect(reply.status, version).toBe(404);
      expect(reply.body).toMatchObject({ code: "agent_version_not_found" });
    }
  });
});

describe("PATCH /v1/agents/{agent_id}/version", () => {
  it("makes an existing version current; the next PATCH builds on it as a new version", async () => {
    const agent = await agentWithVersions(3, { instructions: "original" });

    const reply = await client.switchVersion(agent.id, 1);

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ version: 1, versions: [1, 2, 3], description: "v1" });
    expect((await client.get(agent.id)).body).toMatchObject({ version: 1, description: "v1" });

    const next = await client.update(agent.id, { name: "from v1" });
    expect(next.body).toMatchObject({ version: 4, versions: [1, 2, 3, 4], description: "v1", name: "from v1", instructions: "original" });
  });

  it("answers 404 for an unknown version, 422 without a version, and leaves the current one", async () => {
    const agent = await agentWithVersions(2);

    const unknown = await client.switchVersion(agent.id, 3);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ type: "not_found_error", code: "agent_version_not_found" });
    expect((await client.call("PATCH", `/v1/agents/${agent.id}/version`)).status).toBe(422);
    expect((await client.switchVersion(agent.id, "two")).status).toBe(422);
    expect((await client.get(agent.id)).body.version).toBe(2);
  });
});

describe("GET /v1/agents/{agent_id}?agent_version=", () => {
  it("reads a version by number", async () => {
    const agent = await agentWithVersions(3);

    const reply = await client.get(agent.id, { agent_version: 2 });

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ version: 2, description: "v2" });
    expect((await client.get(agent.id)).body.version).toBe(3);
  });

  it("reads a version by alias, following the alias when it moves", async () => {
    const agent = await agentWithVersions(3);
    const put = await client.putAlias(agent.id, "stable", 1);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ alias: "stable", version: 1 });

    expect((await client.get(agent.id, { agent_version: "stable" })).body).toMatchObject({ version: 1, description: "v1" });
    expect((await client.getVersion(agent.id, "stable")).body.version).toBe(1);

    const moved = await client.putAlias(agent.id, "stable", 2);
    expect(moved.body).toMatchObject({ alias: "stable", version: 2, created_at: put.body.created_at });
    expect((await client.get(agent.id, { agent_version: "stable" })).body.description).toBe("v2");
  });

  it("answers 404 for an unknown version number or alias", async () => {
    const agent = await agentWithVersions(1);
    expect((await client.get(agent.id, { agent_version: 2 })).status).toBe(404);
    expect((await client.get(agent.id, { agent_version: "canary" })).status).toBe(404);
  });
});

describe("aliases: PUT /v1/agents/{agent_id}/aliases, GET /v1/agents/{agent_id}/aliases, DELETE /v1/agents/{agent_id}/aliases", () => {
  it("lists, moves and deletes aliases; an alias must name an existing version", async () => {
    const agent = await agentWithVersions(2);
    await client.putAlias(agent.id, "prod", 1);
    await client.putAlias(agent.id, "canary", 2);

    const listed = await client.listAliases(agent.id);
    expect(listed.status).toBe(200);
    expect(listed.body.map((a: { alias: string; version: number }) => [a.alias, a.version]).toSorted()).toEqual([
      ["canary", 2],
      ["prod", 1],
    ]);

    expect((await client.putAlias(agent.id, "prod", 3)).status).toBe(404);
    expect((await client.putAlias(agent.id, "Prod", 1)).status).toBe(422);
    expect((await client.putAlias(agent.id, "123", 1)).status).toBe(422);

    const removed = await client.removeAlias(agent.id, "prod");
    expect(removed.status).toBe(204);
    expect((await client.removeAlias(agent.id, "prod")).status).toBe(404);
    expect((await client.listAliases(agent.id)).body.map((a: { alias: string }) => a.alias)).toEqual(["canary"]);
  });

  it("go with the agent when it is deleted", async () => {
    const agent = await agentWithVersions(1);
    await client.putAlias(agent.id, "prod", 1);
    await client.remove(agent.id);
    expect((await client.listAliases(agent.id)).status).toBe(404);
  });
});

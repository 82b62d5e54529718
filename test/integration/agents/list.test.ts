/**
 * The two lists: GET /v1/agents (deprecated; page numbers) and GET /v1/agents/pages (cursor), both newest
 * first, with the OpenAPI's filters, and only the caller's workspace's agents.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { agentsClient, anAgentRequest } from "../../support/agents-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const client = agentsClient(api, tenant);

type Agent = { id: string; name: string; version: number };
const names = (agents: Agent[]) => agents.map((a) => a.name);

/** `count` agents named a0, a1, ... created in that order. */
async function agents(count: number, extra: (i: number) => Record<string, unknown> = () => ({})): Promise<Agent[]> {
  const out: Agent[] = [];
  for (let i = 0; i < count; i += 1) out.push((await client.create(anAgentRequest({ name: `a${i}`, ...extra(i) }))).body);
  return out;
}

/** Every page of /v1/agents/pages, following next_page_token. */
async function allPages(query: Record<string, string | number | string[]> = {}) {
  const pages: { data: Agent[]; next_page_token: string | null }[] = [];
  let token: string | undefined;
  do {
    const reply = await client.listPages({ ...query, page_token: token });
    expect(reply.status).toBe(200);
    pages.push(reply.body);
    token = reply.body.next_page_token ?? undefined;
  } while (token && pages.length < 50);
  return pages;
}

describe("GET /v1/agents (deprecated)", () => {
  it("answers a bare array of the workspace's agents, newest first, 20 by default", async () => {
    await agents(22);

    const reply = await client.list();

    expect(reply.status).toBe(200);
    expect(Array.isArray(reply.body)).toBe(true);
    expect(names(reply.body)).toEqual(Array.from({ length: 20 }, (_, i) => `a${21 - i}`));
    expect(names((await client.list({ page: 1 })).body)).toEqual(["a1", "a0"]);
  });

  it("pages with page and page_size, and answers [] past the end", async () => {
    await agents(5);

    expect(names((await client.list({ page: 0, page_size: 2 })).body)).toEqual(["a4", "a3"]);
    expect(names((await client.list({ page: 1, page_size: 2 })).body)).toEqual(["a2", "a1"]);
    expect(names((await client.list({ page: 2, page_size: 2 })).body)).toEqual(["a0"]);
    expect((await client.list({ page: 3, page_size: 2 })).body).toEqual([]);
  });

  it("shows each agent at its current version", async () => {
    const [agent] = await agents(1);
    await client.update(agent!.id, { name: "renamed" });

    expect((await client.list()).body).toMatchObject([{ id: agent!.id, name: "renamed", version: 2 }]);
  });

  it("refuses a page_size over 1000 or a negative page with 422", async () => {
    expect((await client.list({ page_size: 1001 })).status).toBe(422);
    expect((await client.list({ page: -1 })).status).toBe(422);
  });
});

describe("GET /v1/agents/pages", () => {
  it("pages by cursor through every agent exactly once, newest first, with a null token on the last page", async () => {
    await agents(7);

    const pages = await allPages({ page_size: 3 });

    expect(pages.map((p) => names(p.data))).toEqual([["a6", "a5", "a4"], ["a3", "a2", "a1"], ["a0"]]);
    expect(pages.at(-1)!.next_page_token).toBeNull();
    for (const page of pages) expect(page).toMatchObject({ object: "list" });
  });

  it("answers a null token when the last page is exactly full", async () => {
    await agents(4);

    const pages = await allPages({ page_size: 2 });

    expect(pages.map((p) => p.data.length)).toEqual([2, 2]);
    expect(pages[1]!.next_page_token).toBeNull();
  });

  it("answers 20 per page by default", async () => {
    await agents(21);

    const first = await client.listPages();

    expect(first.body.data).toHaveLength(20);
    expect(first.body.next_page_token).toEqual(expect.any(String));
  });

  it("refuses a token that is not one of ours, or another workspace's, with 422", async () => {
    await agents(3);
    const other = agentsClient(api, await newTenant());
    await other.create(anAgentRequest());
    await other.create(anAgentRequest());
    const theirToken = (await other.listPages({ page_size: 1 })).body.next_page_token;
    expect(theirToken).toEqual(expect.any(String));

    for (const token of ["garbage", Buffer.from("{}").toString("base64url"), Buffer.from("[1]").toString("base64url"), theirToken]) {
      const reply = await client.listPages({ page_token: token });
      expect(reply.status, token).toBe(422);
      expect(reply.body.detail).toContainEqual(expect.objectContaining({ loc: ["query", "page_token"] }));
    }
  });

  it("shows only the caller's workspace's agents", async () => {
    await agents(2);
    await agentsClient(api, await newTenant()).create(anAgentRequest({ name: "elsewhere" }));

    const pages = await allPages();

    expect(pages.flatMap((p) => names(p.data)).toSorted()).toEqual(["a0", "a1"]);
    expect(names((await client.list()).body).toSorted()).toEqual(["a0", "a1"]);
  });

  it("shows the workspace's agents to every key of the workspace, whoever created them", async () => {
    const [agent] = await agents(1);
    const colleague = agentsClient(api, await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace }));

    expect((await colleague.listPages()).body.data.map((a: Agent) => a.id)).toEqual([agent!.id]);
    expect((await colleague.get(agent!.id)).status).toBe(200);
  });
});

describe("filters (both lists)", () => {
  beforeEach(async () => {
    await agents(4, (i) => ({ metadata: { team: i % 2 ? "odd" : "even", rank: i }, description: `agent ${i}` }));
  });

  const both = async (query: Record<string, string | string[]>) => {
    const listed = names((await client.list(query)).body);
    const paged = names((await client.listPages(query)).body.data);
    expect(paged).toEqual(listed);
    return listed;
  };

  it("filters by exact name and by id", async () => {
    expect(await both({ name: "a2" })).toEqual(["a2"]);
    expect(await both({ name: "a" })).toEqual([]);
    const [third] = (await client.list({ name: "a3" })).body;
    expect(await both({ id: third.id })).toEqual(["a3"]);
  });

  it("searches names (case-insensitive) and ids", async () => {
    await client.create(anAgentRequest({ name: "Support Bot" }));
    expect(await both({ search: "support" })).toEqual(["Support Bot"]);
    const [first] = (await client.list({ name: "a0" })).body;
    expect(await both({ search: first.id.slice(0, 13) })).toEqual(["a0"]);
  });

  it("filters by deployment_chat", async () => {
    const [first] = (await client.list({ name: "a1" })).body;
    await client.update(first.id, { deployment_chat: true });
    expect(await both({ deployment_chat: "true" })).toEqual(["a1"]);
    expect(await both({ deployment_chat: "false" })).toEqual(["a3", "a2", "a0"]);
  });

  it("filters by sources (repeated)", async () => {
    expect(await both({ sources: ["api", "playground"] })).toEqual(["a3", "a2", "a1", "a0"]);
    expect(await both({ sources: "playground" })).toEqual([]);
    expect((await client.list({ sources: "elsewhere" })).status).toBe(422);
  });

  it("filters by metadata given as a JSON object: every key must match", async () => {
    expect(await both({ metadata: JSON.stringify({ team: "odd" }) })).toEqual(["a3", "a1"]);
    expect(await both({ metadata: JSON.stringify({ team: "odd", rank: 1 }) })).toEqual(["a1"]);
    expect((await client.list({ metadata: "not json" })).status).toBe(422);
    expect((await client.listPages({ metadata: "[1,2]" })).status).toBe(422);
  });

  it("pages through a filtered list by cursor without losing matches", async () => {
    await agents(5, (i) => ({ name: `b${i}`, metadata: { team: "odd" } }));
    const pages = await allPages({ metadata: JSON.stringify({ team: "odd" }), page_size: 2 });
    expect(pages.flatMap((p) => names(p.data))).toEqual(["b4", "b3", "b2", "b1", "b0", "a3", "a1"]);
  });
});

/**
 * Many writers PATCH one agent at once. Each PATCH is a read of the head and one transaction (head
 * conditioned on what was read + a new version item); losers re-read and retry. The ring
 * (test/ring/invariants/agents.ts) holds N parallel PATCHes; this file keeps the field-by-field chain
 * and the race with a version switch.
 */
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { agentsClient, anAgentRequest } from "../../support/agents-client.js";
import { everyVersion } from "../../support/agent-checks.js";

const { api, tenant } = useEmbeddedApi();
const client = agentsClient(api, tenant);

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("concurrent PATCHes of one agent", () => {
  it("chains the versions: each builds on the one before, so no writer's field is overwritten by a stale read", async () => {
    const agent = (await client.create(anAgentRequest({ metadata: {} }))).body;

    // Each writer sets a different field; a lost update would show as a version missing an earlier writer's field.
    const fields = [
      { description: "d" },
      { instructions: "i" },
      { name: "n" },
      { handoffs: ["h"] },
      { deployment_chat: true },
      { completion_args: { temperature: 0.5 } },
      { tools: [{ type: "web_search" }] },
      { guardrails: [{ block_on_error: true }] },
    ];
    const replies = await Promise.all(fields.map((f) => client.update(agent.id, f)));
    expect(replies.every((r) => r.status === 200)).toBe(true);

    const current = (await client.get(agent.id)).body;
    expect(current).toMatchObject({
      version: fields.length + 1,
      description: "d",
      instructions: "i",
      name: "n",
      handoffs: ["h"],
      deployment_chat: true,
      tools: [{ type: "web_search" }],
      guardrails: [{ block_on_error: true }],
    });
    expect(current.completion_args.temperature).toBe(0.5);
  });

  it("keeps the versions contiguous while writers race a version switch", async () => {
    const agent = (await client.create(anAgentRequest({ description: "base" }))).body;
    await client.update(agent.id, { description: "second" });

    const writes = range(1, 10).map((i) => client.update(agent.id, { version_message: `w${i}` }));
    const switches = range(1, 5).map(() => client.switchVersion(agent.id, 1));
    const replies = await Promise.all([...writes, ...switches]);

    expect(replies.every((r) => r.status === 200)).toBe(true);
    const versions = await everyVersion(client, agent.id);
    expect(versions.map((v) => v.version)).toEqual(range(1, 12));
    for (const i of range(1, 10)) expect(versions.filter((v) => v.version_message === `w${i}`)).toHaveLength(1);
  });
});

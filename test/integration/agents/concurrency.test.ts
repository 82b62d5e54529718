/**
 * Many writers PATCH one agent at once. Each PATCH is a read of the head and one transaction (head
 * conditioned on what was read + a new version item); losers re-read and retry. The invariants: every
 * PATCH succeeds with its own version number, the versions are 1..N+1 with no gap, every PATCH's change
 * is in exactly one version, and each version builds on the one before (no update is lost).
 */
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { agentsClient, anAgentRequest } from "../../support/agents-client.js";

const { api, tenant } = useEmbeddedApi();
const client = agentsClient(api, tenant);

const WRITERS = 20;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

type Version = { version: number; description: string | null; metadata: Record<string, number> | null; version_message: string | null };

async function everyVersion(id: string): Promise<Version[]> {
  const reply = await client.listVersions(id, { page_size: 100 });
  expect(reply.status).toBe(200);
  return (reply.body as Version[]).toSorted((a, b) => a.version - b.version);
}

describe("concurrent PATCHes of one agent", () => {
  it(`${WRITERS} parallel writers get distinct, contiguous versions and none of their changes is lost`, async () => {
    const agent = (await client.create(anAgentRequest({ metadata: { seen: 0 } }))).body;

    const replies = await Promise.all(range(1, WRITERS).map((i) => client.update(agent.id, { description: `writer-${i}`, version_message: `writer-${i}` })));

    expect(replies.map((r) => r.status)).toEqual(range(1, WRITERS).map(() => 200));
    const answered = replies.map((r) => r.body.version as number).toSorted((a, b) => a - b);
    expect(answered).toEqual(range(2, WRITERS + 1));

    const versions = await everyVersion(agent.id);
    expect(versions.map((v) => v.version)).toEqual(range(1, WRITERS + 1));
    // Each writer's change is in exactly one version, the one it was answered.
    for (const [i, reply] of replies.entries()) {
      const holding = versions.filter((v) => v.version_message === `writer-${i + 1}`);
      expect(holding.map((v) => v.version)).toEqual([reply.body.version]);
      expect(holding[0]!.description).toBe(`writer-${i + 1}`);
    }
    const current = (await client.get(agent.id)).body;
    expect(current).toMatchObject({ version: WRITERS + 1, versions: range(1, WRITERS + 1) });
    expect(current.description).toBe(versions.at(-1)!.description);
  });

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
    const versions = await everyVersion(agent.id);
    expect(versions.map((v) => v.version)).toEqual(range(1, 12));
    for (const i of range(1, 10)) expect(versions.filter((v) => v.version_message === `w${i}`)).toHaveLength(1);
  });
});

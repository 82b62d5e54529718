import { expect } from "vitest";
import { agentsClient, anAgentRequest } from "../../support/agents-client.js";
import { everyVersion } from "../../support/agent-checks.js";
import { fulfilled, invariant, range } from "../invariant.js";

const WRITERS = 20;

invariant({
  name: `agents: ${WRITERS} parallel PATCHes get distinct, contiguous versions and none of their changes is lost`,
  writers: WRITERS,
  async setup({ api, tenant }) {
    const client = agentsClient(api, tenant);
    return { client, agent: (await client.create(anAgentRequest({ metadata: { seen: 0 } }))).body };
  },
  write: ({ client, agent }, i) => client.update(agent.id, { description: `writer-${i + 1}`, version_message: `writer-${i + 1}` }),
  async check({ client, agent }, outcomes) {
    const replies = fulfilled(outcomes);
    expect(replies.map((r) => r.status)).toEqual(range(1, WRITERS).map(() => 200));
    const answered = replies.map((r) => r.body.version as number).toSorted((a, b) => a - b);
    expect(answered).toEqual(range(2, WRITERS + 1));

    const versions = await everyVersion(client, agent.id);
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
  },
});

const ALIAS_WRITERS = 12;
const VERSIONS = 4;

invariant({
  name: `agents: ${ALIAS_WRITERS} parallel alias writes leave every alias once, on a version one of its writers named`,
  writers: ALIAS_WRITERS,
  async setup({ api, tenant }) {
    const client = agentsClient(api, tenant);
    const agent = (await client.create(anAgentRequest())).body;
    for (const i of range(2, VERSIONS)) await client.update(agent.id, { description: `v${i}` });
    return { client, agent };
  },
  // Every writer moves the shared alias and sets its own; all of them to versions 1..VERSIONS in turn.
  async write({ client, agent }, i) {
    const version = (i % VERSIONS) + 1;
    const [shared, own] = await Promise.all([client.putAlias(agent.id, "live", version), client.putAlias(agent.id, `own${i}`, version)]);
    return { version, shared, own };
  },
  async check({ client, agent }, outcomes) {
    const writes = fulfilled(outcomes);
    for (const w of writes) expect([w.shared.status, w.own.status]).toEqual([200, 200]);
    const listed = (await client.listAliases(agent.id)).body as { alias: string; version: number }[];
    const names = listed.map((a) => a.alias);
    expect(names.toSorted()).toEqual(["live", ...range(0, ALIAS_WRITERS - 1).map((i) => `own${i}`)].toSorted());
    writes.forEach((w, i) => expect(listed.find((a) => a.alias === `own${i}`)!.version).toBe(w.version));
    const live = listed.find((a) => a.alias === "live")!.version;
    expect(writes.map((w) => w.version)).toContain(live);
    // A read through the alias agrees with the list.
    expect((await client.get(agent.id, { agent_version: "live" })).body.version).toBe(live);
  },
});

import { expect } from "vitest";
import { aPromptBody, aSkillBody, registryClient } from "../../support/registry-client.js";
import { expectConsistent } from "../../support/registry-checks.js";
import { fulfilled, invariant, range } from "../invariant.js";

/** Prompts and skills share one registry; each collection gets the same two entries. */
const COLLECTIONS = [
  { collection: "prompts", body: aPromptBody, definition: (text: string) => ({ content: text }), text: (d: Record<string, unknown>) => d.content },
  { collection: "skills", body: aSkillBody, definition: (text: string) => ({ body: text }), text: (d: Record<string, unknown>) => d.body },
] as const;

for (const { collection, body, definition, text } of COLLECTIONS) {
  const WRITERS = 20;
  invariant({
    name: `${collection}: ${WRITERS} parallel new versions get distinct consecutive numbers, each with its own content and aliases`,
    writers: WRITERS,
    async setup({ api, tenant }) {
      const registry = registryClient(api, tenant, collection);
      return { registry, entry: await registry.created(body({ definition: definition("v1"), aliases: ["prod"] })) };
    },
    write: ({ registry, entry }, i) => registry.createVersion(entry.id, { definition: definition(`writer ${i}`), aliases: ["prod", `w${i}`] }),
    async check({ registry, entry }, outcomes) {
      const replies = fulfilled(outcomes);
      expect(replies.map((r) => r.status)).toStrictEqual(Array(WRITERS).fill(200));
      const numbers = replies.map((r) => r.body.version as number);
      expect([...numbers].sort((a, b) => a - b)).toStrictEqual(range(2, WRITERS + 1));
      const { versions, aliasAt } = await expectConsistent(registry, entry.id);
      expect(versions).toHaveLength(WRITERS + 1);
      // No lost update: every writer's content and own alias are at the number it was given.
      numbers.forEach((version, i) => {
        expect(text(versions[version - 1]!.definition)).toBe(`writer ${i}`);
        expect(aliasAt.get(`w${i}`)).toBe(version);
      });
      // Every writer moved prod; the last version committed holds it.
      expect(aliasAt.get("prod")).toBe(WRITERS + 1);
    },
  });

  const CLAIMS = 8;
  invariant({
    name: `${collection}: one alias stays on exactly one version when ${CLAIMS} versions claim it at once`,
    writers: CLAIMS,
    async setup({ api, tenant }) {
      const registry = registryClient(api, tenant, collection);
      const entry = await registry.created(body({ definition: definition("v1") }));
      for (let i = 2; i <= CLAIMS; i += 1) await registry.versionCreated(entry.id, { definition: definition(`v${i}`) });
      return { registry, entry };
    },
    write: ({ registry, entry }, i) => registry.updateVersion(entry.id, i + 1, { aliases: { values: ["stable", `own${i + 1}`] } }),
    async check({ registry, entry }, outcomes) {
      expect(fulfilled(outcomes).map((r) => r.status)).toStrictEqual(Array(CLAIMS).fill(200));
      const { aliasAt } = await expectConsistent(registry, entry.id);
      expect([...aliasAt.keys()].sort()).toStrictEqual([...range(1, CLAIMS).map((i) => `own${i}`), "stable"]);
      for (const i of range(1, CLAIMS)) expect(aliasAt.get(`own${i}`)).toBe(i);
    },
  });
}

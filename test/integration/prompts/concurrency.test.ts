import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aPromptBody, registryClient } from "../../support/registry-client.js";

const { api, tenant } = useEmbeddedApi();
const prompts = registryClient(api, tenant);

const WRITERS = 20;

interface ListedVersion {
  version: number;
  definition: { content: string };
  aliases: string[];
}

/** The invariants of a prompt at rest: versions 1..latest without gap or repeat, every alias on exactly one of them, reads agreeing. */
async function expectConsistent(id: string): Promise<{ versions: ListedVersion[]; aliasAt: Map<string, number> }> {
  const prompt = (await prompts.get(id)).body;
  const versions: ListedVersion[] = (await prompts.versions(id)).body.data;
  expect(versions.map((v) => v.version)).toStrictEqual(Array.from({ length: prompt.latestVersion }, (_, i) => i + 1));
  const aliasAt = new Map<string, number>();
  for (const version of versions) {
    for (const alias of version.aliases) {
      expect(aliasAt.has(alias), `alias ${alias} on two versions`).toBe(false);
      aliasAt.set(alias, version.version);
    }
  }
  for (const [alias, version] of aliasAt) expect((await prompts.get(id, { alias })).body.version, alias).toBe(version);
  return { versions, aliasAt };
}

describe("concurrent writers on one prompt", () => {
  it(`give ${WRITERS} parallel new versions distinct consecutive numbers, each with its own content and aliases`, async () => {
    const prompt = await prompts.created(aPromptBody({ definition: { content: "v1" }, aliases: ["prod"] }));

    const replies = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) => prompts.createVersion(prompt.id, { definition: { content: `writer ${i}` }, aliases: ["prod", `w${i}`] })),
    );

    expect(replies.map((r) => r.status)).toStrictEqual(Array(WRITERS).fill(200));
    const numbers = replies.map((r) => r.body.version as number);
    expect([...numbers].sort((a, b) => a - b)).toStrictEqual(Array.from({ length: WRITERS }, (_, i) => i + 2));
    const { versions, aliasAt } = await expectConsistent(prompt.id);
    expect(versions).toHaveLength(WRITERS + 1);
    // No lost update: every writer's content and own alias are at the number it was given.
    numbers.forEach((version, i) => {
      expect(versions[version - 1]!.definition.content).toBe(`writer ${i}`);
      expect(aliasAt.get(`w${i}`)).toBe(version);
    });
    // Every writer moved prod; the last version committed holds it.
    expect(aliasAt.get("prod")).toBe(WRITERS + 1);
  });

  it("keep one alias on exactly one version when many versions claim it at once", async () => {
    const prompt = await prompts.created(aPromptBody({ definition: { content: "v1" } }));
    for (let i = 2; i <= 8; i += 1) await prompts.versionCreated(prompt.id, { definition: { content: `v${i}` } });

    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => prompts.updateVersion(prompt.id, i + 1, { aliases: { values: ["stable", `own${i + 1}`] } })));

    expect(replies.map((r) => r.status)).toStrictEqual(Array(8).fill(200));
    const { aliasAt } = await expectConsistent(prompt.id);
    expect([...aliasAt.keys()].sort()).toStrictEqual(["own1", "own2", "own3", "own4", "own5", "own6", "own7", "own8", "stable"]);
    for (let i = 1; i <= 8; i += 1) expect(aliasAt.get(`own${i}`)).toBe(i);
  });

  it("lose nothing when new versions, alias moves and metadata changes interleave", async () => {
    const prompt = await prompts.created(aPromptBody({ definition: { content: "v1" }, aliases: ["stable"] }));

    const replies = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => prompts.createVersion(prompt.id, { definition: { content: `new ${i}` }, aliases: [`n${i}`] })),
      ...Array.from({ length: 4 }, (_, i) => prompts.updateVersion(prompt.id, 1, { notes: `note ${i}`, aliases: { values: ["stable", `m${i}`] } })),
      ...Array.from({ length: 4 }, (_, i) => prompts.update(prompt.id, { title: `title ${i}`, description: `description ${i}` })),
    ]);

    expect(replies.map((r) => r.status)).toStrictEqual(Array(16).fill(200));
    const { aliasAt } = await expectConsistent(prompt.id);
    const latest = (await prompts.get(prompt.id)).body;
    expect(latest.latestVersion).toBe(9);
    for (let i = 0; i < 8; i += 1) expect(aliasAt.get(`n${i}`)).toBeGreaterThan(1);
    // The last version update wins whole: its notes and its alias set on version 1, nothing of the others'.
    const first = (await prompts.get(prompt.id, { version: 1 })).body;
    const winner = Number(/note (\d)/.exec(first.notes)![1]);
    expect(first.aliases).toStrictEqual([`m${winner}`, "stable"]);
    // The same for metadata: title and description come from one request.
    expect(latest.description).toBe(latest.title.replace("title", "description"));
  });
});

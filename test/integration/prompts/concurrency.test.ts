/**
 * Concurrent writers on one prompt. The ring (test/ring/invariants/registry.ts) holds the parallel new
 * versions and the contested alias for prompts and skills; this file keeps the mixed interleaving.
 */
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aPromptBody, registryClient } from "../../support/registry-client.js";
import { expectConsistent } from "../../support/registry-checks.js";

const { api, tenant } = useEmbeddedApi();
const prompts = registryClient(api, tenant);

describe("concurrent writers on one prompt", () => {
  it("lose nothing when new versions, alias moves and metadata changes interleave", async () => {
    const prompt = await prompts.created(aPromptBody({ definition: { content: "v1" }, aliases: ["stable"] }));

    const replies = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => prompts.createVersion(prompt.id, { definition: { content: `new ${i}` }, aliases: [`n${i}`] })),
      ...Array.from({ length: 4 }, (_, i) => prompts.updateVersion(prompt.id, 1, { notes: `note ${i}`, aliases: { values: ["stable", `m${i}`] } })),
      ...Array.from({ length: 4 }, (_, i) => prompts.update(prompt.id, { title: `title ${i}`, description: `description ${i}` })),
    ]);

    expect(replies.map((r) => r.status)).toStrictEqual(Array(16).fill(200));
    const { aliasAt } = await expectConsistent(prompts, prompt.id);
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

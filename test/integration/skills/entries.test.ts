/** The rest of the SDK's beta.skills, served as extension routes by the prompts' machinery. */
import { beforeEach, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aSkillBody, registryClient, type RegistryClient } from "../../support/registry-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const skills = registryClient(api, tenant, "skills");
let stranger: RegistryClient;
beforeEach(async () => {
  stranger = registryClient(api, await newTenant(), "skills");
});

describe("GET /v2/skills/{skill_id}", () => {
  it("answers the latest version, a given version, or the one an alias points at", async () => {
    const skill = await skills.created(aSkillBody({ definition: { body: "one" }, aliases: ["prod"] }));
    await skills.versionCreated(skill.id, { definition: { body: "two" } });

    expect((await skills.get(skill.id)).body).toMatchObject({ version: 2, latestVersion: 2, definition: { body: "two" } });
    expect((await skills.get(skill.id, { version: 1 })).body.definition).toStrictEqual({ body: "one" });
    expect((await skills.get(skill.id, { alias: "prod", fields: "version" })).body).toStrictEqual({ version: 1 });
  });

  it("answers 404 skill_not_found for another workspace's skill", async () => {
    const skill = await skills.created(aSkillBody());

    const reply = await stranger.get(skill.id);

    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe("skill_not_found");
  });
});

describe("PATCH /v2/skills/{skill_id}", () => {
  it("changes the sharing scope and nothing else", async () => {
    const skill = await skills.created(aSkillBody());

    const reply = await skills.update(skill.id, { sharingScope: "workspace", workspaceRelation: "writer" });
    const title = await skills.update(skill.id, { title: "skills have none" });

    expect(reply.body).toMatchObject({ id: skill.id, sharingScope: "workspace" });
    expect(title.status).toBe(422);
    expect(title.body.detail).toStrictEqual([{ loc: ["body", "title"], msg: "Extra inputs are not permitted", type: "extra_forbidden" }]);
  });
});

// Covers GET /v2/skills/{skill_id}/versions, POST /v2/skills/{skill_id}/versions,
// GET /v2/skills/{skill_id}/versions/{version} and PATCH /v2/skills/{skill_id}/versions/{version}.
describe("skill versions", () => {
  it("creates, lists, reads and annotates versions, moving aliases", async () => {
    const skill = await skills.created(aSkillBody({ definition: { body: "one" }, aliases: ["prod"] }));

    expect(await skills.versionCreated(skill.id, { definition: { body: "two" }, aliases: ["prod"], notes: "n2" })).toStrictEqual({ version: 2, deduplicated: false });
    expect((await skills.versions(skill.id)).body.data).toStrictEqual([
      { version: 1, definition: { body: "one" }, aliases: [], createdAt: expect.any(String) },
      { version: 2, definition: { body: "two" }, notes: "n2", aliases: ["prod"], createdAt: expect.any(String) },
    ]);
    expect((await skills.getVersion(skill.id, 1)).body).toMatchObject({ id: skill.id, version: 1, latestVersion: 2 });
    const patched = await skills.updateVersion(skill.id, 1, { notes: "first", aliases: { values: ["prod"] } });
    expect(patched.body).toMatchObject({ version: 1, notes: "first", aliases: ["prod"] });
    expect((await skills.getVersion(skill.id, 2)).body.aliases).toStrictEqual([]);
  });

  it("answers 422 for a prompt definition on a skill version", async () => {
    const skill = await skills.created(aSkillBody());

    const reply = await skills.createVersion(skill.id, { definition: { content: "prompt text" } });

    expect(reply.status).toBe(422);
    expect(reply.body.detail[0]).toMatchObject({ loc: ["body", "definition", "content"], type: "extra_forbidden" });
  });
});

describe("DELETE /v2/skills/{skill_id}", () => {
  it("answers 200 {} and the skill is gone", async () => {
    const skill = await skills.created(aSkillBody());

    const reply = await skills.remove(skill.id);

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({});
    expect((await skills.get(skill.id)).status).toBe(404);
    expect((await skills.list()).body.data).toStrictEqual([]);
  });
});

import { beforeEach, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aPromptBody, aSkillBody, registryClient, type RegistryClient } from "../../support/registry-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const skills = registryClient(api, tenant, "skills");
const prompts = registryClient(api, tenant, "prompts");
let colleagueSkills: RegistryClient;
beforeEach(async () => {
  colleagueSkills = registryClient(api, await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace }), "skills");
});

const names = (data: { name: string }[]) => data.map((s) => s.name);

describe("GET /v2/skills", () => {
  it("answers 200 {data} of Skills, newest first, and never the workspace's prompts", async () => {
    const a = await skills.created(aSkillBody());
    const b = await skills.created(aSkillBody());
    await prompts.created(aPromptBody());

    const reply = await skills.list();

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ data: [b, a].sort((x, y) => y.createdAt.localeCompare(x.createdAt) || (y.id < x.id ? -1 : 1)) });
    expect((await prompts.list()).body.data).toHaveLength(1);
  });

  it("pages with pageSize and nextPageToken in the order of sort_by=name", async () => {
    for (const name of ["d", "b", "a", "c"]) await skills.created(aSkillBody({ name }));

    const first = await skills.list({ pageSize: 3, sort_by: "name" });
    const second = await skills.list({ pageSize: 3, sort_by: "name", pageToken: first.body.nextPageToken });

    expect(names(first.body.data)).toStrictEqual(["a", "b", "c"]);
    expect(second.body).toStrictEqual({ data: [expect.objectContaining({ name: "d" })] });
  });

  it("takes the SDK's sort spellings and a projection", async () => {
    for (const name of ["x", "z", "y"]) await skills.created(aSkillBody({ name }));

    const reply = await skills.list({ "sort.field": "list_sort_field_name", "sort.direction": "list_sort_direction_desc", fields: "name" });

    expect(reply.body.data).toStrictEqual([{ name: "z" }, { name: "y" }, { name: "x" }]);
  });

  it("answers 422 for a prompt-only field in the projection", async () => {
    const reply = await skills.list({ fields: "title" });

    expect(reply.status).toBe(422);
    expect(reply.body.detail[0].loc).toStrictEqual(["query", "fields", 0]);
  });

  it("filters by alias", async () => {
    const tagged = await skills.created(aSkillBody({ aliases: ["prod"] }));
    await skills.created(aSkillBody());

    expect((await skills.list({ alias: "prod" })).body.data.map((s: { id: string }) => s.id)).toStrictEqual([tagged.id]);
  });

  it("shows a member its own skills and the shared ones, not a colleague's private ones", async () => {
    const shared = await skills.created(aSkillBody({ name: "shared", sharingScope: "workspace" }));
    await skills.created(aSkillBody({ name: "private" }));
    await colleagueSkills.created(aSkillBody({ name: "theirs" }));

    expect(names((await colleagueSkills.list({ sort_by: "name" })).body.data)).toStrictEqual(["shared", "theirs"]);
    expect(names((await skills.list({ sort_by: "name" })).body.data)).toStrictEqual(["private", "shared"]);
    expect((await colleagueSkills.get(shared.id)).status).toBe(200);
  });

  it("answers 422 for a bad pageToken, as every cursor-paged list does", async () => {
    const reply = await skills.list({ pageToken: Buffer.from('{"v":1}').toString("base64url") });

    expect(reply.status).toBe(422);
    expect(reply.body.detail).toEqual([{ loc: ["query", "pageToken"], msg: "Invalid page token", type: "value_error" }]);
  });
});

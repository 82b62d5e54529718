import { beforeEach, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aPromptBody, registryClient, type RegistryClient } from "../../support/registry-client.js";
import { newTenant } from "../../support/tenant.js";

/** Two principals of one workspace, and a stranger from another organization. */
const { api, tenant: owner } = useEmbeddedApi();
const mine = registryClient(api, owner);
let colleague: RegistryClient;
let stranger: RegistryClient;

beforeEach(async () => {
  colleague = registryClient(api, await newTenant({ organization: owner.caller.organization, workspace: owner.caller.workspace }));
  stranger = registryClient(api, await newTenant());
});

const ids = (items: { id: string }[]) => items.map((p) => p.id);

describe("a private prompt", () => {
  it("is its creator's alone: another member of the workspace gets 404 on every operation", async () => {
    const prompt = await mine.created(aPromptBody({ aliases: ["prod"] }));

    for (const reply of [
      await colleague.get(prompt.id),
      await colleague.get(prompt.id, { alias: "prod" }),
      await colleague.versions(prompt.id),
      await colleague.getVersion(prompt.id, 1),
      await colleague.update(prompt.id, { title: "mine now" }),
      await colleague.createVersion(prompt.id, { definition: { content: "x" } }),
      await colleague.updateVersion(prompt.id, 1, { notes: "x" }),
      await colleague.remove(prompt.id),
    ]) {
      expect(reply.status).toBe(404);
      expect(reply.body.code).toBe("prompt_not_found");
    }
    expect((await colleague.list()).body.data).toStrictEqual([]);
    expect((await mine.get(prompt.id)).body).toStrictEqual(prompt);
  });

  it("stays out of the creator's list when a colleague creates one, and pages stay full around it", async () => {
    const own: { id: string }[] = [];
    for (let i = 0; i < 4; i += 1) {
      own.push(await mine.created(aPromptBody()));
      await colleague.created(aPromptBody());
      await colleague.created(aPromptBody());
    }

    const first = await mine.list({ pageSize: 2 });
    const second = await mine.list({ pageSize: 2, pageToken: first.body.nextPageToken });

    expect(first.body.data).toHaveLength(2);
    expect(ids([...first.body.data, ...second.body.data])).toStrictEqual(ids(own).reverse());
    expect((await colleague.list()).body.data).toHaveLength(8);
  });
});

describe("a prompt shared with the workspace", () => {
  it("is listed and readable for every member, with its sharing scope", async () => {
    const prompt = await mine.created(aPromptBody({ sharingScope: "workspace" }));

    expect(ids((await colleague.list()).body.data)).toStrictEqual([prompt.id]);
    expect((await colleague.get(prompt.id)).body).toMatchObject({ id: prompt.id, sharingScope: "workspace" });
    expect((await colleague.versions(prompt.id)).body.data).toHaveLength(1);
  });

  it("can be edited by members as writer, the default relation", async () => {
    const prompt = await mine.created(aPromptBody());
    await mine.update(prompt.id, { sharingScope: "workspace" });

    expect((await colleague.update(prompt.id, { title: "Team title" })).status).toBe(200);
    expect(await colleague.versionCreated(prompt.id, { definition: { content: "team v2" }, aliases: ["team"] })).toStrictEqual({ version: 2, deduplicated: false });
    expect((await colleague.updateVersion(prompt.id, 1, { notes: "by colleague" })).status).toBe(200);
    expect((await mine.get(prompt.id, { alias: "team" })).body).toMatchObject({ title: "Team title", version: 2 });
  });

  it("can only be read by members as reader: their writes answer 403", async () => {
    const prompt = await mine.created(aPromptBody({ sharingScope: "workspace", workspaceRelation: "reader" }));

    for (const reply of [
      await colleague.update(prompt.id, { title: "x" }),
      await colleague.createVersion(prompt.id, { definition: { content: "x" } }),
      await colleague.updateVersion(prompt.id, 1, { aliases: { values: ["x"] } }),
    ]) {
      expect(reply.status).toBe(403);
      expect(reply.body).toMatchObject({ type: "permission_error", code: "prompt_read_only" });
    }
    expect((await mine.get(prompt.id)).body).toStrictEqual(prompt);
  });

  it("keeps its sharing and its deletion with the creator: members get 403", async () => {
    const prompt = await mine.created(aPromptBody({ sharingScope: "workspace" }));

    for (const reply of [await colleague.update(prompt.id, { sharingScope: "private" }), await colleague.remove(prompt.id)]) {
      expect(reply.status).toBe(403);
      expect(reply.body.code).toBe("prompt_owner_only");
    }
    expect((await colleague.get(prompt.id)).status).toBe(200);
  });

  it("disappears for members when the creator makes it private again", async () => {
    const prompt = await mine.created(aPromptBody({ sharingScope: "workspace" }));

    await mine.update(prompt.id, { sharingScope: "private" });

    expect((await colleague.get(prompt.id)).status).toBe(404);
    expect((await colleague.list()).body.data).toStrictEqual([]);
  });

  it("keeps the relation when re-shared without one, and sets writer when first shared", async () => {
    const prompt = await mine.created(aPromptBody({ sharingScope: "workspace", workspaceRelation: "reader" }));
    await mine.update(prompt.id, { sharingScope: "workspace" });
    expect((await colleague.update(prompt.id, { title: "x" })).status).toBe(403);

    await mine.update(prompt.id, { sharingScope: "private" });
    await mine.update(prompt.id, { sharingScope: "workspace" });
    expect((await colleague.update(prompt.id, { title: "x" })).status).toBe(200);
  });

  it("is never visible to another workspace", async () => {
    const prompt = await mine.created(aPromptBody({ sharingScope: "workspace" }));

    expect((await stranger.list()).body.data).toStrictEqual([]);
    expect((await stranger.get(prompt.id)).status).toBe(404);
    expect((await stranger.update(prompt.id, { title: "x" })).status).toBe(404);
  });
});

import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aPromptBody, registryClient } from "../../support/registry-client.js";

const { api, tenant } = useEmbeddedApi();
const prompts = registryClient(api, tenant);

describe("PATCH /v2/prompts/{prompt_id}", () => {
  it("sets title and description and answers the Prompt at its latest version", async () => {
    const prompt = await prompts.created(aPromptBody({ notes: "v1 notes" }));
    await prompts.versionCreated(prompt.id, { definition: { content: "v2" }, notes: "v2 notes" });

    const reply = await prompts.update(prompt.id, { title: "Greeter", description: "Says hello" });

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: prompt.id, title: "Greeter", description: "Says hello", version: 2, latestVersion: 2, notes: "v2 notes" });
    expect(reply.body.updatedAt > prompt.updatedAt).toBe(true);
    expect(reply.body.createdAt).toBe(prompt.createdAt);
    expect((await prompts.get(prompt.id)).body).toStrictEqual(reply.body);
  });

  it("clears a field sent as null and leaves the fields not sent", async () => {
    const prompt = await prompts.created(aPromptBody({ title: "Keep", description: "Drop" }));

    const reply = await prompts.update(prompt.id, { description: null });

    expect(reply.body.title).toBe("Keep");
    expect(reply.body).not.toHaveProperty("description");
  });

  it("shares with the workspace and makes it private again", async () => {
    const prompt = await prompts.created(aPromptBody());

    expect((await prompts.update(prompt.id, { sharingScope: "workspace", workspaceRelation: "reader" })).body.sharingScope).toBe("workspace");
    expect((await prompts.update(prompt.id, { sharingScope: "private" })).body.sharingScope).toBe("private");
  });

  it("answers the prompt unchanged for an empty body", async () => {
    const prompt = await prompts.created(aPromptBody({ title: "Same" }));

    const reply = await prompts.update(prompt.id, {});

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual(prompt);
  });

  it("answers 422 for workspaceRelation unless sharingScope is workspace", async () => {
    const prompt = await prompts.created(aPromptBody());

    for (const body of [{ workspaceRelation: "writer" }, { sharingScope: "private", workspaceRelation: "reader" }]) {
      const reply = await prompts.update(prompt.id, body);
      expect(reply.status).toBe(422);
      expect(reply.body.detail).toStrictEqual([{ loc: ["body", "workspaceRelation"], msg: expect.any(String), type: "value_error" }]);
    }
    expect((await prompts.get(prompt.id)).body.sharingScope).toBe("private");
  });

  it("answers 422 extra_forbidden for any other property, such as name or definition", async () => {
    const prompt = await prompts.created(aPromptBody());

    const reply = await prompts.update(prompt.id, { name: "renamed", definition: { content: "x" } });

    expect(reply.status).toBe(422);
    expect(reply.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type])).toStrictEqual([
      [["body", "name"], "extra_forbidden"],
      [["body", "definition"], "extra_forbidden"],
    ]);
  });

  it("answers 422 for an unknown sharing scope", async () => {
    const prompt = await prompts.created(aPromptBody());

    const reply = await prompts.update(prompt.id, { sharingScope: "public" });

    expect(reply.status).toBe(422);
    expect(reply.body.detail[0]).toMatchObject({ loc: ["body", "sharingScope"], type: "enum" });
  });

  it("answers 404 for an unknown prompt", async () => {
    const reply = await prompts.update("00000000-0000-4000-8000-000000000000", { title: "x" });

    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe("prompt_not_found");
  });
});

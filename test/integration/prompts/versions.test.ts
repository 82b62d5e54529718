import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aPromptBody, registryClient } from "../../support/registry-client.js";

const { api, tenant } = useEmbeddedApi();
const prompts = registryClient(api, tenant);

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("POST /v2/prompts/{prompt_id}/versions", () => {
  it("answers 200 {version, deduplicated:false} and the new version becomes the latest", async () => {
    const prompt = await prompts.created(aPromptBody());

    const reply = await prompts.createVersion(prompt.id, { definition: { content: "Bonjour {{nom}}" }, notes: "French" });

    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.body).toStrictEqual({ version: 2, deduplicated: false });
    expect((await prompts.get(prompt.id)).body).toMatchObject({
      version: 2,
      latestVersion: 2,
      notes: "French",
      definition: { content: "Bonjour {{nom}}", variables: [{ name: "nom" }] },
    });
  });

  it("moves the aliases it names to the new version", async () => {
    const prompt = await prompts.created(aPromptBody({ aliases: ["prod", "stable"] }));

    await prompts.versionCreated(prompt.id, { definition: { content: "v2" }, aliases: ["prod", "canary"] });

    expect((await prompts.get(prompt.id, { version: 1 })).body.aliases).toStrictEqual(["stable"]);
    expect((await prompts.get(prompt.id, { version: 2 })).body.aliases).toStrictEqual(["canary", "prod"]);
  });

  it("deduplicates a request repeating the latest definition and notes, still moving its aliases", async () => {
    const prompt = await prompts.created(aPromptBody({ definition: { content: "same" }, notes: "n" }));
    await prompts.versionCreated(prompt.id, { definition: { content: "other" } });
    await prompts.versionCreated(prompt.id, { definition: { content: "same" }, notes: "n", aliases: ["old"] });

    const again = await prompts.versionCreated(prompt.id, { definition: { content: "same", variables: [] }, notes: "n", aliases: ["prod"] });

    expect(again).toStrictEqual({ version: 3, deduplicated: true });
    expect((await prompts.get(prompt.id)).body).toMatchObject({ latestVersion: 3, aliases: ["old", "prod"] });
  });

  it("answers 422 for a body without definition or with unknown properties", async () => {
    const prompt = await prompts.created(aPromptBody());

    const missing = await prompts.createVersion(prompt.id, { notes: "x" });
    const extra = await prompts.createVersion(prompt.id, { definition: { content: "x" }, title: "no" });

    expect(missing.body.detail).toStrictEqual([{ loc: ["body", "definition"], msg: "Field required", type: "missing" }]);
    expect(extra.body.detail).toStrictEqual([{ loc: ["body", "title"], msg: "Extra inputs are not permitted", type: "extra_forbidden" }]);
    expect((await prompts.get(prompt.id)).body.latestVersion).toBe(1);
  });

  it("answers 404 for an unknown prompt", async () => {
    const reply = await prompts.createVersion("00000000-0000-4000-8000-000000000000", { definition: { content: "x" } });
    expect(reply.status).toBe(404);
  });
});

describe("GET /v2/prompts/{prompt_id}/versions", () => {
  it("answers 200 {data} with every version, oldest first, each with its aliases and notes", async () => {
    const prompt = await prompts.created(aPromptBody({ definition: { content: "v1" }, aliases: ["prod"] }));
    await prompts.versionCreated(prompt.id, { definition: { content: "v2" }, notes: "two", aliases: ["beta"] });

    const reply = await prompts.versions(prompt.id);

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({
      data: [
        { version: 1, definition: { content: "v1", variables: [] }, aliases: ["prod"], createdAt: expect.stringMatching(ISO) },
        { version: 2, definition: { content: "v2", variables: [] }, notes: "two", aliases: ["beta"], createdAt: expect.stringMatching(ISO) },
      ],
    });
  });

  it("answers 404 for an unknown prompt", async () => {
    expect((await prompts.versions("00000000-0000-4000-8000-000000000000")).status).toBe(404);
  });
});

describe("GET /v2/prompts/{prompt_id}/versions/{version}", () => {
  it("answers the Prompt at that version", async () => {
    const prompt = await prompts.created(aPromptBody({ definition: { content: "v1" }, title: "T" }));
    await prompts.versionCreated(prompt.id, { definition: { content: "v2" } });

    const reply = await prompts.getVersion(prompt.id, 1);

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: prompt.id, title: "T", version: 1, latestVersion: 2, definition: { content: "v1" } });
  });

  it("projects onto fields", async () => {
    const prompt = await prompts.created(aPromptBody());

    expect((await prompts.getVersion(prompt.id, 1, { fields: ["id", "version"] })).body).toStrictEqual({ id: prompt.id, version: 1 });
  });

  it("answers 404 for a version past the latest and 422 for one that is not a number", async () => {
    const prompt = await prompts.created(aPromptBody());

    const past = await prompts.getVersion(prompt.id, 2);
    expect(past.status).toBe(404);
    expect(past.body.code).toBe("prompt_version_not_found");
    const text = await prompts.getVersion(prompt.id, "latest");
    expect(text.status).toBe(422);
    expect(text.body.detail[0].loc).toStrictEqual(["path", "version"]);
  });
});

describe("PATCH /v2/prompts/{prompt_id}/versions/{version}", () => {
  it("sets the notes of that version only and answers the Prompt at that version", async () => {
    const prompt = await prompts.created(aPromptBody({ notes: "old" }));
    await prompts.versionCreated(prompt.id, { definition: { content: "v2" }, notes: "v2" });

    const reply = await prompts.updateVersion(prompt.id, 1, { notes: "revised" });

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ version: 1, latestVersion: 2, notes: "revised" });
    expect((await prompts.get(prompt.id)).body.notes).toBe("v2");
  });

  it("clears notes sent as null", async () => {
    const prompt = await prompts.created(aPromptBody({ notes: "old" }));

    const reply = await prompts.updateVersion(prompt.id, 1, { notes: null });

    expect(reply.body).not.toHaveProperty("notes");
  });

  it("makes aliases.values exactly the aliases of that version, moving them from other versions", async () => {
    const prompt = await prompts.created(aPromptBody({ aliases: ["prod", "old"] }));
    await prompts.versionCreated(prompt.id, { definition: { content: "v2" }, aliases: ["beta"] });

    const reply = await prompts.updateVersion(prompt.id, 2, { aliases: { values: ["beta", "prod"] } });

    expect(reply.body.aliases).toStrictEqual(["beta", "prod"]);
    expect((await prompts.get(prompt.id, { version: 1 })).body.aliases).toStrictEqual(["old"]);
    const again = await prompts.updateVersion(prompt.id, 2, { aliases: { values: ["prod"] } });
    expect(again.body.aliases).toStrictEqual(["prod"]);
    expect((await prompts.get(prompt.id, { alias: "beta" })).status).toBe(404);
  });

  it("clears the aliases of that version for {values: []} and leaves them for an omitted aliases", async () => {
    const prompt = await prompts.created(aPromptBody({ aliases: ["prod"] }));

    expect((await prompts.updateVersion(prompt.id, 1, { notes: "n" })).body.aliases).toStrictEqual(["prod"]);
    expect((await prompts.updateVersion(prompt.id, 1, { aliases: { values: [] } })).body.aliases).toStrictEqual([]);
    expect((await prompts.updateVersion(prompt.id, 1, { aliases: {} })).body.aliases).toStrictEqual([]);
  });

  it("answers 422 for aliases given as a plain list or with unknown properties", async () => {
    const prompt = await prompts.created(aPromptBody());

    const list = await prompts.updateVersion(prompt.id, 1, { aliases: ["prod"] });
    const extra = await prompts.updateVersion(prompt.id, 1, { definition: { content: "x" } });

    expect(list.status).toBe(422);
    expect(list.body.detail[0].loc).toStrictEqual(["body", "aliases"]);
    expect(extra.body.detail).toStrictEqual([{ loc: ["body", "definition"], msg: "Extra inputs are not permitted", type: "extra_forbidden" }]);
  });

  it("answers 404 for a version that does not exist", async () => {
    const prompt = await prompts.created(aPromptBody());

    const reply = await prompts.updateVersion(prompt.id, 5, { aliases: { values: ["prod"] } });

    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe("prompt_version_not_found");
    expect((await prompts.get(prompt.id, { alias: "prod" })).status).toBe(404);
  });
});

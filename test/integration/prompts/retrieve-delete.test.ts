import { beforeEach, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aPromptBody, registryClient, type RegistryClient } from "../../support/registry-client.js";
import { newTenant } from "../../support/tenant.js";
import { registryStore } from "../../../shared/store/registry.js";

const { api, tenant } = useEmbeddedApi();
const prompts = registryClient(api, tenant);
let stranger: RegistryClient;
beforeEach(async () => {
  stranger = registryClient(api, await newTenant());
});

/** A prompt with three versions: `prod` on 1, `beta` on 2, notes on 2. */
async function aVersionedPrompt() {
  const prompt = await prompts.created(aPromptBody({ definition: { content: "one" }, aliases: ["prod"], title: "Three versions" }));
  await prompts.versionCreated(prompt.id, { definition: { content: "two {{x}}" }, notes: "second", aliases: ["beta"] });
  await prompts.versionCreated(prompt.id, { definition: { content: "three" } });
  return prompt;
}

describe("GET /v2/prompts/{prompt_id}", () => {
  it("answers the latest version by default, with the prompt's own fields", async () => {
    const prompt = await aVersionedPrompt();

    const reply = await prompts.get(prompt.id);

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({
      ...prompt,
      definition: { content: "three", variables: [] },
      version: 3,
      aliases: [],
      latestVersion: 3,
      updatedAt: expect.any(String),
    });
    expect(reply.body.updatedAt > prompt.updatedAt).toBe(true);
  });

  it("answers a given version with its notes and aliases", async () => {
    const prompt = await aVersionedPrompt();

    const reply = await prompts.get(prompt.id, { version: 2 });

    expect(reply.body).toMatchObject({ version: 2, latestVersion: 3, notes: "second", aliases: ["beta"], definition: { content: "two {{x}}", variables: [{ name: "x" }] } });
  });

  it("answers the version an alias points at", async () => {
    const prompt = await aVersionedPrompt();

    expect((await prompts.get(prompt.id, { alias: "prod" })).body).toMatchObject({ version: 1, definition: { content: "one" }, aliases: ["prod"] });
    expect((await prompts.get(prompt.id, { alias: "beta" })).body.version).toBe(2);
  });

  it("projects onto fields", async () => {
    const prompt = await aVersionedPrompt();

    const reply = await prompts.get(prompt.id, { fields: ["version", "aliases"], alias: "beta" });

    expect(reply.body).toStrictEqual({ version: 2, aliases: ["beta"] });
  });

  it("answers 404 for an unknown version and an unknown alias", async () => {
    const prompt = await aVersionedPrompt();

    const version = await prompts.get(prompt.id, { version: 4 });
    const alias = await prompts.get(prompt.id, { alias: "staging" });

    expect(version.status).toBe(404);
    expect(version.body).toMatchObject({ type: "not_found_error", code: "prompt_version_not_found" });
    expect(alias.status).toBe(404);
    expect(alias.body).toMatchObject({ type: "not_found_error", code: "prompt_alias_not_found" });
  });

  it("answers 404 for an unknown id and for another workspace's prompt", async () => {
    const prompt = await aVersionedPrompt();

    for (const reply of [await prompts.get("00000000-0000-4000-8000-000000000000"), await stranger.get(prompt.id)]) {
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({ object: "error", type: "not_found_error", code: "prompt_not_found" });
    }
  });

  it("answers 422 for version and alias together, and for a version that is not a positive integer", async () => {
    const prompt = await aVersionedPrompt();

    expect((await prompts.get(prompt.id, { version: 1, alias: "prod" })).status).toBe(422);
    const reply = await prompts.get(prompt.id, { version: 0 });
    expect(reply.status).toBe(422);
    expect(reply.body.detail[0].loc).toStrictEqual(["query", "version"]);
  });
});

describe("DELETE /v2/prompts/{prompt_id}", () => {
  it("answers 200 {} and the prompt, its versions and aliases are gone", async () => {
    const prompt = await aVersionedPrompt();

    const reply = await prompts.remove(prompt.id);

    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.body).toStrictEqual({});
    expect((await prompts.get(prompt.id)).status).toBe(404);
    expect((await prompts.get(prompt.id, { alias: "prod" })).status).toBe(404);
    expect((await prompts.versions(prompt.id)).status).toBe(404);
    expect((await prompts.list()).body.data).toStrictEqual([]);
  });

  it("removes the version items from the table", async () => {
    const prompt = await aVersionedPrompt();
    const workspace = tenant.caller.workspace;
    expect(await registryStore.listVersions("prompt", workspace, prompt.id)).toHaveLength(3);

    await prompts.remove(prompt.id);

    expect(await registryStore.listVersions("prompt", workspace, prompt.id)).toHaveLength(0);
  });

  it("answers 404 the second time and for another workspace's prompt, which stays", async () => {
    const prompt = await aVersionedPrompt();

    expect((await stranger.remove(prompt.id)).status).toBe(404);
    expect((await prompts.get(prompt.id)).status).toBe(200);
    expect((await prompts.remove(prompt.id)).status).toBe(200);
    expect((await prompts.remove(prompt.id)).status).toBe(404);
  });
});

/**
 * The prompt and skill registries driven by the official, unmodified SDK (`@mistralai/mistralai`):
 * every `beta.prompts.*` and `beta.skills.*` method. What the SDK sends must be accepted, and what the
 * server answers must parse into the SDK's shapes (no null where it wants a field left out).
 */
import { Mistral } from "@mistralai/mistralai";
import type { Prompt, Skill } from "@mistralai/mistralai/models/components";
import { ResponseValidationError, SDKError } from "@mistralai/mistralai/models/errors";
import { beforeEach, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { rejectionOf, sdkClient } from "../support/sdk.js";

const { api, tenant } = useEmbeddedApi();
const sdk = (apiKey: string) => sdkClient(api, apiKey);
let client: Mistral;
beforeEach(() => {
  client = sdk(tenant.key);
});

/** The error a rejected call produced; a ResponseValidationError (our answer broke the SDK's schema) fails the test. */
async function sdkErrorOf(call: Promise<unknown>): Promise<SDKError> {
  const error = await rejectionOf(call);
  expect(error).not.toBeInstanceOf(ResponseValidationError);
  expect(error, "the call should have been rejected").toBeInstanceOf(SDKError);
  return error as SDKError;
}

/** Parsed by the SDK: timestamps became Dates, the sharing scope is one it knows. */
function expectParsed(entry: Prompt | Skill) {
  expect(entry.id).toEqual(expect.any(String));
  expect(entry.createdAt).toBeInstanceOf(Date);
  expect(entry.updatedAt).toBeInstanceOf(Date);
  expect(["private", "workspace"]).toContain(entry.sharingScope);
}

const definition = { content: "Summarize {{text}} in {{language}}." };

describe("beta.prompts", () => {
  it("create: a Prompt at version 1 with its variables, without null fields", async () => {
    const prompt = await client.beta.prompts.create({ name: "summarize", definition, title: null, notes: null, aliases: ["prod"] });

    expectParsed(prompt);
    expect(prompt).toMatchObject({
      name: "summarize",
      version: 1,
      latestVersion: 1,
      aliases: ["prod"],
      sharingScope: "private",
      definition: { content: definition.content, variables: [{ name: "text" }, { name: "language" }] },
    });
    expect(prompt.title).toBeUndefined();
  });

  it("create: shares with the workspace, with the SDK's workspaceRelation", async () => {
    const prompt = await client.beta.prompts.create({ name: "shared", definition, sharingScope: "workspace", workspaceRelation: "reader" });

    expect(prompt.sharingScope).toBe("workspace");
  });

  it("get: latest, by version, by alias, projected", async () => {
    const prompt = await client.beta.prompts.create({ name: "g", definition, aliases: ["prod"] });
    await client.beta.prompts.createVersion(prompt.id!, { definition: { content: "v2" } });

    expect((await client.beta.prompts.get({ promptId: prompt.id! })).version).toBe(2);
    expect((await client.beta.prompts.get({ promptId: prompt.id!, version: 1 })).definition?.content).toBe(definition.content);
    expect((await client.beta.prompts.get({ promptId: prompt.id!, alias: "prod" })).version).toBe(1);
    expect(await client.beta.prompts.get({ promptId: prompt.id!, fields: ["id", "latestVersion"] })).toStrictEqual({ id: prompt.id, latestVersion: 2 });
  });

  it("get: a 404 SDKError for an unknown prompt", async () => {
    const error = await sdkErrorOf(client.beta.prompts.get({ promptId: "00000000-0000-4000-8000-000000000000" }));

    expect(error.statusCode).toBe(404);
    expect(JSON.parse(error.body)).toMatchObject({ type: "not_found_error", code: "prompt_not_found" });
  });

  it("list: iterates every page with pageSize, sorted with the SDK's enum spellings", async () => {
    for (const name of ["c", "a", "e", "b", "d"]) await client.beta.prompts.create({ name, definition });

    const names: string[] = [];
    const pages = await client.beta.prompts.list({ pageSize: 2, sortField: "list_sort_field_name", sortDirectionQueryParameter: "list_sort_direction_asc" });
    for await (const page of pages) names.push(...(page.result.data ?? []).map((p) => p.name!));

    expect(names).toStrictEqual(["a", "b", "c", "d", "e"]);
  });

  it("list: takes sortBy and the REST direction, alias and fields", async () => {
    await client.beta.prompts.create({ name: "x", definition, aliases: ["prod"] });
    await client.beta.prompts.create({ name: "y", definition, aliases: ["prod"] });
    await client.beta.prompts.create({ name: "z", definition });

    const page = await client.beta.prompts.list({ sortBy: "name", sortDirectionQueryParameter1: "desc", alias: "prod", fields: ["name", "version"] });

    expect(page.result).toStrictEqual({ data: [{ name: "y", version: 1 }, { name: "x", version: 1 }] });
  });

  it("updateMetadata: title, description and sharing", async () => {
    const prompt = await client.beta.prompts.create({ name: "u", definition });

    const updated = await client.beta.prompts.updateMetadata(prompt.id!, { title: "Summarizer", description: "Short summaries", sharingScope: "workspace", workspaceRelation: "writer" });

    expectParsed(updated);
    expect(updated).toMatchObject({ title: "Summarizer", description: "Short summaries", sharingScope: "workspace" });
    expect(updated.updatedAt!.getTime()).toBeGreaterThanOrEqual(prompt.updatedAt!.getTime());
  });

  it("createVersion: the next number, not deduplicated; then a repeat is deduplicated", async () => {
    const prompt = await client.beta.prompts.create({ name: "v", definition });

    expect(await client.beta.prompts.createVersion(prompt.id!, { definition: { content: "next" }, notes: "n", aliases: ["beta"] })).toStrictEqual({ version: 2, deduplicated: false });
    expect(await client.beta.prompts.createVersion(prompt.id!, { definition: { content: "next" }, notes: "n" })).toStrictEqual({ version: 2, deduplicated: true });
  });

  it("listVersions: every version with its aliases", async () => {
    const prompt = await client.beta.prompts.create({ name: "l", definition, aliases: ["prod"] });
    await client.beta.prompts.createVersion(prompt.id!, { definition: { content: "v2" }, notes: "second" });

    const versions = await client.beta.prompts.listVersions({ promptId: prompt.id! });

    expect(versions.data?.map((v) => [v.version, v.aliases, v.notes])).toStrictEqual([
      [1, ["prod"], undefined],
      [2, [], "second"],
    ]);
    versions.data?.forEach((v) => expect(v.createdAt).toBeInstanceOf(Date));
  });

  it("getVersion: the Prompt at that version, projected on request", async () => {
    const prompt = await client.beta.prompts.create({ name: "gv", definition });
    await client.beta.prompts.createVersion(prompt.id!, { definition: { content: "v2" } });

    const first = await client.beta.prompts.getVersion({ promptId: prompt.id!, version: 1 });

    expectParsed(first);
    expect(first).toMatchObject({ version: 1, latestVersion: 2, definition: { content: definition.content } });
    expect(await client.beta.prompts.getVersion({ promptId: prompt.id!, version: 2, fields: ["version"] })).toStrictEqual({ version: 2 });
  });

  it("updateVersionMetadata: notes and the exact alias set of a version", async () => {
    const prompt = await client.beta.prompts.create({ name: "uv", definition, aliases: ["prod"] });
    await client.beta.prompts.createVersion(prompt.id!, { definition: { content: "v2" } });

    const updated = await client.beta.prompts.updateVersionMetadata(prompt.id!, 2, { notes: "promoted", aliases: { values: ["prod"] } });

    expect(updated).toMatchObject({ version: 2, notes: "promoted", aliases: ["prod"] });
    expect((await client.beta.prompts.get({ promptId: prompt.id!, version: 1 })).aliases).toStrictEqual([]);
  });

  it("delete: {} and then 404", async () => {
    const prompt = await client.beta.prompts.create({ name: "d", definition });

    expect(await client.beta.prompts.delete({ promptId: prompt.id! })).toStrictEqual({});
    expect((await sdkErrorOf(client.beta.prompts.delete({ promptId: prompt.id! }))).statusCode).toBe(404);
  });

  it("a 422 SDKError with the detail body for a request the server refuses", async () => {
    const error = await sdkErrorOf(client.beta.prompts.updateMetadata("00000000-0000-4000-8000-000000000000", { workspaceRelation: "writer" }));

    expect(error.statusCode).toBe(422);
    expect(JSON.parse(error.body).detail[0].loc).toStrictEqual(["body", "workspaceRelation"]);
  });
});

describe("beta.skills", () => {
  const skillDefinition = {
    description: "Writes changelogs",
    body: "Use the template.",
    assets: { "template.md": { textContent: "## {{version}}" }, "run.sh": { rawContent: Buffer.from("echo hi").toString("base64"), isExecutable: true } },
  };

  it("create: a Skill at version 1 with its definition", async () => {
    const skill = await client.beta.skills.create({ name: "changelog", definition: skillDefinition, aliases: ["prod"], notes: null });

    expectParsed(skill);
    expect(skill).toMatchObject({ name: "changelog", version: 1, latestVersion: 1, aliases: ["prod"], definition: skillDefinition });
    expect(skill.notes).toBeUndefined();
  });

  it("list: iterates pages, sorted", async () => {
    for (const name of ["b", "c", "a"]) await client.beta.skills.create({ name, definition: {} });

    const names: string[] = [];
    for await (const page of await client.beta.skills.list({ pageSize: 2, sortBy: "name" })) names.push(...(page.result.data ?? []).map((s) => s.name!));

    expect(names).toStrictEqual(["a", "b", "c"]);
  });

  it("get, updateMetadata, createVersion, listVersions, getVersion, updateVersionMetadata, delete", async () => {
    const skill = await client.beta.skills.create({ name: "s", definition: { body: "one" }, aliases: ["prod"] });
    const id = skill.id!;

    expect((await client.beta.skills.get({ skillId: id, alias: "prod" })).definition).toStrictEqual({ body: "one" });
    expect((await client.beta.skills.updateMetadata(id, { sharingScope: "workspace" })).sharingScope).toBe("workspace");
    expect(await client.beta.skills.createVersion(id, { definition: { body: "two" }, aliases: ["prod"] })).toStrictEqual({ version: 2, deduplicated: false });
    expect((await client.beta.skills.listVersions({ skillId: id })).data?.map((v) => [v.version, v.aliases])).toStrictEqual([
      [1, []],
      [2, ["prod"]],
    ]);
    expect((await client.beta.skills.getVersion({ skillId: id, version: 1 })).definition).toStrictEqual({ body: "one" });
    expect((await client.beta.skills.updateVersionMetadata(id, 1, { notes: "rollback", aliases: { values: ["prod"] } })).aliases).toStrictEqual(["prod"]);
    expect(await client.beta.skills.delete({ skillId: id })).toStrictEqual({});
    expect((await sdkErrorOf(client.beta.skills.get({ skillId: id }))).statusCode).toBe(404);
  });
});

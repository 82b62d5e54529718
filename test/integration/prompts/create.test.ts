import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aPromptBody, registryClient } from "../../support/registry-client.js";

const { api, tenant } = useEmbeddedApi();
const prompts = registryClient(api, tenant);

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("POST /v2/prompts", () => {
  it("answers 200 JSON with the Prompt at version 1, camelCase, variables derived from the placeholders", async () => {
    const reply = await prompts.create({ name: "welcome", definition: { content: "Hi {{ name }}, from {{team}}. Bye {{name}}." } });

    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.body).toStrictEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "welcome",
      definition: { content: "Hi {{ name }}, from {{team}}. Bye {{name}}.", variables: [{ name: "name" }, { name: "team" }] },
      version: 1,
      aliases: [],
      sharingScope: "private",
      createdAt: expect.stringMatching(ISO),
      updatedAt: reply.body.createdAt,
      latestVersion: 1,
    });
  });

  it("omits null title, description and notes instead of sending null", async () => {
    const reply = await prompts.create(aPromptBody({ title: null, description: null, notes: null }));

    expect(reply.status).toBe(200);
    for (const field of ["title", "description", "notes"]) expect(reply.body).not.toHaveProperty(field);
  });

  it("keeps title, description, notes, sharing and aliases given at creation", async () => {
    const reply = await prompts.create(
      aPromptBody({ title: "Welcome", description: "Greets users", notes: "first cut", sharingScope: "workspace", aliases: ["prod", "beta", "prod"] }),
    );

    expect(reply.body).toMatchObject({ title: "Welcome", description: "Greets users", notes: "first cut", sharingScope: "workspace", aliases: ["beta", "prod"] });
    expect((await prompts.get(reply.body.id, { alias: "prod" })).body.version).toBe(1);
  });

  it("treats sharing_scope_unspecified as private", async () => {
    expect((await prompts.create(aPromptBody({ sharingScope: "sharing_scope_unspecified" }))).body.sharingScope).toBe("private");
  });

  it("accepts declared variables that match the placeholders, in the declared order", async () => {
    const reply = await prompts.create(aPromptBody({ definition: { content: "{{a}} {{b}}", variables: [{ name: "b" }, { name: "a" }] } }));

    expect(reply.status).toBe(200);
    expect(reply.body.definition.variables).toStrictEqual([{ name: "b" }, { name: "a" }]);
  });

  it("answers 422 naming undeclared and unused variables", async () => {
    const reply = await prompts.create(aPromptBody({ definition: { content: "{{a}} {{b}}", variables: [{ name: "a" }, { name: "c" }] } }));

    expect(reply.status).toBe(422);
    expect(reply.body.detail).toStrictEqual([
      { loc: ["body", "definition", "variables"], msg: expect.stringMatching(/not declared: b.*not used in content: c/), type: "value_error" },
    ]);
  });

  it("answers 422 for a variable declared twice", async () => {
    const reply = await prompts.create(aPromptBody({ definition: { content: "{{a}}", variables: [{ name: "a" }, { name: "a" }] } }));

    expect(reply.status).toBe(422);
    expect(reply.body.detail[0].msg).toContain("declared more than once: a");
  });

  it("answers 422 missing for a body without name and definition", async () => {
    const reply = await prompts.create({});

    expect(reply.status).toBe(422);
    expect(reply.body.detail).toEqual(
      expect.arrayContaining([
        { loc: ["body", "name"], msg: "Field required", type: "missing" },
        { loc: ["body", "definition"], msg: "Field required", type: "missing" },
      ]),
    );
  });

  it("answers 422 missing for a definition without content", async () => {
    const reply = await prompts.create(aPromptBody({ definition: { variables: [] } }));

    expect(reply.status).toBe(422);
    expect(reply.body.detail).toStrictEqual([{ loc: ["body", "definition", "content"], msg: "Field required", type: "missing" }]);
  });

  it("answers 422 extra_forbidden for unknown fields, at the top and inside the definition", async () => {
    const reply = await prompts.create(aPromptBody({ model: "x", definition: { content: "hi", template: "jinja" } }));

    expect(reply.status).toBe(422);
    expect(reply.body.detail).toEqual(
      expect.arrayContaining([
        { loc: ["body", "model"], msg: "Extra inputs are not permitted", type: "extra_forbidden" },
        { loc: ["body", "definition", "template"], msg: "Extra inputs are not permitted", type: "extra_forbidden" },
      ]),
    );
  });

  it("answers 422 for workspaceRelation without sharingScope workspace", async () => {
    const reply = await prompts.create(aPromptBody({ workspaceRelation: "writer" }));

    expect(reply.status).toBe(422);
    expect(reply.body.detail).toStrictEqual([{ loc: ["body", "workspaceRelation"], msg: expect.stringContaining("sharingScope"), type: "value_error" }]);
  });

  it("answers 422 for an alias that is not a label", async () => {
    const reply = await prompts.create(aPromptBody({ aliases: ["has space"] }));

    expect(reply.status).toBe(422);
    expect(reply.body.detail[0].loc).toStrictEqual(["body", "aliases", 0]);
  });

  it("answers 413 for a definition larger than one version may store", async () => {
    const reply = await prompts.create(aPromptBody({ definition: { content: "é".repeat(190_000) } }));

    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({ object: "error", code: "definition_too_large" });
  });

  it("gives every prompt its own id", async () => {
    const [a, b] = await Promise.all([prompts.created(aPromptBody()), prompts.created(aPromptBody())]);
    expect(a.id).not.toBe(b.id);
  });
});

import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aSkillBody, registryClient } from "../../support/registry-client.js";

const { api, tenant } = useEmbeddedApi();
const skills = registryClient(api, tenant, "skills");

describe("POST /v2/skills", () => {
  it("answers 200 JSON with the Skill at version 1: the OpenAPI's fields, no title or description", async () => {
    const definition = {
      description: "Formats release notes",
      body: "# Release notes",
      assets: { "template.md": { textContent: "## {{version}}" }, "bin/run.sh": { rawContent: Buffer.from("#!/bin/sh\necho hi\n").toString("base64"), isExecutable: true } },
    };

    const reply = await skills.create({ name: "release-notes", definition, notes: "initial", aliases: ["prod"] });

    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.body).toStrictEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "release-notes",
      definition,
      version: 1,
      notes: "initial",
      aliases: ["prod"],
      sharingScope: "private",
      createdAt: expect.any(String),
      updatedAt: reply.body.createdAt,
      latestVersion: 1,
    });
  });

  it("accepts an empty definition, every field of which is optional", async () => {
    const reply = await skills.create({ name: "empty", definition: {} });

    expect(reply.status).toBe(200);
    expect(reply.body.definition).toStrictEqual({});
  });

  it("answers 422 extra_forbidden for a prompt's title and for unknown definition fields", async () => {
    const reply = await skills.create(aSkillBody({ title: "no", definition: { body: "x", content: "prompt-like" } }));

    expect(reply.status).toBe(422);
    expect(reply.body.detail).toEqual(
      expect.arrayContaining([
        { loc: ["body", "title"], msg: "Extra inputs are not permitted", type: "extra_forbidden" },
        { loc: ["body", "definition", "content"], msg: "Extra inputs are not permitted", type: "extra_forbidden" },
      ]),
    );
  });

  it("answers 422 for an asset with neither text nor raw content, and for raw content that is not base64", async () => {
    const neither = await skills.create(aSkillBody({ definition: { assets: { "a.txt": { isExecutable: true } } } }));
    const notBase64 = await skills.create(aSkillBody({ definition: { assets: { "a.bin": { rawContent: "not base64!" } } } }));

    expect(neither.status).toBe(422);
    expect(neither.body.detail[0].loc.slice(0, 4)).toStrictEqual(["body", "definition", "assets", "a.txt"]);
    expect(notBase64.status).toBe(422);
  });

  it("answers 422 missing without name or definition", async () => {
    const reply = await skills.create({ definition: {} });

    expect(reply.body.detail).toStrictEqual([{ loc: ["body", "name"], msg: "Field required", type: "missing" }]);
  });

  it("answers 422 for workspaceRelation without sharingScope workspace, and shares with it", async () => {
    expect((await skills.create(aSkillBody({ workspaceRelation: "reader" }))).status).toBe(422);
    const shared = await skills.create(aSkillBody({ sharingScope: "workspace", workspaceRelation: "reader" }));
    expect(shared.body.sharingScope).toBe("workspace");
  });
});

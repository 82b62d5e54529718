import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/prompts/retrieve.js";
import type { RegistryHead } from "../../../shared/domain/registry/records.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { REGISTRY_TABLE, aServedEntry } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const retrieve = (id: string, query: Record<string, string | string[]> = {}, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({ path: `/v2/prompts/${id}`, resource: "/v2/prompts/{prompt_id}", pathParameters: { prompt_id: id }, query, caller: who });

/** The caller's prompt with three versions: `prod` on 1, `beta` on 2; version 2 has notes. */
function stored(overrides: Partial<RegistryHead> = {}) {
  return aServedEntry(dynamo, caller, { latestVersion: 3, aliases: { prod: 1, beta: 2 }, title: "T", ...overrides }, [
    { definition: { content: "one", variables: [] } },
    { definition: { content: "two", variables: [] }, notes: "second" },
    { definition: { content: "three", variables: [] } },
  ]).head;
}

const gets = () => dynamo.commandCalls(GetCommand).map((c) => c.args[0].input);

describe("GET /v2/prompts/{prompt_id}", () => {
  it("answers 200 JSON with the Prompt at its latest version", async () => {
    const head = stored();
    const event = retrieve(head.id);

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({
      id: head.id,
      name: head.name,
      definition: { content: "three", variables: [] },
      version: 3,
      aliases: [],
      sharingScope: "private",
      createdAt: head.createdAt,
      updatedAt: head.updatedAt,
      latestVersion: 3,
      title: "T",
    });
  });

  it("reads the head by (workspace, id) and the version from the prompt's partition, strongly consistent", async () => {
    const head = stored();

    await invoke(handler, retrieve(head.id));

    expect(gets()).toStrictEqual([
      { TableName: REGISTRY_TABLE, Key: { pk: `prompt#${caller.workspace}`, sk: `HEAD#${head.id}` }, ConsistentRead: true },
      { TableName: REGISTRY_TABLE, Key: { pk: `prompt#${caller.workspace}#${head.id}`, sk: "V#0000000003" }, ConsistentRead: true },
    ]);
  });

  it("answers a given version with its notes and aliases", async () => {
    const head = stored();

    const response = await invoke(handler, retrieve(head.id, { version: "2" }));

    expect(response.json).toMatchObject({ version: 2, latestVersion: 3, notes: "second", aliases: ["beta"], definition: { content: "two" } });
  });

  it("answers the version an alias points at", async () => {
    const head = stored();

    const response = await invoke(handler, retrieve(head.id, { alias: "prod" }));

    expect(response.json).toMatchObject({ version: 1, aliases: ["prod"], definition: { content: "one" } });
  });

  it("projects onto fields and skips the version read when none of its fields is asked for", async () => {
    const head = stored();

    const response = await invoke(handler, retrieve(head.id, { fields: "id,aliases,version", alias: "beta" }));

    expect(response.json).toStrictEqual({ id: head.id, aliases: ["beta"], version: 2 });
    expect(gets()).toHaveLength(1);
  });

  it("answers a colleague's prompt shared with the workspace", async () => {
    const head = stored({ owner: "someone-else", sharingScope: "workspace", workspaceRelation: "reader" });

    expect((await invoke(handler, retrieve(head.id))).statusCode).toBe(200);
  });

  it("answers 404 for a colleague's private prompt, as for an unknown id", async () => {
    const head = stored({ owner: "someone-else" });

    for (const id of [head.id, "unknown"]) {
      const response = await invoke(handler, retrieve(id));
      expect(response.statusCode).toBe(404);
      expect(response.json).toStrictEqual({ object: "error", message: `No prompt with id '${id}' exists in this workspace`, type: "not_found_error", param: null, code: "prompt_not_found" });
    }
  });

  it("answers 404 for a version past the latest and for an unknown alias", async () => {
    const head = stored();

    const version = await invoke(handler, retrieve(head.id, { version: "4" }));
    const alias = await invoke(handler, retrieve(head.id, { alias: "staging" }));

    expect(version.statusCode).toBe(404);
    expect(version.json).toMatchObject({ code: "prompt_version_not_found", param: "version" });
    expect(alias.statusCode).toBe(404);
    expect(alias.json).toMatchObject({ code: "prompt_alias_not_found", param: "alias" });
  });

  it("answers 422 for version and alias together", async () => {
    const response = await invoke(handler, retrieve("any", { version: "1", alias: "prod" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["query", "alias"]);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, retrieve("any", {}, null))).statusCode).toBe(401);
  });
});

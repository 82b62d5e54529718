import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/prompts/retrieve-version.js";
import type { RegistryHead } from "../../../shared/domain/registry/records.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { REGISTRY_TABLE, aServedEntry } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const retrieveVersion = (id: string, version: string, query: Record<string, string | string[]> = {}, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({
    path: `/v2/prompts/${id}/versions/${version}`,
    resource: "/v2/prompts/{prompt_id}/versions/{version}",
    pathParameters: { prompt_id: id, version },
    query,
    caller: who,
  });

function stored(overrides: Partial<RegistryHead> = {}) {
  return aServedEntry(dynamo, caller, { latestVersion: 2, aliases: { prod: 1 }, description: "D", ...overrides }, [
    { notes: "first", definition: { content: "v1", variables: [] } },
  ]).head;
}

describe("GET /v2/prompts/{prompt_id}/versions/{version}", () => {
  it("answers 200 JSON with the Prompt at that version", async () => {
    const head = stored();

    const response = await invoke(handler, retrieveVersion(head.id, "1"));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      id: head.id,
      name: head.name,
      definition: { content: "v1", variables: [] },
      version: 1,
      notes: "first",
      aliases: ["prod"],
      sharingScope: "private",
      createdAt: head.createdAt,
      updatedAt: head.updatedAt,
      latestVersion: 2,
      description: "D",
    });
    expect(dynamo.commandCalls(GetCommand)[1]!.args[0].input).toStrictEqual({
      TableName: REGISTRY_TABLE,
      Key: { pk: `prompt#${caller.workspace}#${head.id}`, sk: "V#0000000001" },
      ConsistentRead: true,
    });
  });

  it("projects onto fields", async () => {
    const head = stored();

    const response = await invoke(handler, retrieveVersion(head.id, "1", { fields: ["notes", "version"] }));

    expect(response.json).toStrictEqual({ notes: "first", version: 1 });
  });

  it("answers 404 for a version past the latest, without reading it", async () => {
    const head = stored();

    const response = await invoke(handler, retrieveVersion(head.id, "3"));

    expect(response.statusCode).toBe(404);
    expect(response.json).toMatchObject({ code: "prompt_version_not_found", message: `The prompt '${head.id}' has no version 3` });
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(1);
  });

  it("answers 404 for a colleague's private prompt", async () => {
    const head = stored({ owner: "creator" });

    expect((await invoke(handler, retrieveVersion(head.id, "1"))).statusCode).toBe(404);
  });

  it.each(["0", "-1", "1.5", "latest"])("answers 422 for version %s", async (version) => {
    const response = await invoke(handler, retrieveVersion("any", version));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["path", "version"]);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, retrieveVersion("any", "1", {}, null))).statusCode).toBe(401);
  });
});

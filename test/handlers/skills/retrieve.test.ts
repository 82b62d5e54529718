import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/skills/retrieve.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { REGISTRY_TABLE, aServedEntry } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const retrieve = (id: string, query: Record<string, string> = {}, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({ path: `/v2/skills/${id}`, resource: "/v2/skills/{skill_id}", pathParameters: { skill_id: id }, query, caller: who });

function stored() {
  return aServedEntry(dynamo, caller, { kind: "skill", latestVersion: 2, aliases: { prod: 1 } }, [
    { definition: { body: "one" } },
    { definition: { body: "two" } },
  ]).head;
}

describe("GET /v2/skills/{skill_id} (extension)", () => {
  it("answers 200 JSON with the Skill at its latest version, read from the skill partitions", async () => {
    const head = stored();

    const response = await invoke(handler, retrieve(head.id));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: head.id, version: 2, latestVersion: 2, definition: { body: "two" }, aliases: [] });
    expect(dynamo.commandCalls(GetCommand).map((c) => c.args[0].input.Key)).toStrictEqual([
      { pk: `skill#${caller.workspace}`, sk: `HEAD#${head.id}` },
      { pk: `skill#${caller.workspace}#${head.id}`, sk: "V#0000000002" },
    ]);
    expect(dynamo.commandCalls(GetCommand)[0]!.args[0].input.TableName).toBe(REGISTRY_TABLE);
  });

  it("answers the version an alias points at", async () => {
    const head = stored();

    expect((await invoke(handler, retrieve(head.id, { alias: "prod" }))).json).toMatchObject({ version: 1, definition: { body: "one" }, aliases: ["prod"] });
  });

  it("answers 404 skill_not_found for an unknown id", async () => {
    stored();

    const response = await invoke(handler, retrieve("unknown"));

    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("skill_not_found");
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, retrieve("any", {}, null))).statusCode).toBe(401);
  });
});

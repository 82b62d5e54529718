import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/skills/list-versions.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { serveRegistry, aServedEntry } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const listVersions = (id: string, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({ path: `/v2/skills/${id}/versions`, resource: "/v2/skills/{skill_id}/versions", pathParameters: { skill_id: id }, caller: who });

describe("GET /v2/skills/{skill_id}/versions (extension)", () => {
  it("answers 200 JSON {data} of SkillVersions from the skill's partition", async () => {
    const entry = aServedEntry(dynamo, caller, { kind: "skill", latestVersion: 2, aliases: { prod: 2 } }, [
      { definition: { body: "one" }, notes: "n" },
      { definition: { body: "two" } },
    ]);

    const response = await invoke(handler, listVersions(entry.head.id));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      data: [
        { version: 1, definition: { body: "one" }, notes: "n", aliases: [], createdAt: entry.versions[0]!.createdAt },
        { version: 2, definition: { body: "two" }, aliases: ["prod"], createdAt: entry.versions[1]!.createdAt },
      ],
    });
    expect(dynamo.commandCalls(QueryCommand)[0]!.args[0].input.ExpressionAttributeValues).toStrictEqual({ ":pk": `skill#${caller.workspace}#${entry.head.id}` });
  });

  it("answers 404 skill_not_found for an unknown skill", async () => {
    serveRegistry(dynamo, []);

    const response = await invoke(handler, listVersions("unknown"));

    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("skill_not_found");
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, listVersions("any", null))).statusCode).toBe(401);
  });
});

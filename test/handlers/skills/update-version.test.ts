import { TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/skills/update-version.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { aServedEntry } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const updateVersion = (id: string, version: string, body: unknown, who: ReturnType<typeof aCaller> | null = caller) =>
  aJsonEvent(body, {
    method: "PATCH",
    path: `/v2/skills/${id}/versions/${version}`,
    resource: "/v2/skills/{skill_id}/versions/{version}",
    pathParameters: { skill_id: id, version },
    caller: who,
  });

describe("PATCH /v2/skills/{skill_id}/versions/{version} (extension)", () => {
  it("answers 200 JSON with the Skill at that version after one transaction on head and version", async () => {
    const entry = aServedEntry(dynamo, caller, { kind: "skill", latestVersion: 2, aliases: { prod: 2 } });

    const response = await invoke(handler, updateVersion(entry.head.id, "1", { notes: "rollback", aliases: { values: ["prod"] } }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: entry.head.id, version: 1, aliases: ["prod"] });
    const [head, notes] = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(head!.Update).toMatchObject({ Key: { pk: `skill#${caller.workspace}`, sk: `HEAD#${entry.head.id}` }, ExpressionAttributeValues: { ":a0": 1 } });
    expect(notes!.Update).toMatchObject({ Key: { pk: `skill#${caller.workspace}#${entry.head.id}`, sk: "V#0000000001" }, ExpressionAttributeValues: { ":notes": "rollback" } });
  });

  it("answers 404 skill_version_not_found past the latest version", async () => {
    const entry = aServedEntry(dynamo, caller, { kind: "skill" });

    const response = await invoke(handler, updateVersion(entry.head.id, "2", { notes: "x" }));

    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("skill_version_not_found");
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, updateVersion("any", "1", {}, null))).statusCode).toBe(401);
  });
});

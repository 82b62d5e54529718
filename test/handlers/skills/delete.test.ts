import { BatchWriteCommand, DeleteCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/skills/delete.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { REGISTRY_TABLE, serveRegistry, aServedEntry } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const remove = (id: string, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({ method: "DELETE", path: `/v2/skills/${id}`, resource: "/v2/skills/{skill_id}", pathParameters: { skill_id: id }, caller: who });

describe("DELETE /v2/skills/{skill_id} (extension)", () => {
  it("answers 200 {} after deleting the head, then the versions", async () => {
    const entry = aServedEntry(dynamo, caller, { kind: "skill", latestVersion: 2, revision: 3 });

    const response = await invoke(handler, remove(entry.head.id));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({});
    expect(dynamo.commandCalls(DeleteCommand)[0]!.args[0].input).toMatchObject({
      TableName: REGISTRY_TABLE,
      Key: { pk: `skill#${caller.workspace}`, sk: `HEAD#${entry.head.id}` },
      ExpressionAttributeValues: { ":seen": 3 },
    });
    const deleted = dynamo.commandCalls(BatchWriteCommand)[0]!.args[0].input.RequestItems![REGISTRY_TABLE]!.map((r) => r.DeleteRequest!.Key!.sk);
    expect(deleted).toStrictEqual(["V#0000000001", "V#0000000002"]);
  });

  it("answers 404 skill_not_found for an unknown skill", async () => {
    serveRegistry(dynamo, []);

    const response = await invoke(handler, remove("unknown"));

    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("skill_not_found");
    expect(dynamo.commandCalls(DeleteCommand)).toHaveLength(0);
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, remove("any", null))).statusCode).toBe(401);
  });
});

import { TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/skills/create-version.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { aServedEntry } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const createVersion = (id: string, body: unknown, who: ReturnType<typeof aCaller> | null = caller) =>
  aJsonEvent(body, { path: `/v2/skills/${id}/versions`, resource: "/v2/skills/{skill_id}/versions", pathParameters: { skill_id: id }, caller: who });

describe("POST /v2/skills/{skill_id}/versions (extension)", () => {
  it("answers 200 {version, deduplicated} after one transaction on the skill's head and new version", async () => {
    const entry = aServedEntry(dynamo, caller, { kind: "skill", revision: 1 });

    const response = await invoke(handler, createVersion(entry.head.id, { definition: { body: "two" }, aliases: ["prod"] }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ version: 2, deduplicated: false });
    const [update, put] = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(update!.Update).toMatchObject({ Key: { pk: `skill#${caller.workspace}`, sk: `HEAD#${entry.head.id}` }, ExpressionAttributeValues: { ":latestVersion": 2, ":a0": 2 } });
    expect(put!.Put!.Item).toMatchObject({ pk: `skill#${caller.workspace}#${entry.head.id}`, sk: "V#0000000002", definition: { body: "two" } });
  });

  it("answers 422 for a prompt definition", async () => {
    const response = await invoke(handler, createVersion("any", { definition: { content: "x" } }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0]).toMatchObject({ loc: ["body", "definition", "content"], type: "extra_forbidden" });
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, createVersion("any", { definition: {} }, null))).statusCode).toBe(401);
  });
});

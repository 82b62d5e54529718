import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/skills/update.js";
import type { RegistryHead } from "../../../shared/domain/registry/records.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { REGISTRY_TABLE, aServedEntry } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const update = (id: string, body: unknown, who: ReturnType<typeof aCaller> | null = caller) =>
  aJsonEvent(body, { method: "PATCH", path: `/v2/skills/${id}`, resource: "/v2/skills/{skill_id}", pathParameters: { skill_id: id }, caller: who });

function stored(overrides: Partial<RegistryHead> = {}) {
  return aServedEntry(dynamo, caller, { kind: "skill", revision: 2, ...overrides }, [{ definition: { body: "b" } }]).head;
}

describe("PATCH /v2/skills/{skill_id} (extension)", () => {
  it("answers 200 JSON with the Skill, shared with the workspace as writer", async () => {
    const head = stored();

    const response = await invoke(handler, update(head.id, { sharingScope: "workspace" }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: head.id, sharingScope: "workspace", definition: { body: "b" } });
    expect(dynamo.commandCalls(UpdateCommand)[0]!.args[0].input).toMatchObject({
      TableName: REGISTRY_TABLE,
      Key: { pk: `skill#${caller.workspace}`, sk: `HEAD#${head.id}` },
      ConditionExpression: "#revision = :seen",
      ExpressionAttributeValues: { ":seen": 2, ":sharingScope": "workspace", ":workspaceRelation": "writer" },
    });
  });

  it("answers 422 for title or description, which skills do not have", async () => {
    const response = await invoke(handler, update("any", { title: "x", description: "y" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail.map((d: { loc: string[] }) => d.loc)).toStrictEqual([
      ["body", "title"],
      ["body", "description"],
    ]);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("answers 403 to a workspace member changing the sharing of the creator's skill", async () => {
    const head = stored({ owner: "creator", sharingScope: "workspace", workspaceRelation: "writer" });

    const response = await invoke(handler, update(head.id, { sharingScope: "private" }));

    expect(response.statusCode).toBe(403);
    expect(response.json.code).toBe("skill_owner_only");
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, update("any", {}, null))).statusCode).toBe(401);
  });
});

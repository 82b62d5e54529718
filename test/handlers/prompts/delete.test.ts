import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { BatchWriteCommand, DeleteCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/prompts/delete.js";
import type { RegistryHead } from "../../../shared/domain/registry/records.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { REGISTRY_TABLE, aServedEntry } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const remove = (id: string, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({ method: "DELETE", path: `/v2/prompts/${id}`, resource: "/v2/prompts/{prompt_id}", pathParameters: { prompt_id: id }, caller: who });

function stored(overrides: Partial<RegistryHead> = {}) {
  return aServedEntry(dynamo, caller, { latestVersion: 3, revision: 7, ...overrides }).head;
}

const deletes = () => dynamo.commandCalls(DeleteCommand).map((c) => c.args[0].input);

describe("DELETE /v2/prompts/{prompt_id}", () => {
  it("answers 200 JSON {}", async () => {
    const head = stored();
    const event = remove(head.id);

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({});
  });

  it("deletes the head only if nobody wrote it since it was read", async () => {
    const head = stored();

    await invoke(handler, remove(head.id));

    expect(deletes()).toStrictEqual([
      {
        TableName: REGISTRY_TABLE,
        Key: { pk: `prompt#${caller.workspace}`, sk: `HEAD#${head.id}` },
        ConditionExpression: "#revision = :seen",
        ExpressionAttributeNames: { "#revision": "revision" },
        ExpressionAttributeValues: { ":seen": 7 },
      },
    ]);
  });

  it("then deletes every version item of the prompt's partition", async () => {
    const head = stored();

    await invoke(handler, remove(head.id));

    expect(dynamo.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({
      KeyConditionExpression: "#pk = :pk",
      ProjectionExpression: "#pk, #sk",
      ExpressionAttributeValues: { ":pk": `prompt#${caller.workspace}#${head.id}` },
    });
    const batch = dynamo.commandCalls(BatchWriteCommand)[0]!.args[0].input.RequestItems![REGISTRY_TABLE]!;
    expect(batch.map((r) => r.DeleteRequest!.Key)).toStrictEqual(
      [1, 2, 3].map((v) => ({ pk: `prompt#${caller.workspace}#${head.id}`, sk: `V#000000000${v}` })),
    );
  });

  it("still answers {} when removing the versions fails, since nothing reaches them without the head", async () => {
    const head = stored();
    dynamo.on(BatchWriteCommand).rejects(new Error("throttled"));

    const response = await invoke(handler, remove(head.id));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({});
    expect(deletes()).toHaveLength(1);
  });

  it("reads again and retries when the head changed in between", async () => {
    const head = stored();
    dynamo.on(DeleteCommand).rejectsOnce(new ConditionalCheckFailedException({ message: "conditional", $metadata: {} })).resolves({});

    const response = await invoke(handler, remove(head.id));

    expect(response.statusCode).toBe(200);
    expect(deletes()).toHaveLength(2);
  });

  it("answers 403 to a workspace member deleting a shared prompt, deleting nothing", async () => {
    const head = stored({ owner: "creator", sharingScope: "workspace", workspaceRelation: "writer" });

    const response = await invoke(handler, remove(head.id));

    expect(response.statusCode).toBe(403);
    expect(response.json).toMatchObject({ type: "permission_error", code: "prompt_owner_only" });
    expect(deletes()).toHaveLength(0);
    expect(dynamo.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });

  it("answers 404 for an unknown prompt and for a colleague's private one", async () => {
    const head = stored({ owner: "creator" });

    for (const id of ["unknown", head.id]) {
      const response = await invoke(handler, remove(id));
      expect(response.statusCode).toBe(404);
      expect(response.json.code).toBe("prompt_not_found");
    }
    expect(deletes()).toHaveLength(0);
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, remove("any", null))).statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

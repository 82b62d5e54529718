import { randomUUID } from "node:crypto";
import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/retrieval/unregister-deployment.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { conditionFailed, serveTables, type FakeTables } from "../../support/fake-table.js";
import { aDeploymentRecord, aRetrievalItem } from "../../support/retrieval-items.js";

const dynamo = mockDynamo();
const caller = aCaller();
let tables: FakeTables;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
});
const unregister = (id: string, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({ method: "DELETE", path: `/v1/rag/deployments/${id}`, resource: "/v1/rag/deployments/{deployment_id}", pathParameters: { deployment_id: id }, caller: who });

describe("DELETE /v1/rag/deployments/{deployment_id}", () => {
  it("removes the deployment and answers 200 with a JSON null", async () => {
    const record = aDeploymentRecord(caller);
    tables.put("retrieval", aRetrievalItem(record));

    const response = await invoke(handler, unregister(record.id));

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.body).toBe("null");
    expect(tables.items("retrieval")).toEqual([]);
  });

  it("deletes by the name's key on condition that it still holds this id", async () => {
    const record = aDeploymentRecord(caller);
    tables.put("retrieval", aRetrievalItem(record));

    await invoke(handler, unregister(record.id));

    const [deletion] = dynamo.commandCalls(DeleteCommand);
    expect(deletion!.args[0].input).toMatchObject({ Key: { workspace: caller.workspace, sk: "DEPLOYMENT#search" }, ConditionExpression: "#id = :id", ExpressionAttributeValues: { ":id": record.id } });
  });

  it("answers 404 for an unknown id, and for another workspace's deployment, deleting nothing", async () => {
    const theirs = aDeploymentRecord(aCaller());
    tables.put("retrieval", aRetrievalItem(theirs));

    for (const id of [randomUUID(), theirs.id]) {
      const response = await invoke(handler, unregister(id));
      expect(response.statusCode).toBe(404);
      expect(response.json).toMatchObject({ type: "not_found_error", code: "deployment_not_found" });
    }
    expect(dynamo.commandCalls(DeleteCommand)).toHaveLength(0);
    expect(tables.items("retrieval")).toHaveLength(1);
  });

  it("answers 404 when the name was re-registered under another id in between", async () => {
    const record = aDeploymentRecord(caller);
    tables.put("retrieval", aRetrievalItem(record));
    dynamo.on(DeleteCommand).rejectsOnce(conditionFailed());

    const response = await invoke(handler, unregister(record.id));

    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("deployment_not_found");
  });

  it("answers 422 for an id that is not a UUID", async () => {
    const response = await invoke(handler, unregister("nope"));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toEqual(["path", "deployment_id"]);
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, unregister(randomUUID(), null))).statusCode).toBe(401);
  });
});

import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/retrieval/register-deployment.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { aDeploymentBody, aVespaIndex } from "../../support/retrieval-client.js";

const dynamo = mockDynamo();
const caller = aCaller();
let tables: FakeTables;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
});
const register = (body: unknown, who: ReturnType<typeof aCaller> | null = caller) => aJsonEvent(body, { method: "PUT", path: "/v1/rag/deployments", caller: who });

describe("PUT /v1/rag/deployments", () => {
  it("answers 200 with the new deployment's id", async () => {
    const response = await invoke(handler, register(aDeploymentBody("search")));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ id: expect.any(String) });
    expect(tables.items("retrieval")).toMatchObject([
      { workspace: caller.workspace, sk: "DEPLOYMENT#search", idKey: `DEPLOYMENT#${response.json.id}`, id: response.json.id, status: "offline", creatorId: caller.principal, documentCount: 0, revision: 1 },
    ]);
  });

  it("upserts on the name's key in the caller's workspace, so the id of a name is set once", async () => {
    await invoke(handler, register(aDeploymentBody("search")));

    const [update] = dynamo.commandCalls(UpdateCommand);
    expect(update!.args[0].input.Key).toStrictEqual({ workspace: caller.workspace, sk: "DEPLOYMENT#search" });
    expect(update!.args[0].input.UpdateExpression).toContain("#id = if_not_exists(#id, :id)");
    expect(update!.args[0].input.UpdateExpression).toContain("ADD #revision :one");
  });

  it("answers the same id when the name is registered again, with the new definition stored", async () => {
    const first = await invoke(handler, register(aDeploymentBody("search", { status: "online" })));

    const second = await invoke(handler, register(aDeploymentBody("search", { indexes: [aVespaIndex("faq")] }), aCaller({ workspace: caller.workspace })));

    expect(second.json).toStrictEqual(first.json);
    const [item] = tables.items("retrieval");
    expect(item).toMatchObject({ status: "offline", creatorId: caller.principal, revision: 2, deployment: { indexes: [{ name: "faq" }] } });
  });

  it("answers 422 detail for a body without a deployment, and writes nothing", async () => {
    const response = await invoke(handler, register({ name: "search" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["body", "deployment"], msg: "Field required", type: "missing" }]);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it("answers 422 for an index named twice", async () => {
    const response = await invoke(handler, register(aDeploymentBody("search", { indexes: [aVespaIndex("a"), aVespaIndex("a")] })));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toEqual(["body", "deployment", "indexes", 1, "name"]);
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, register(aDeploymentBody(), null))).statusCode).toBe(401);
  });
});

import { randomUUID } from "node:crypto";
import { UpdateCommand, type UpdateCommandInput } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/retrieval/update-metrics.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { applyUpdate, conditionFailed, holds, serveTables, type FakeTables } from "../../support/fake-table.js";
import { aDeploymentRecord, aRetrievalItem } from "../../support/retrieval-items.js";

const dynamo = mockDynamo();
const caller = aCaller();
let tables: FakeTables;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
});
const metrics = (id: string, body: unknown, who: ReturnType<typeof aCaller> | null = caller) =>
  aJsonEvent(body, { method: "PUT", path: `/v1/rag/deployments/${id}/metrics`, resource: "/v1/rag/deployments/{deployment_id}/metrics", pathParameters: { deployment_id: id }, caller: who });

const stored = (overrides: Parameters<typeof aDeploymentRecord>[1] = {}) => {
  const record = aDeploymentRecord(caller, overrides);
  tables.put("retrieval", aRetrievalItem(record));
  return record;
};

describe("PUT /v1/rag/deployments/{deployment_id}/metrics", () => {
  it("sets online with the counts and answers 200 with a JSON null", async () => {
    const record = stored();

    const response = await invoke(handler, metrics(record.id, { status: "online", document_count: 12, index_metrics: [{ name: "docs", document_count: 12 }] }));

    expect(response.statusCode).toBe(200);
    expect(response.body).toBe("null");
    expect(tables.items("retrieval")[0]).toMatchObject({ status: "online", documentCount: 12, indexCounts: { docs: 12 } });
  });

  it("writes online counts only while the definition is the one they were checked against", async () => {
    const record = stored({ revision: 3 });

    await invoke(handler, metrics(record.id, { status: "online", document_count: 1, index_metrics: [] }));

    const [update] = dynamo.commandCalls(UpdateCommand);
    expect(update!.args[0].input).toMatchObject({
      Key: { workspace: caller.workspace, sk: "DEPLOYMENT#search" },
      ConditionExpression: "#id = :id AND #revision = :revision",
      ExpressionAttributeValues: { ":id": record.id, ":revision": 3 },
    });
  });

  it("re-checks the indexes against a re-registration that landed between its read and its write", async () => {
    const record = stored();
    const reRegistered = { ...record, revision: 2, deployment: { ...record.deployment, indexes: [{ ...record.deployment.indexes[0]!, name: "faq" }] } };
    dynamo.on(UpdateCommand).callsFakeOnce(() => {
      tables.put("retrieval", aRetrievalItem(reRegistered));
      throw conditionFailed();
    });

    const response = await invoke(handler, metrics(record.id, { status: "online", document_count: 1, index_metrics: [{ name: "docs", document_count: 1 }] }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].msg).toBe("Attempted to update unknown index 'docs'; the deployment's indexes: 'faq'");
    expect(tables.items("retrieval")[0]).toMatchObject({ status: "offline", documentCount: 0 });
  });

  it("applies online counts once the definition holds still", async () => {
    const record = stored();
    let calls = 0;
    // The fake table's writer, but the first write meets a re-registration that kept the indexes.
    dynamo.on(UpdateCommand).callsFake((input: UpdateCommandInput) => {
      calls += 1;
      if (calls === 1) {
        tables.put("retrieval", aRetrievalItem({ ...record, revision: 2 }));
        throw conditionFailed();
      }
      const item = tables.items("retrieval").find((i) => i.sk === input.Key!.sk)!;
      if (!holds(input.ConditionExpression!, item, input.ExpressionAttributeNames!, input.ExpressionAttributeValues!)) throw conditionFailed();
      applyUpdate(item, input);
      return {};
    });

    const response = await invoke(handler, metrics(record.id, { status: "online", document_count: 4, index_metrics: [{ name: "docs", document_count: 4 }] }));

    expect(response.statusCode).toBe(200);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(2);
    expect(tables.items("retrieval")[0]).toMatchObject({ status: "online", documentCount: 4, revision: 2 });
  });

  it("sets offline and keeps the counts unless clear_metrics", async () => {
    const record = stored({ status: "online", documentCount: 5, indexCounts: { docs: 5 } });

    await invoke(handler, metrics(record.id, { status: "offline" }));
    expect(tables.items("retrieval")[0]).toMatchObject({ status: "offline", documentCount: 5, indexCounts: { docs: 5 } });

    await invoke(handler, metrics(record.id, { status: "offline", clear_metrics: true }));
    expect(tables.items("retrieval")[0]).toMatchObject({ status: "offline", documentCount: 0, indexCounts: {} });
  });

  it("answers 422 naming an index the deployment does not have, writing nothing", async () => {
    const record = stored();

    const response = await invoke(handler, metrics(record.id, { status: "online", document_count: 1, index_metrics: [{ name: "faq", document_count: 1 }] }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["body", "index_metrics", 0, "name"], msg: "Attempted to update unknown index 'faq'; the deployment's indexes: 'docs'", type: "value_error" }]);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it("answers 422 for a status that is neither online nor offline", async () => {
    const response = await invoke(handler, metrics(randomUUID(), { status: "paused" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc[0]).toBe("body");
  });

  it("answers 404 for an unknown id and for another workspace's deployment", async () => {
    const theirs = aDeploymentRecord(aCaller());
    tables.put("retrieval", aRetrievalItem(theirs));

    for (const id of [randomUUID(), theirs.id]) {
      const response = await invoke(handler, metrics(id, { status: "offline", clear_metrics: true }));
      expect(response.statusCode).toBe(404);
      expect(response.json.code).toBe("deployment_not_found");
    }
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, metrics(randomUUID(), { status: "offline" }, null))).statusCode).toBe(401);
  });
});

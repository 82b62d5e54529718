import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/retrieval/list-deployments.js";
import { indexId } from "../../../shared/domain/retrieval.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { useFakeTables } from "../../support/fake-table.js";
import { aDeploymentRecord, aRetrievalItem } from "../../support/retrieval-items.js";

const dynamo = mockDynamo();
const caller = aCaller();
const tables = useFakeTables(dynamo);
const list = (who: ReturnType<typeof aCaller> | null = caller) => anEvent({ method: "GET", path: "/v1/rag/deployments", caller: who });

describe("GET /v1/rag/deployments", () => {
  it("answers the workspace's deployments as summaries, with index ids and counts", async () => {
    const record = aDeploymentRecord(caller, { status: "online", documentCount: 9, indexCounts: { docs: 9 } });
    tables.put("retrieval", aRetrievalItem(record), aRetrievalItem(aDeploymentRecord(aCaller(), { name: "theirs" })));

    const response = await invoke(handler, list());

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.json).toStrictEqual({
      deployments: [
        {
          id: record.id,
          name: "search",
          creator_id: caller.principal,
          document_count: 9,
          status: "online",
          created_at: record.createdAt,
          modified_at: record.modifiedAt,
          deployment: { type: "vespa", indexes: [{ id: indexId(record.id, "docs"), name: "docs", document_count: 9 }] },
        },
      ],
    });
  });

  it("queries the caller's workspace partition for deployments only, strongly consistent", async () => {
    await invoke(handler, list());

    const [query] = dynamo.commandCalls(QueryCommand);
    expect(query!.args[0].input).toMatchObject({
      KeyConditionExpression: "#ws = :ws AND begins_with(#sk, :kind)",
      ExpressionAttributeValues: { ":ws": caller.workspace, ":kind": "DEPLOYMENT#" },
      ConsistentRead: true,
    });
  });

  it("answers an empty list when there are none", async () => {
    expect((await invoke(handler, list())).json).toStrictEqual({ deployments: [] });
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, list(null))).statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

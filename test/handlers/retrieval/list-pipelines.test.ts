import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/retrieval/list-pipelines.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { useFakeTables } from "../../support/fake-table.js";
import { aDeploymentRecord, aPipelineRecord, aRetrievalItem } from "../../support/retrieval-items.js";

const dynamo = mockDynamo();
const caller = aCaller();
const tables = useFakeTables(dynamo);
const list = (who: ReturnType<typeof aCaller> | null = caller) => anEvent({ method: "GET", path: "/v1/rag/ingestion_pipeline_configurations", caller: who });

describe("GET /v1/rag/ingestion_pipeline_configurations", () => {
  it("answers the workspace's configurations, all nine fields, and nothing of other kinds or workspaces", async () => {
    const ran = aPipelineRecord(caller, { name: "b", lastRunTime: "2025-01-01T00:00:00.000Z", lastRunChunksCount: 3, totalChunksCount: 10, pipelineComposition: { parser: "pdf" } });
    const fresh = aPipelineRecord(caller, { name: "a" });
    tables.put("retrieval", aRetrievalItem(ran), aRetrievalItem(fresh), aRetrievalItem(aDeploymentRecord(caller)), aRetrievalItem(aPipelineRecord(aCaller())));

    const response = await invoke(handler, list());

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual([
      { id: fresh.id, author_id: caller.principal, name: "a", created_at: fresh.createdAt, modified_at: fresh.modifiedAt, last_run_time: null, last_run_chunks_count: 0, total_chunks_count: 0, pipeline_composition: null },
      { id: ran.id, author_id: caller.principal, name: "b", created_at: ran.createdAt, modified_at: ran.modifiedAt, last_run_time: "2025-01-01T00:00:00.000Z", last_run_chunks_count: 3, total_chunks_count: 10, pipeline_composition: { parser: "pdf" } },
    ]);
  });

  it("queries the caller's workspace partition for configurations only", async () => {
    await invoke(handler, list());

    expect(dynamo.commandCalls(QueryCommand)[0]!.args[0].input.ExpressionAttributeValues).toStrictEqual({ ":ws": caller.workspace, ":kind": "PIPELINE#" });
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, list(null))).statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

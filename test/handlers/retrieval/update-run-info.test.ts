import { randomUUID } from "node:crypto";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/retrieval/update-run-info.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { aPipelineRecord, aRetrievalItem } from "../../support/retrieval-items.js";

const dynamo = mockDynamo();
const caller = aCaller();
let tables: FakeTables;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
});
const runInfo = (id: string, body: unknown, who: ReturnType<typeof aCaller> | null = caller) =>
  aJsonEvent(body, {
    method: "PUT",
    path: `/v1/rag/ingestion_pipeline_configurations/${id}/run_info`,
    resource: "/v1/rag/ingestion_pipeline_configurations/{id}/run_info",
    pathParameters: { id },
    caller: who,
  });

const stored = (overrides: Parameters<typeof aPipelineRecord>[1] = {}) => {
  const record = aPipelineRecord(caller, overrides);
  tables.put("retrieval", aRetrievalItem(record));
  return record;
};

describe("PUT /v1/rag/ingestion_pipeline_configurations/{id}/run_info", () => {
  it("records the first run and answers the configuration", async () => {
    const record = stored();

    const response = await invoke(handler, runInfo(record.id, { execution_time: "2025-02-03T04:05:06Z", chunks_count: 17 }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: record.id, name: "ingest", last_run_time: "2025-02-03T04:05:06.000Z", last_run_chunks_count: 17, total_chunks_count: 17 });
  });

  it("adds the chunks with ADD and sets the last run only if it is not older than the stored one", async () => {
    const record = stored();

    await invoke(handler, runInfo(record.id, { execution_time: "2025-02-03T04:05:06Z", chunks_count: 17 }));

    const [update] = dynamo.commandCalls(UpdateCommand);
    expect(update!.args[0].input).toMatchObject({
      Key: { workspace: caller.workspace, sk: "PIPELINE#ingest" },
      UpdateExpression: "SET #lastRunTime = :at, #lastRunChunks = :chunks ADD #totalChunks :chunks",
      ConditionExpression: "#id = :id AND (attribute_not_exists(#lastRunTime) OR #lastRunTime <= :at)",
      ExpressionAttributeValues: { ":id": record.id, ":at": "2025-02-03T04:05:06.000Z", ":chunks": 17 },
    });
  });

  it("only adds the chunks of a run older than the last one", async () => {
    const record = stored({ lastRunTime: "2025-03-01T00:00:00.000Z", lastRunChunksCount: 5, totalChunksCount: 5 });

    const response = await invoke(handler, runInfo(record.id, { execution_time: "2025-02-01T00:00:00Z", chunks_count: 2 }));

    expect(response.json).toMatchObject({ last_run_time: "2025-03-01T00:00:00.000Z", last_run_chunks_count: 5, total_chunks_count: 7 });
    const [, fallback] = dynamo.commandCalls(UpdateCommand);
    expect(fallback!.args[0].input).toMatchObject({ UpdateExpression: "ADD #totalChunks :chunks", ConditionExpression: "#id = :id" });
  });

  it("normalizes an offset time to UTC before comparing", async () => {
    const record = stored({ lastRunTime: "2025-03-01T10:00:00.000Z", lastRunChunksCount: 5, totalChunksCount: 5 });

    // 11:30+02:00 is 09:30Z: older than the stored run, though its text sorts after it.
    const response = await invoke(handler, runInfo(record.id, { execution_time: "2025-03-01T11:30:00+02:00", chunks_count: 1 }));

    expect(response.json).toMatchObject({ last_run_time: "2025-03-01T10:00:00.000Z", total_chunks_count: 6 });
  });

  it("answers 422 detail for a count out of range, writing nothing", async () => {
    const record = stored();

    const response = await invoke(handler, runInfo(record.id, { execution_time: "2025-02-03T04:05:06Z", chunks_count: -3 }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toEqual(["body", "chunks_count"]);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it("answers 404 for an unknown id and for another workspace's configuration", async () => {
    const theirs = aPipelineRecord(aCaller());
    tables.put("retrieval", aRetrievalItem(theirs));

    for (const id of [randomUUID(), theirs.id]) {
      const response = await invoke(handler, runInfo(id, { execution_time: "2025-02-03T04:05:06Z", chunks_count: 1 }));
      expect(response.statusCode).toBe(404);
      expect(response.json.code).toBe("ingestion_pipeline_configuration_not_found");
    }
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(tables.items("retrieval")[0]).toMatchObject({ totalChunksCount: 0 });
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, runInfo(randomUUID(), { execution_time: "2025-02-03T04:05:06Z", chunks_count: 1 }, null))).statusCode).toBe(401);
  });
});

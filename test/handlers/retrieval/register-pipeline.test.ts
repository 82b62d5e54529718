import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/retrieval/register-pipeline.js";
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
const register = (body: unknown, who: ReturnType<typeof aCaller> | null = caller) =>
  aJsonEvent(body, { method: "PUT", path: "/v1/rag/ingestion_pipeline_configurations", caller: who });

describe("PUT /v1/rag/ingestion_pipeline_configurations", () => {
  it("registers a configuration and answers it: never run, counts at zero", async () => {
    const response = await invoke(handler, register({ name: "ingest", pipeline_composition: { parser: "pdf" } }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      id: expect.any(String),
      author_id: caller.principal,
      name: "ingest",
      created_at: expect.any(String),
      modified_at: expect.any(String),
      last_run_time: null,
      last_run_chunks_count: 0,
      total_chunks_count: 0,
      pipeline_composition: { parser: "pdf" },
    });
    expect(tables.items("retrieval")).toMatchObject([{ workspace: caller.workspace, sk: "PIPELINE#ingest", idKey: `PIPELINE#${response.json.id}` }]);
  });

  it("keeps the SDK's target_indexes with the configuration without showing them", async () => {
    const response = await invoke(handler, register({ name: "ingest", target_indexes: [{ type: "vespa", name: "docs" }] }));

    expect(response.json).not.toHaveProperty("target_indexes");
    expect(tables.items("retrieval")[0]).toMatchObject({ targetIndexes: [{ type: "vespa", name: "docs" }] });
  });

  it("re-registering the name keeps the id, author and run counts and replaces the composition", async () => {
    const before = aPipelineRecord(caller, { lastRunTime: "2025-01-01T00:00:00.000Z", lastRunChunksCount: 4, totalChunksCount: 9, pipelineComposition: { parser: "pdf" } });
    tables.put("retrieval", aRetrievalItem(before));

    const response = await invoke(handler, register({ name: "ingest" }, aCaller({ workspace: caller.workspace })));

    expect(response.json).toMatchObject({ id: before.id, author_id: caller.principal, created_at: before.createdAt, last_run_time: "2025-01-01T00:00:00.000Z", last_run_chunks_count: 4, total_chunks_count: 9, pipeline_composition: null });
    expect(dynamo.commandCalls(UpdateCommand)[0]!.args[0].input.Key).toStrictEqual({ workspace: caller.workspace, sk: "PIPELINE#ingest" });
  });

  it("answers 422 detail for a missing name, writing nothing", async () => {
    const response = await invoke(handler, register({ pipeline_composition: null }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["body", "name"], msg: "Field required", type: "missing" }]);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, register({ name: "x" }, null))).statusCode).toBe(401);
  });
});

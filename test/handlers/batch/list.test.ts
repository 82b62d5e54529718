import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/batch/list.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aBatchJob, aBatchJobItem, batchCalls, serveBatchTables } from "../../support/batch-table.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";

vi.mock("../../../shared/engine/executions.js", () => ({ startExecution: vi.fn(), stopExecution: vi.fn() }));

const dynamo = mockDynamo();
const caller = aCaller();

/** What the official SDK sends when the caller gives nothing. */
const SDK_DEFAULTS = { page: "0", page_size: "100", created_by_me: "false", order_by: "-created" };

const jobs = Array.from({ length: 3 }, (_, i) => aBatchJob({ workspace: caller.workspace, createdAt: 1_700_000_000 + i }));

beforeEach(() => {
  serveBatchTables(dynamo, { batch: jobs.map(aBatchJobItem) });
});

const list = (query: Record<string, string | string[]> = {}) => anEvent({ path: "/v1/batch/jobs", query, caller });
const pageQuery = () => batchCalls(dynamo, QueryCommand).find((input) => input.Select !== "COUNT")!;

describe("GET /v1/batch/jobs", () => {
  it("answers 200 with the jobs under data, newest first, and the total", async () => {
    const response = await invoke(handler, list(SDK_DEFAULTS));

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.json.object).toBe("list");
    expect(response.json.total).toBe(3);
    expect(response.json.data.map((j: { id: string }) => j.id)).toStrictEqual(jobs.map((j) => j.id).toReversed());
    expect(response.json.data[0]).toMatchObject({ object: "batch", status: "QUEUED", errors: [], outputs: null, created_at: 1_700_000_002 });
  });

  it("queries the caller's workspace on the byCreated index, with no filter for the SDK's defaults", async () => {
    await invoke(handler, list(SDK_DEFAULTS));

    const input = pageQuery();
    expect(input).toMatchObject({ TableName: "platform-batch", IndexName: "byCreated", KeyConditionExpression: "workspace = :workspace", ScanIndexForward: false });
    expect(input.ExpressionAttributeValues).toStrictEqual({ ":workspace": caller.workspace });
    expect(input.FilterExpression).toBeUndefined();
  });

  it("lists oldest first with order_by=created", async () => {
    const response = await invoke(handler, list({ order_by: "created" }));

    expect(pageQuery().ScanIndexForward).toBe(true);
    expect(response.json.data.map((j: { id: string }) => j.id)).toStrictEqual(jobs.map((j) => j.id));
  });

  it("refuses another order_by with 422", async () => {
    const response = await invoke(handler, list({ order_by: "status" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["query", "order_by"]);
  });

  it("pages by page and page_size", async () => {
    const response = await invoke(handler, list({ page: "1", page_size: "2" }));

    expect(pageQuery().Limit).toBe(4);
    expect(response.json.data.map((j: { id: string }) => j.id)).toStrictEqual([jobs[0]!.id]);
    expect(response.json.total).toBe(3);
  });

  it("keeps only the caller's own jobs with created_by_me=true", async () => {
    await invoke(handler, list({ ...SDK_DEFAULTS, created_by_me: "true" }));

    expect(pageQuery().FilterExpression).toBe("#owner = :owner");
    expect(pageQuery().ExpressionAttributeValues).toMatchObject({ ":owner": caller.principal });
  });

  it("turns model, agent_id, created_after and repeated status into filter clauses", async () => {
    await invoke(handler, list({ model: "mistral-small-latest", agent_id: "a1", created_after: "2024-01-01T00:00:00.900Z", status: ["QUEUED", "RUNNING"] }));

    const input = pageQuery();
    expect(input.FilterExpression).toBe("#model = :model AND #agentId = :agentId AND #createdAt > :createdAfter AND #status IN (:status0, :status1)");
    expect(input.ExpressionAttributeValues).toMatchObject({
      ":model": "mistral-small-latest",
      ":agentId": "a1",
      ":createdAfter": 1_704_067_200,
      ":status0": "QUEUED",
      ":status1": "RUNNING",
    });
  });

  it("accepts one status given once", async () => {
    await invoke(handler, list({ status: "SUCCESS" }));

    expect(pageQuery().FilterExpression).toBe("#status IN (:status0)");
  });

  it("refuses an unknown status with 422", async () => {
    const response = await invoke(handler, list({ status: ["QUEUED", "DONE"] }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["query", "status", 1]);
  });

  it("refuses a created_after that is not a date-time with 422", async () => {
    const response = await invoke(handler, list({ created_after: "yesterday" }));

    expect(response.statusCode).toBe(422);
  });

  it("reads the SDK's exploded metadata (bare key=value pairs) as metadata filters", async () => {
    await invoke(handler, list({ ...SDK_DEFAULTS, team: "research", purpose: "smoke" }));

    const input = pageQuery();
    expect(input.FilterExpression).toBe("#metadata.#m0 = :m0 AND #metadata.#m1 = :m1");
    expect(input.ExpressionAttributeNames).toMatchObject({ "#metadata": "metadata", "#m0": "team", "#m1": "purpose" });
    expect(input.ExpressionAttributeValues).toMatchObject({ ":m0": "research", ":m1": "smoke" });
  });

  it("also reads metadata[key]=value and metadata as a JSON object", async () => {
    await invoke(handler, list({ "metadata[team]": "research", metadata: '{"purpose":"smoke"}' }));

    expect(pageQuery().ExpressionAttributeNames).toMatchObject({ "#m0": "team", "#m1": "purpose" });
    expect(pageQuery().ExpressionAttributeValues).toMatchObject({ ":m0": "research", ":m1": "smoke" });
  });

  it("refuses a metadata filter given twice with 400", async () => {
    const response = await invoke(handler, list({ team: ["a", "b"] }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ type: "invalid_request_error", code: "invalid_metadata_filter", param: "team" });
  });

  it("refuses metadata that is not a JSON object with 400", async () => {
    const response = await invoke(handler, list({ metadata: "team" }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ code: "invalid_metadata_filter", param: "metadata" });
  });

  it("counts the total with the same filter", async () => {
    await invoke(handler, list({ ...SDK_DEFAULTS, created_by_me: "true", team: "a" }));

    const count = batchCalls(dynamo, QueryCommand).find((input) => input.Select === "COUNT")!;
    expect(count.FilterExpression).toBe(pageQuery().FilterExpression);
    expect(count.ExpressionAttributeValues).toStrictEqual(pageQuery().ExpressionAttributeValues);
  });
});

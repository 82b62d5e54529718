import { BatchGetCommand, QueryCommand, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/files/list.js";
import type { FileRecord } from "../../../shared/domain/file-rules.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aFile, aFileItem, anEvent, invoke } from "../../support/builders.js";

const dynamo = mockDynamo({ resolves: {} });

const NOW_MS = 1_800_000_000_000;
const caller = aCaller();

freezeDate(NOW_MS);

const list = (query: Record<string, string | string[]> = {}, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({ path: "/v1/files", query, caller: who });

const filesOf = (count: number): FileRecord[] =>
  Array.from({ length: count }, (_, i) => aFile({ workspace: caller.workspace, filename: `f${i}.jsonl`, createdAt: 1_700_000_000 - i }));

/**
 * The workspace's files as DynamoDB serves them. byCreated: at most Limit items per call (before any
 * filter, here already applied), at most `perCall` to mimic pages the filter thinned out, and a COUNT
 * for Select COUNT. byExpiry: `expiring` unexpired expiring files, counted. The counters: `counters`.
 */
function workspaceHolding(files: FileRecord[], options: { perCall?: number; expiring?: number; counters?: { workspace?: number; mine?: number } } = {}) {
  const items = files.map((f) => aFileItem(f));
  const perCall = options.perCall ?? Infinity;
  dynamo.on(QueryCommand).callsFake((input: QueryCommandInput) => {
    if (input.IndexName === "byExpiry") return { Count: options.expiring ?? 0 };
    const start = input.ExclusiveStartKey ? Number(input.ExclusiveStartKey.position) : 0;
    const end = Math.min(items.length, start + Math.min(input.Limit ?? Infinity, perCall));
    const more = end < items.length ? { LastEvaluatedKey: { position: end } } : {};
    if (input.Select === "COUNT") return { Count: end - start, ...more };
    return { Items: items.slice(start, end), ...more };
  });
  const counters = [
    ...(options.counters?.workspace === undefined ? [] : [{ workspace: caller.workspace, sk: "#COUNT#workspace", files: options.counters.workspace }]),
    ...(options.counters?.mine === undefined ? [] : [{ workspace: caller.workspace, sk: `#COUNT#user#${caller.principal}`, files: options.counters.mine }]),
  ];
  dynamo.on(BatchGetCommand).resolves({ Responses: { "platform-files": counters } });
}

const pageQueries = () => dynamo.commandCalls(QueryCommand).filter((c) => c.args[0].input.Select !== "COUNT");
const countQueries = () => dynamo.commandCalls(QueryCommand).filter((c) => c.args[0].input.Select === "COUNT" && c.args[0].input.IndexName === "byCreated");
const expiringQueries = () => dynamo.commandCalls(QueryCommand).filter((c) => c.args[0].input.IndexName === "byExpiry");
const firstPageQuery = () => pageQueries()[0]!.args[0].input;
const ids = (data: { id: string }[]) => data.map((f) => f.id);

describe("GET /v1/files", () => {
  it("answers 200 JSON with a list of Files and the total", async () => {
    const files = filesOf(2);
    workspaceHolding(files, { counters: { workspace: 2 } });
    const event = list();

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({
      object: "list",
      data: files.map((f) => ({
        id: f.id,
        object: "file",
        bytes: f.bytes,
        created_at: f.createdAt,
        filename: f.filename,
        purpose: f.purpose,
        sample_type: f.sampleType,
        source: f.source,
        num_lines: f.numLines,
        mimetype: f.mimetype,
        signature: f.signature,
        expires_at: f.expiresAt,
        visibility: f.visibility,
      })),
      total: 2,
    });
  });

  it("queries the caller's workspace on the byCreated index, newest first", async () => {
    workspaceHolding([]);

    await invoke(handler, list());

    expect(pageQueries().length).toBeGreaterThan(0);
    for (const call of pageQueries()) {
      const input = call.args[0].input;
      expect(input).toMatchObject({
        TableName: "platform-files",
        IndexName: "byCreated",
        KeyConditionExpression: "workspace = :workspace",
        ScanIndexForward: false,
      });
      expect(input.ExpressionAttributeValues?.[":workspace"]).toBe(caller.workspace);
    }
  });

  it("admits only shared files, the caller's own files and unexpired files", async () => {
    workspaceHolding([]);

    await invoke(handler, list());

    const input = firstPageQuery();
    expect(input.FilterExpression).toBe(
      "(#visibility = :shared OR #owner = :me) AND (attribute_not_exists(#expiresAt) OR #expiresAt = :null OR #expiresAt > :now)",
    );
    expect(input.ExpressionAttributeValues).toMatchObject({ ":shared": "workspace", ":me": caller.principal, ":now": NOW_MS / 1000, ":null": null });
  });

  it("returns the first page of the default size 100", async () => {
    const files = filesOf(120);
    workspaceHolding(files);

    const response = await invoke(handler, list());

    expect(ids(response.json.data)).toStrictEqual(ids(files.slice(0, 100)));
  });

  it("skips page × page_size files", async () => {
    const files = filesOf(7);
    workspaceHolding(files);

    const response = await invoke(handler, list({ page: "1", page_size: "3" }));

    expect(ids(response.json.data)).toStrictEqual(ids(files.slice(3, 6)));
    expect(firstPageQuery().Limit).toBe(6);
  });

  it("returns a short last page", async () => {
    const files = filesOf(7);
    workspaceHolding(files);

    const response = await invoke(handler, list({ page: "2", page_size: "3" }));

    expect(ids(response.json.data)).toStrictEqual([files[6]!.id]);
  });

  it("returns no files past the last page but still the total", async () => {
    workspaceHolding(filesOf(4), { counters: { workspace: 4 } });

    const response = await invoke(handler, list({ page: "5", page_size: "3" }));

    expect(response.json).toStrictEqual({ object: "list", data: [], total: 4 });
  });

  it("keeps querying when the filter leaves DynamoDB pages short", async () => {
    const files = filesOf(9);
    workspaceHolding(files, { perCall: 2 });

    const response = await invoke(handler, list({ page: "1", page_size: "3" }));

    expect(ids(response.json.data)).toStrictEqual(ids(files.slice(3, 6)));
    const starts = pageQueries().map((c) => c.args[0].input.ExclusiveStartKey);
    expect(starts).toStrictEqual([undefined, { position: 2 }, { position: 4 }]);
  });

  it("totals an unfiltered list from the workspace counter, the caller's counter and the live expiring files", async () => {
    workspaceHolding(filesOf(3), { counters: { workspace: 5, mine: 2 }, expiring: 4 });

    const response = await invoke(handler, list());

    expect(response.json.total).toBe(11);
  });

  it("reads only the workspace's counter and the caller's own counter", async () => {
    workspaceHolding([]);

    await invoke(handler, list());

    const reads = dynamo.commandCalls(BatchGetCommand);
    expect(reads).toHaveLength(1);
    expect(reads[0]!.args[0].input.RequestItems!["platform-files"]!.Keys).toStrictEqual([
      { workspace: caller.workspace, sk: "#COUNT#workspace" },
      { workspace: caller.workspace, sk: `#COUNT#user#${caller.principal}` },
    ]);
  });

  it("answers a total of 0 for a workspace without counters", async () => {
    workspaceHolding([]);

    const response = await invoke(handler, list());

    expect(response.json.total).toBe(0);
  });

  it("counts the expiring files that have not expired and that the caller may see", async () => {
    workspaceHolding([]);

    await invoke(handler, list());

    expect(expiringQueries()).toHaveLength(1);
    expect(expiringQueries()[0]!.args[0].input).toMatchObject({
      TableName: "platform-files",
      IndexName: "byExpiry",
      Select: "COUNT",
      KeyConditionExpression: "workspace = :workspace AND #expiresAt > :now",
      FilterExpression: "#visibility = :shared OR #owner = :me",
      ExpressionAttributeValues: { ":workspace": caller.workspace, ":now": NOW_MS / 1000, ":shared": "workspace", ":me": caller.principal },
    });
  });

  it("totals a filtered list by counting every page of the filtered query", async () => {
    workspaceHolding(filesOf(5), { perCall: 2, counters: { workspace: 99 } });

    const response = await invoke(handler, list({ page_size: "1", purpose: "fine-tune" }));

    expect(response.json.total).toBe(5);
    expect(countQueries()).toHaveLength(3);
    expect(countQueries()[0]!.args[0].input.FilterExpression).toBe(firstPageQuery().FilterExpression);
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(0);
  });

  it("sends no COUNT query and answers total null when include_total is false", async () => {
    workspaceHolding(filesOf(3));

    const response = await invoke(handler, list({ include_total: "false" }));

    expect(response.json.total).toBeNull();
    expect(response.json.data).toHaveLength(3);
    expect(dynamo.commandCalls(QueryCommand).filter((c) => c.args[0].input.Select === "COUNT")).toHaveLength(0);
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(0);
  });

  it("turns repeated sample_type and source filters into IN lists", async () => {
    workspaceHolding([]);

    await invoke(handler, list({ sample_type: ["instruct", "batch_request"], source: ["upload", "mistral"] }));

    const input = firstPageQuery();
    expect(input.FilterExpression).toContain(" AND #sampleType IN (:sampleType0, :sampleType1)");
    expect(input.FilterExpression).toContain(" AND #source IN (:source0, :source1)");
    expect(input.ExpressionAttributeNames).toMatchObject({ "#sampleType": "sampleType", "#source": "source" });
    expect(input.ExpressionAttributeValues).toMatchObject({
      ":sampleType0": "instruct",
      ":sampleType1": "batch_request",
      ":source0": "upload",
      ":source1": "mistral",
    });
  });

  it("treats a single sample_type as a list of one", async () => {
    workspaceHolding([]);

    await invoke(handler, list({ sample_type: "pretrain" }));

    const input = firstPageQuery();
    expect(input.FilterExpression).toContain("#sampleType IN (:sampleType0)");
    expect(input.ExpressionAttributeValues?.[":sampleType0"]).toBe("pretrain");
  });

  it("filters by purpose and mimetypes", async () => {
    workspaceHolding([]);

    await invoke(handler, list({ purpose: "batch", mimetypes: ["application/jsonl", "text/plain"] }));

    const input = firstPageQuery();
    expect(input.FilterExpression).toContain("#purpose IN (:purpose0)");
    expect(input.FilterExpression).toContain("#mimetype IN (:mimetype0, :mimetype1)");
    expect(input.ExpressionAttributeValues).toMatchObject({ ":purpose0": "batch", ":mimetype0": "application/jsonl", ":mimetype1": "text/plain" });
  });

  it("searches file names case-insensitively", async () => {
    workspaceHolding([]);

    await invoke(handler, list({ search: "TrAin" }));

    const input = firstPageQuery();
    expect(input.FilterExpression).toContain("contains(#filenameLower, :search)");
    expect(input.ExpressionAttributeNames?.["#filenameLower"]).toBe("filenameLower");
    expect(input.ExpressionAttributeValues?.[":search"]).toBe("train");
  });

  it("applies the same filters to the COUNT query of a filtered list", async () => {
    workspaceHolding([]);

    await invoke(handler, list({ purpose: "ocr", search: "scan" }));

    expect(countQueries()[0]!.args[0].input).toMatchObject({
      FilterExpression: firstPageQuery().FilterExpression,
      ExpressionAttributeValues: firstPageQuery().ExpressionAttributeValues,
    });
  });

  it("answers 422 for a page_size above 1000", async () => {
    const response = await invoke(handler, list({ page_size: "1001" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["query", "page_size"], msg: expect.any(String), type: "less_than_equal" }]);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("answers 422 for a page_size of 0", async () => {
    const response = await invoke(handler, list({ page_size: "0" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["query", "page_size"], msg: expect.any(String), type: "greater_than_equal" }]);
  });

  it("answers 422 for a negative page", async () => {
    const response = await invoke(handler, list({ page: "-1" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["query", "page"]);
  });

  it("answers 422 naming the position of an unknown sample_type", async () => {
    const response = await invoke(handler, list({ sample_type: ["instruct", "chat"] }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["query", "sample_type", 1], msg: expect.any(String), type: "enum" }]);
  });

  it("answers 401 without the authorizer context", async () => {
    const response = await invoke(handler, list({}, null));

    expect(response.statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

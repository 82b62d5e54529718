import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/files/retrieve.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aFile, aFileItem, anEvent, invoke } from "../../support/builders.js";
import { aPlatformError } from "../../support/errors.js";
import { useFakeTables } from "../../support/fake-table.js";

const dynamo = mockDynamo({ resolves: {} });
const tables = useFakeTables(dynamo);

afterEach(() => {
  vi.useRealTimers();
});

const caller = aCaller();
const retrieve = (fileId: string, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({ path: `/v1/files/${fileId}`, resource: "/v1/files/{file_id}", pathParameters: { file_id: fileId }, caller: who });

const stored = (file: ReturnType<typeof aFile>) => tables.put("files", aFileItem(file));

describe("GET /v1/files/{file_id}", () => {
  it("answers 200 JSON with every File field and deleted: false", async () => {
    const file = aFile({ workspace: caller.workspace, filename: "data.jsonl", bytes: 42, numLines: 3, expiresAt: null });
    stored(file);
    const event = retrieve(file.id);

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({
      id: file.id,
      object: "file",
      bytes: 42,
      created_at: file.createdAt,
      filename: "data.jsonl",
      purpose: "fine-tune",
      sample_type: "instruct",
      source: "upload",
      num_lines: 3,
      mimetype: "application/jsonl",
      signature: null,
      expires_at: null,
      visibility: "workspace",
      deleted: false,
    });
  });

  it("reads the record by the caller's workspace and the file id", async () => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);

    await invoke(handler, retrieve(file.id));

    const reads = dynamo.commandCalls(GetCommand);
    expect(reads).toHaveLength(1);
    expect(reads[0]!.args[0].input).toStrictEqual({ TableName: "platform-files", Key: { workspace: caller.workspace, sk: `FILE#${file.id}` } });
  });

  it("answers 404 for a file of another workspace", async () => {
    const file = aFile();
    stored(file);

    const response = await invoke(handler, retrieve(file.id));

    expect(response.statusCode).toBe(404);
    expect(response.json).toStrictEqual(aPlatformError({ message: `No file with id '${file.id}' exists in this workspace`, type: "not_found_error", param: null, code: "file_not_found" }));
  });

  it("answers 404 for another principal's user-visible file", async () => {
    const file = aFile({ workspace: caller.workspace, visibility: "user" });
    stored(file);

    const response = await invoke(handler, retrieve(file.id));

    expect(response.statusCode).toBe(404);
  });

  it("shows a user-visible file to its owner", async () => {
    const file = aFile({ workspace: caller.workspace, visibility: "user", owner: caller.principal });
    stored(file);

    const response = await invoke(handler, retrieve(file.id));

    expect(response.statusCode).toBe(200);
    expect(response.json.visibility).toBe("user");
  });

  it("answers 404 for a file whose expiry has passed", async () => {
    const file = aFile({ workspace: caller.workspace, expiresAt: Math.floor(Date.now() / 1000) - 60 });
    stored(file);

    const response = await invoke(handler, retrieve(file.id));

    expect(response.statusCode).toBe(404);
  });

  it("answers 404 from the very second a file expires", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(1_800_000_000_000));
    const file = aFile({ workspace: caller.workspace, expiresAt: 1_800_000_000 });
    stored(file);

    const response = await invoke(handler, retrieve(file.id));

    expect(response.statusCode).toBe(404);
  });

  it("still shows a file one second before it expires", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(1_800_000_000_000));
    const file = aFile({ workspace: caller.workspace, expiresAt: 1_800_000_001 });
    stored(file);

    const response = await invoke(handler, retrieve(file.id));

    expect(response.statusCode).toBe(200);
    expect(response.json.expires_at).toBe(1_800_000_001);
  });

  it("answers 422 for a file id that is not a UUID, without reading the table", async () => {
    const response = await invoke(handler, retrieve("not-a-uuid"));

    expect(response.statusCode).toBe(422);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.json).toStrictEqual({
      detail: [{ loc: ["path", "file_id"], msg: "Input should be a valid UUID", type: "uuid_parsing" }],
    });
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("answers 401 when the authorizer context is missing", async () => {
    const event = retrieve(aFile().id, null);

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(401);
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toMatchObject({ object: "error", type: "authentication_error", code: "unauthorized" });
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("answers 500 without the store's error message when DynamoDB fails", async () => {
    dynamo.on(GetCommand).rejects(new Error("ProvisionedThroughputExceeded on table platform-files"));

    const response = await invoke(handler, retrieve(aFile().id));

    expect(response.statusCode).toBe(500);
    expect(response.json).toStrictEqual({ object: "error", message: "Internal server error", type: "server_error", param: null, code: "internal_error" });
  });
});

import { DeleteObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/files/upload.js";
import { freezeDate, mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke, multipartEvent } from "../../support/builders.js";
import { aPlatformError } from "../../support/errors.js";

const dynamo = mockDynamo({ resolves: {} });
const s3 = mockS3({ resolves: {} });

const NOW_MS = 1_800_000_000_250;
const caller = aCaller();
const jsonl = '{"prompt":"a"}\n{"prompt":"b"}\n\n{"prompt":"c"}\n';

freezeDate(NOW_MS);

type Part = string | { filename: string; content: string | Buffer; type?: string };
const upload = (fields: Record<string, Part>, who: ReturnType<typeof aCaller> | null = caller) => multipartEvent(fields, { path: "/v1/files", caller: who });
const aJsonlFile = (content: string | Buffer = jsonl, filename = "train.jsonl"): Part => ({ filename, content });

describe("POST /v1/files", () => {
  it("answers 200 JSON with exactly the File fields", async () => {
    const event = upload({ file: aJsonlFile(), purpose: "fine-tune" });

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      object: "file",
      bytes: Buffer.byteLength(jsonl),
      created_at: Math.floor(NOW_MS / 1000),
      filename: "train.jsonl",
      purpose: "fine-tune",
      sample_type: "instruct",
      source: "upload",
      num_lines: 3,
      mimetype: "application/jsonl",
      signature: null,
      expires_at: null,
      visibility: "workspace",
    });
  });

  it("stores the bytes under the workspace prefix with the file's id", async () => {
    const response = await invoke(handler, upload({ file: aJsonlFile() }));

    const puts = s3.commandCalls(PutObjectCommand);
    expect(puts).toHaveLength(1);
    const input = puts[0]!.args[0].input;
    expect(input.Bucket).toBe("platform-files");
    expect(input.Key).toBe(`workspaces/${caller.workspace}/files/${response.json.id}`);
    expect(input.ContentType).toBe("application/jsonl");
    expect(Buffer.from(input.Body as Buffer).toString("utf8")).toBe(jsonl);
  });

  it("writes the record only if no record has that key", async () => {
    const response = await invoke(handler, upload({ file: aJsonlFile() }));

    const writes = dynamo.commandCalls(TransactWriteCommand);
    expect(writes).toHaveLength(1);
    const put = writes[0]!.args[0].input.TransactItems![0]!.Put!;
    expect(put.TableName).toBe("platform-files");
    expect(put.ConditionExpression).toBe("attribute_not_exists(sk)");
    expect(put.Item).toMatchObject({
      workspace: caller.workspace,
      sk: `FILE#${response.json.id}`,
      id: response.json.id,
      organization: caller.organization,
      owner: caller.principal,
      objectKey: `workspaces/${caller.workspace}/files/${response.json.id}`,
      createdKey: `${String(NOW_MS).padStart(15, "0")}#${response.json.id}`,
      filenameLower: "train.jsonl",
    });
  });

  it("counts a file without expiry in its scope's counter, in the same transaction", async () => {
    await invoke(handler, upload({ file: aJsonlFile(), visibility: "user" }));

    const items = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items).toHaveLength(2);
    expect(items[1]!.Update).toStrictEqual({
      TableName: "platform-files",
      Key: { workspace: caller.workspace, sk: `#COUNT#user#${caller.principal}` },
      UpdateExpression: "ADD #files :delta",
      ExpressionAttributeNames: { "#files": "files" },
      ExpressionAttributeValues: { ":delta": 1 },
    });
  });

  it("counts a shared file in the workspace counter", async () => {
    await invoke(handler, upload({ file: aJsonlFile() }));

    const items = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items[1]!.Update!.Key).toStrictEqual({ workspace: caller.workspace, sk: "#COUNT#workspace" });
  });

  it("leaves the counters alone for a file that expires", async () => {
    await invoke(handler, upload({ file: aJsonlFile(), expiry: "1" }));

    const items = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items.map((i) => Object.keys(i))).toStrictEqual([["Put"]]);
  });

  it("stores the bytes before it writes the record", async () => {
    const order: string[] = [];
    s3.on(PutObjectCommand).callsFake(() => (order.push("object"), {}));
    dynamo.on(TransactWriteCommand).callsFake(() => (order.push("record"), {}));

    await invoke(handler, upload({ file: aJsonlFile() }));

    expect(order).toStrictEqual(["object", "record"]);
  });

  it("deletes the stored bytes when the record cannot be written", async () => {
    dynamo.on(TransactWriteCommand).rejects(new TransactionCanceledException({ message: "Transaction cancelled", $metadata: {} }));

    const response = await invoke(handler, upload({ file: aJsonlFile() }));

    expect(response.statusCode).toBe(500);
    const key = s3.commandCalls(PutObjectCommand)[0]!.args[0].input.Key;
    const deletes = s3.commandCalls(DeleteObjectCommand);
    expect(deletes).toHaveLength(1);
    expect(deletes[0]!.args[0].input).toStrictEqual({ Bucket: "platform-files", Key: key });
  });

  it("answers 500 without internals when the store fails", async () => {
    dynamo.on(TransactWriteCommand).rejects(new Error("socket hang up at 10.0.0.12"));

    const response = await invoke(handler, upload({ file: aJsonlFile() }));

    expect(response.statusCode).toBe(500);
    expect(response.json).toStrictEqual({ object: "error", message: "Internal server error", type: "server_error", param: null, code: "internal_error" });
  });

  it("writes no record when the bytes cannot be stored", async () => {
    s3.on(PutObjectCommand).rejects(new Error("S3 unavailable"));

    const response = await invoke(handler, upload({ file: aJsonlFile() }));

    expect(response.statusCode).toBe(500);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("infers the JSONL type for a .jsonl file sent as application/octet-stream", async () => {
    const response = await invoke(handler, upload({ file: { filename: "data.jsonl", content: jsonl, type: "application/octet-stream" } }));

    expect(response.json.mimetype).toBe("application/jsonl");
  });

  it("keeps a specific declared content type", async () => {
    const response = await invoke(handler, upload({ file: { filename: "scan.pdf", content: "%PDF-1.7", type: "application/pdf" }, purpose: "ocr" }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ mimetype: "application/pdf", num_lines: null, purpose: "ocr", sample_type: "instruct" });
  });

  it("records batch files as batch requests", async () => {
    const response = await invoke(handler, upload({ file: aJsonlFile(), purpose: "batch" }));

    expect(response.json).toMatchObject({ purpose: "batch", sample_type: "batch_request" });
  });

  it("sets expires_at from the expiry in hours and the visibility from the form", async () => {
    const response = await invoke(handler, upload({ file: aJsonlFile(), expiry: "48", visibility: "user" }));

    expect(response.json.expires_at).toBe(Math.floor(NOW_MS / 1000) + 48 * 3600);
    expect(response.json.visibility).toBe("user");
    const put = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems![0]!.Put!;
    expect(put.Item).toMatchObject({ expiresAt: Math.floor(NOW_MS / 1000) + 48 * 3600, ttl: Math.floor(NOW_MS / 1000) + 48 * 3600, visibility: "user" });
  });

  it("refuses a non-JSONL file for fine-tuning with 400 and stores nothing", async () => {
    const response = await invoke(handler, upload({ file: { filename: "notes.txt", content: "hello" }, purpose: "fine-tune" }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toStrictEqual(
      aPlatformError({
        message: "Files with purpose 'fine-tune' must be JSON lines (a .jsonl name, or every line a JSON object)",
        type: "invalid_request_error",
        param: "file",
        code: "invalid_file_type",
      }),
    );
    expect(s3.calls()).toHaveLength(0);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("judges a fine-tuning file without a .jsonl name by its content: JSON lines are stored with their line count", async () => {
    const content = '{"messages":[{"role":"user","content":"a"}]}\n{"messages":[{"role":"user","content":"b"}]}\n';
    const response = await invoke(handler, upload({ file: { filename: "blob", content, type: "application/json" }, purpose: "fine-tune" }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ filename: "blob", purpose: "fine-tune", num_lines: 2, mimetype: "application/json" });
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(1);
  });

  it.each([
    ["a line that is not JSON", '{"a":1}\nnot json\n'],
    ["a JSON value that is not an object", '{"a":1}\n[1,2]\n'],
    ["no line at all", "\n \n"],
  ])("refuses a fine-tuning file without a .jsonl name holding %s, storing nothing", async (_, content) => {
    const response = await invoke(handler, upload({ file: { filename: "blob", content }, purpose: "fine-tune" }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ code: "invalid_file_type" });
    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 413 for a file larger than the inline route takes and stores nothing", async () => {
    const response = await invoke(handler, upload({ file: aJsonlFile(Buffer.alloc(4 * 1024 * 1024 + 1, 0x61)) }));

    expect(response.statusCode).toBe(413);
    expect(response.json).toMatchObject({ object: "error", type: "invalid_request_error", code: "use_large_upload" });
    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 422 when the file part is missing", async () => {
    const response = await invoke(handler, upload({ purpose: "batch" }));

    expect(response.statusCode).toBe(422);
    expect(response.json).toStrictEqual({ detail: [{ loc: ["body", "file"], msg: "Field required", type: "missing" }] });
  });

  it("answers 422 for an unknown purpose", async () => {
    const response = await invoke(handler, upload({ file: aJsonlFile(), purpose: "pretraining" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["body", "purpose"], msg: expect.any(String), type: "enum" }]);
  });

  it("answers 422 for an expiry that is not a positive whole number of hours", async () => {
    const response = await invoke(handler, upload({ file: aJsonlFile(), expiry: "0" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "expiry"]);
  });

  it("answers 415 for a body that is not multipart/form-data", async () => {
    const event = anEvent({ method: "POST", caller, headers: { "Content-Type": "application/json" }, body: "{}" });

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(415);
    expect(response.json).toMatchObject({ object: "error", type: "invalid_request_error" });
  });

  it("answers 401 without the authorizer context and stores nothing", async () => {
    const response = await invoke(handler, upload({ file: aJsonlFile() }, null));

    expect(response.statusCode).toBe(401);
    expect(response.headers?.["x-request-id"]).toBeTruthy();
    expect(s3.calls()).toHaveLength(0);
  });
});

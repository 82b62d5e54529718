import { Readable } from "node:stream";
import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { CompleteMultipartUploadCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3ServiceException } from "@aws-sdk/client-s3";
import { DeleteCommand, GetCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/files/complete-upload.js";
import type { PendingUpload } from "../../../shared/domain/file-rules.js";
import { freezeDate, mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, aFile, aFileItem, aJsonEvent, aPendingUpload, aPendingUploadItem, invoke } from "../../support/builders.js";

const dynamo = mockDynamo({ resolves: {} });
const s3 = mockS3({ resolves: {} });

const NOW_MS = 1_800_000_000_500;
const NOW = Math.floor(NOW_MS / 1000);
const MiB = 1024 * 1024;
const caller = aCaller();
const allParts = { parts: [{ part_number: 1, etag: '"e1"' }, { part_number: 2, etag: '"e2"' }, { part_number: 3, etag: '"e3"' }] };

freezeDate(NOW_MS);

const complete = (uploadId: string, body: unknown = allParts, who: ReturnType<typeof aCaller> | null = caller) =>
  aJsonEvent(body, {
    path: `/v1/files/uploads/${uploadId}/complete`,
    resource: "/v1/files/uploads/{upload_id}/complete",
    pathParameters: { upload_id: uploadId },
    caller: who,
  });

const bodyOf = (...chunks: string[]) => Readable.from(chunks.map((c) => Buffer.from(c))) as never;

/** The caller's pending upload of a 3-part JSONL file whose assembled object holds `bytes` bytes. */
function pending(overrides: Partial<PendingUpload> = {}, assembled = { bytes: overrides.bytes ?? 20 * MiB, chunks: ['{"a":1}\n', '{"a":2}\n'] }) {
  const upload = aPendingUpload({ workspace: caller.workspace, owner: caller.principal, expiresAt: NOW + 600, ...overrides });
  dynamo.on(GetCommand, { Key: { workspace: upload.workspace, sk: `UPLOAD#${upload.id}` } }).resolves({ Item: aPendingUploadItem(upload) });
  s3.on(HeadObjectCommand).resolves({ ContentLength: assembled.bytes });
  s3.on(GetObjectCommand).callsFake(() => ({ Body: bodyOf(...assembled.chunks) }));
  return upload;
}

const s3Error = (name: string) => new S3ServiceException({ name, $fault: "client", $metadata: {}, message: `${name} from S3` });

describe("POST /v1/files/uploads/{upload_id}/complete", () => {
  it("answers 200 JSON with the new File", async () => {
    const upload = pending({ filename: "big.jsonl", purpose: "batch", visibility: "user", expiryHours: 6 });
    const event = complete(upload.id);

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({
      id: upload.id,
      object: "file",
      bytes: upload.bytes,
      created_at: NOW,
      filename: "big.jsonl",
      purpose: "batch",
      sample_type: "batch_request",
      source: "upload",
      num_lines: 2,
      mimetype: "application/jsonl",
      signature: null,
      expires_at: NOW + 6 * 3600,
      visibility: "user",
    });
  });

  it("reads the pending upload by the caller's workspace", async () => {
    const upload = pending();

    await invoke(handler, complete(upload.id));

    expect(dynamo.commandCalls(GetCommand)[0]!.args[0].input).toStrictEqual({
      TableName: "platform-files",
      Key: { workspace: caller.workspace, sk: `UPLOAD#${upload.id}` },
    });
  });

  it("completes the S3 upload with the parts in part-number order", async () => {
    const upload = pending();

    await invoke(handler, complete(upload.id, { parts: [allParts.parts[2], allParts.parts[0], allParts.parts[1]] }));

    const completions = s3.commandCalls(CompleteMultipartUploadCommand);
    expect(completions).toHaveLength(1);
    expect(completions[0]!.args[0].input).toStrictEqual({
      Bucket: "platform-files",
      Key: upload.objectKey,
      UploadId: upload.s3UploadId,
      MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"e1"' }, { PartNumber: 2, ETag: '"e2"' }, { PartNumber: 3, ETag: '"e3"' }] },
    });
  });

  it("creates the file record and removes the pending upload in one transaction", async () => {
    const upload = pending();

    await invoke(handler, complete(upload.id));

    const transactions = dynamo.commandCalls(TransactWriteCommand);
    expect(transactions).toHaveLength(1);
    const [put, remove] = transactions[0]!.args[0].input.TransactItems!;
    expect(put!.Put).toMatchObject({
      TableName: "platform-files",
      ConditionExpression: "attribute_not_exists(sk)",
      Item: { workspace: caller.workspace, sk: `FILE#${upload.id}`, id: upload.id, owner: caller.principal, objectKey: upload.objectKey, numLines: 2 },
    });
    expect(remove!.Delete).toStrictEqual({
      TableName: "platform-files",
      Key: { workspace: caller.workspace, sk: `UPLOAD#${upload.id}` },
      ConditionExpression: "attribute_exists(sk)",
    });
  });

  it("counts a file without expiry in its scope's counter in the same transaction", async () => {
    const upload = pending({ visibility: "workspace", expiryHours: null });

    await invoke(handler, complete(upload.id));

    const items = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items).toHaveLength(3);
    expect(items[2]!.Update).toMatchObject({
      Key: { workspace: caller.workspace, sk: "#COUNT#workspace" },
      UpdateExpression: "ADD #files :delta",
      ExpressionAttributeValues: { ":delta": 1 },
    });
  });

  it("leaves the counters alone for a file that expires", async () => {
    const upload = pending({ expiryHours: 24 });

    await invoke(handler, complete(upload.id));

    const items = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items.map((i) => Object.keys(i))).toStrictEqual([["Put"], ["Delete"]]);
  });

  it("counts JSONL lines across chunk boundaries", async () => {
    const upload = pending({}, { bytes: 20 * MiB, chunks: ['{"a":1}\n{"a"', ':2}\n\n', '{"a":3}'] });

    const response = await invoke(handler, complete(upload.id));

    expect(response.json.num_lines).toBe(3);
  });

  it("does not read the object of a file that is not JSONL", async () => {
    const upload = pending({ filename: "scan.pdf", mimetype: "application/pdf", purpose: "ocr" });

    const response = await invoke(handler, complete(upload.id));

    expect(response.json.num_lines).toBeNull();
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });

  it("answers 413 and deletes the object and the pending upload when the parts hold more than declared", async () => {
    const upload = pending({ bytes: 20 * MiB }, { bytes: 20 * MiB + 1, chunks: [] });

    const response = await invoke(handler, complete(upload.id));

    expect(response.statusCode).toBe(413);
    expect(response.json).toMatchObject({ object: "error", type: "invalid_request_error", code: "upload_size_mismatch" });
    expect(s3.commandCalls(DeleteObjectCommand).map((c) => c.args[0].input)).toStrictEqual([{ Bucket: "platform-files", Key: upload.objectKey }]);
    expect(dynamo.commandCalls(DeleteCommand).map((c) => c.args[0].input.Key)).toStrictEqual([{ workspace: caller.workspace, sk: `UPLOAD#${upload.id}` }]);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it("answers 400 and deletes the object when the parts hold less than declared", async () => {
    const upload = pending({ bytes: 20 * MiB }, { bytes: 16 * MiB, chunks: [] });

    const response = await invoke(handler, complete(upload.id));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ code: "upload_size_mismatch", param: "parts" });
    expect(s3.commandCalls(DeleteObjectCommand).map((c) => c.args[0].input.Key)).toStrictEqual([upload.objectKey]);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it("answers 404 for an unknown upload", async () => {
    const response = await invoke(handler, complete(aPendingUpload().id));

    expect(response.statusCode).toBe(404);
    expect(response.json).toMatchObject({ object: "error", type: "not_found_error", code: "upload_not_found" });
    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 409 when the upload already became the caller's file", async () => {
    const file = aFile({ workspace: caller.workspace, owner: caller.principal });
    dynamo.on(GetCommand, { Key: { workspace: caller.workspace, sk: `FILE#${file.id}` } }).resolves({ Item: aFileItem(file) });

    const response = await invoke(handler, complete(file.id));

    expect(response.statusCode).toBe(409);
    expect(response.json).toMatchObject({ object: "error", type: "conflict_error", code: "upload_completed" });
    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 404, not 409, when the id names another principal's file", async () => {
    const file = aFile({ workspace: caller.workspace });
    dynamo.on(GetCommand, { Key: { workspace: caller.workspace, sk: `FILE#${file.id}` } }).resolves({ Item: aFileItem(file) });

    const response = await invoke(handler, complete(file.id));

    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("upload_not_found");
  });

  it("answers 404 for an upload of another workspace", async () => {
    const upload = pending({ workspace: aCaller().workspace });

    const response = await invoke(handler, complete(upload.id));

    expect(response.statusCode).toBe(404);
    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 404 for another principal's upload", async () => {
    const upload = pending({ owner: aCaller().principal });

    const response = await invoke(handler, complete(upload.id));

    expect(response.statusCode).toBe(404);
    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 404 once the part URLs have expired", async () => {
    const upload = pending({ expiresAt: NOW });

    const response = await invoke(handler, complete(upload.id));

    expect(response.statusCode).toBe(404);
  });

  it("answers 400 for a part number listed twice, before touching S3", async () => {
    const upload = pending();

    const response = await invoke(handler, complete(upload.id, { parts: [{ part_number: 1, etag: "a" }, { part_number: 1, etag: "b" }] }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ code: "invalid_parts", param: "parts" });
    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 400 for a part number beyond the upload's part count", async () => {
    const upload = pending({ partCount: 3 });

    const response = await invoke(handler, complete(upload.id, { parts: [...allParts.parts, { part_number: 4, etag: "x" }] }));

    expect(response.statusCode).toBe(400);
    expect(response.json.code).toBe("invalid_parts");
    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 400 when S3 refuses the parts", async () => {
    const upload = pending();
    s3.on(CompleteMultipartUploadCommand).rejects(s3Error("InvalidPart"));

    const response = await invoke(handler, complete(upload.id));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ code: "invalid_parts", param: "parts" });
  });

  it("answers 409 when S3 no longer knows the upload and holds no assembled object", async () => {
    const upload = pending();
    s3.on(CompleteMultipartUploadCommand).rejects(s3Error("NoSuchUpload"));
    s3.on(HeadObjectCommand).rejects(s3Error("NotFound"));

    const response = await invoke(handler, complete(upload.id));

    expect(response.statusCode).toBe(409);
    expect(response.json).toMatchObject({ type: "conflict_error", code: "upload_completed" });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it("records the file when a retry finds the object already assembled by an earlier attempt", async () => {
    const upload = pending();
    s3.on(CompleteMultipartUploadCommand).rejects(s3Error("NoSuchUpload"));

    const response = await invoke(handler, complete(upload.id));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: upload.id, bytes: upload.bytes });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it("answers 409 when a concurrent completion won the transaction", async () => {
    const upload = pending();
    dynamo.on(TransactWriteCommand).rejects(new TransactionCanceledException({ message: "Transaction cancelled", $metadata: {} }));

    const response = await invoke(handler, complete(upload.id));

    expect(response.statusCode).toBe(409);
    expect(response.json.code).toBe("upload_completed");
  });

  it("answers 422 for an empty parts list", async () => {
    const upload = pending();

    const response = await invoke(handler, complete(upload.id, { parts: [] }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["body", "parts"], msg: expect.any(String), type: expect.any(String) }]);
  });

  it("answers 422 for an unknown field in a part", async () => {
    const upload = pending();

    const response = await invoke(handler, complete(upload.id, { parts: [{ part_number: 1, etag: "a", size: 3 }] }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["body", "parts", 0, "size"], msg: "Extra inputs are not permitted", type: "extra_forbidden" }]);
  });

  it("answers 422 for an upload id that is not a UUID", async () => {
    const response = await invoke(handler, complete("upload-1"));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["path", "upload_id"], msg: "Input should be a valid UUID", type: "uuid_parsing" }]);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("answers 401 without the authorizer context", async () => {
    const response = await invoke(handler, complete(aPendingUpload().id, allParts, null));

    expect(response.statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

import { CreateMultipartUploadCommand } from "@aws-sdk/client-s3";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/files/start-upload.js";
import { freezeDate, mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke } from "../../support/builders.js";

const dynamo = mockDynamo({ resolves: {} });
const s3 = mockS3({ resolves: {} });

const NOW = 1_800_000_000;
const MiB = 1024 * 1024;
const caller = aCaller();

freezeDate(NOW * 1000);
beforeEach(() => {
  s3.on(CreateMultipartUploadCommand).resolves({ UploadId: "s3-multipart-1" });
});

const startUpload = (body: unknown, who: ReturnType<typeof aCaller> | null = caller) => aJsonEvent(body, { path: "/v1/files/uploads", caller: who });
const aLargeJsonl = (bytes = 20 * MiB) => ({ filename: "big.jsonl", bytes });

describe("POST /v1/files/uploads", () => {
  it("answers 200 JSON with the upload, its part URLs and when they expire", async () => {
    const event = startUpload(aLargeJsonl());

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      object: "file.upload",
      file_id: response.json.id,
      part_size: 8 * MiB,
      parts: [1, 2, 3].map((n) => ({ part_number: n, url: expect.any(String) })),
      expires_at: NOW + 3600,
    });
  });

  it.each([
    [1, 1],
    [8 * MiB, 1],
    [8 * MiB + 1, 2],
    [512 * MiB, 64],
  ])("splits %i bytes into %i parts of 8 MiB", async (bytes, parts) => {
    const response = await invoke(handler, startUpload(aLargeJsonl(bytes)));

    expect(response.json.part_size).toBe(8 * MiB);
    expect(response.json.parts).toHaveLength(parts);
  });

  it("starts one S3 multipart upload under the workspace prefix with the file's type", async () => {
    const response = await invoke(handler, startUpload(aLargeJsonl()));

    const starts = s3.commandCalls(CreateMultipartUploadCommand);
    expect(starts).toHaveLength(1);
    expect(starts[0]!.args[0].input).toStrictEqual({
      Bucket: "platform-files",
      Key: `workspaces/${caller.workspace}/files/${response.json.file_id}`,
      ContentType: "application/jsonl",
    });
  });

  it("presigns each part URL for its part number of that S3 upload", async () => {
    const response = await invoke(handler, startUpload(aLargeJsonl()));

    for (const part of response.json.parts) {
      const url = new URL(part.url);
      expect(url.pathname).toMatch(new RegExp(`/workspaces/${caller.workspace}/files/${response.json.file_id}$`));
      expect(url.searchParams.get("partNumber")).toBe(String(part.part_number));
      expect(url.searchParams.get("uploadId")).toBe("s3-multipart-1");
      expect(url.searchParams.get("X-Amz-Expires")).toBe("3600");
    }
  });

  it("records the pending upload once, in the caller's workspace", async () => {
    const response = await invoke(handler, startUpload({ ...aLargeJsonl(), purpose: "batch", visibility: "user", expiry: 12 }));

    const writes = dynamo.commandCalls(PutCommand);
    expect(writes).toHaveLength(1);
    expect(writes[0]!.args[0].input).toStrictEqual({
      TableName: "platform-files",
      ConditionExpression: "attribute_not_exists(sk)",
      Item: {
        workspace: caller.workspace,
        sk: `UPLOAD#${response.json.id}`,
        id: response.json.id,
        organization: caller.organization,
        owner: caller.principal,
        s3UploadId: "s3-multipart-1",
        objectKey: `workspaces/${caller.workspace}/files/${response.json.id}`,
        filename: "big.jsonl",
        bytes: 20 * MiB,
        purpose: "batch",
        visibility: "user",
        expiryHours: 12,
        mimetype: "application/jsonl",
        partSize: 8 * MiB,
        partCount: 3,
        urlsExpireAt: NOW + 3600,
        ttl: NOW + 3600,
      },
    });
  });

  it("keeps a declared content type", async () => {
    await invoke(handler, startUpload({ filename: "scan.pdf", bytes: 10 * MiB, purpose: "ocr", mimetype: "application/pdf" }));

    expect(s3.commandCalls(CreateMultipartUploadCommand)[0]!.args[0].input.ContentType).toBe("application/pdf");
  });

  it("refuses a non-JSONL file for fine-tuning with 400 before starting anything", async () => {
    const response = await invoke(handler, startUpload({ filename: "big.csv", bytes: 10 * MiB, purpose: "fine-tune" }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ object: "error", type: "invalid_request_error", code: "invalid_file_type", param: "file" });
    expect(s3.calls()).toHaveLength(0);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("takes fine-tune as the default purpose", async () => {
    const response = await invoke(handler, startUpload({ filename: "big.csv", bytes: 10 * MiB }));

    expect(response.statusCode).toBe(400);
    expect(response.json.code).toBe("invalid_file_type");
  });

  it("reports a value of the wrong type as such, not as missing", async () => {
    const response = await invoke(handler, startUpload({ filename: 5, bytes: "10" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toEqual([
      expect.objectContaining({ loc: ["body", "filename"], type: "string_type" }),
      expect.objectContaining({ loc: ["body", "bytes"], type: "number_type" }),
    ]);
  });

  it("answers 422 for more than 512 MB", async () => {
    const response = await invoke(handler, startUpload(aLargeJsonl(512 * MiB + 1)));

    expect(response.statusCode).toBe(422);
    expect(response.json).toStrictEqual({ detail: [{ loc: ["body", "bytes"], msg: expect.any(String), type: "less_than_equal" }] });
    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 422 for an empty file", async () => {
    const response = await invoke(handler, startUpload(aLargeJsonl(0)));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["body", "bytes"], msg: expect.any(String), type: "greater_than_equal" }]);
  });

  it("answers 422 naming a missing filename", async () => {
    const response = await invoke(handler, startUpload({ bytes: 10 }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["body", "filename"], msg: "Field required", type: "missing" }]);
  });

  it("answers 422 for an unknown field", async () => {
    const response = await invoke(handler, startUpload({ ...aLargeJsonl(), parts: 3 }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["body", "parts"], msg: "Extra inputs are not permitted", type: "extra_forbidden" }]);
  });

  it("answers 422 json_invalid for a body that is not JSON", async () => {
    const event = anEvent({ method: "POST", path: "/v1/files/uploads", caller, headers: { "Content-Type": "application/json" }, body: "{bytes:" });

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["body"], msg: expect.any(String), type: "json_invalid" }]);
  });

  it("answers 415 for a body that is not declared as JSON", async () => {
    const event = anEvent({ method: "POST", path: "/v1/files/uploads", caller, headers: { "Content-Type": "text/plain" }, body: JSON.stringify(aLargeJsonl()) });

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(415);
    expect(response.json).toMatchObject({ object: "error", type: "invalid_request_error" });
  });

  it("answers 401 without the authorizer context", async () => {
    const response = await invoke(handler, startUpload(aLargeJsonl(), null));

    expect(response.statusCode).toBe(401);
    expect(s3.calls()).toHaveLength(0);
  });
});

import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { DeleteObjectCommand } from "@aws-sdk/client-s3";
import { TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/files/delete.js";
import type { FileRecord } from "../../../shared/domain/file-rules.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, aFile, aFileItem, anEvent, invoke } from "../../support/builders.js";
import { useFakeTables } from "../../support/fake-table.js";

const dynamo = mockDynamo({ resolves: {} });
const s3 = mockS3({ resolves: {} });
const tables = useFakeTables(dynamo);

const caller = aCaller();

const remove = (fileId: string, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({ method: "DELETE", path: `/v1/files/${fileId}`, resource: "/v1/files/{file_id}", pathParameters: { file_id: fileId }, caller: who });

const stored = (file: FileRecord) => tables.put("files", aFileItem(file));

const deletions = () => dynamo.commandCalls(TransactWriteCommand);

describe("DELETE /v1/files/{file_id}", () => {
  it("answers 200 JSON with the delete result", async () => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);
    const event = remove(file.id);

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({ id: file.id, object: "file", deleted: true });
  });

  it("deletes the record by the caller's workspace and the file id, only if it still exists", async () => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);

    await invoke(handler, remove(file.id));

    expect(deletions()).toHaveLength(1);
    expect(deletions()[0]!.args[0].input.TransactItems![0]).toStrictEqual({
      Delete: { TableName: "platform-files", Key: { workspace: caller.workspace, sk: `FILE#${file.id}` }, ConditionExpression: "attribute_exists(sk)" },
    });
  });

  it("takes a file without expiry off its scope's counter in the same transaction", async () => {
    const file = aFile({ workspace: caller.workspace, visibility: "user", owner: caller.principal, expiresAt: null });
    stored(file);

    await invoke(handler, remove(file.id));

    const items = deletions()[0]!.args[0].input.TransactItems!;
    expect(items).toHaveLength(2);
    expect(items[1]!.Update).toMatchObject({
      Key: { workspace: caller.workspace, sk: `#COUNT#user#${caller.principal}` },
      UpdateExpression: "ADD #files :delta",
      ExpressionAttributeValues: { ":delta": -1 },
    });
  });

  it("leaves the counters alone when deleting a file that expires", async () => {
    const file = aFile({ workspace: caller.workspace, expiresAt: Math.floor(Date.now() / 1000) + 3600 });
    stored(file);

    await invoke(handler, remove(file.id));

    expect(deletions()[0]!.args[0].input.TransactItems!.map((i) => Object.keys(i))).toStrictEqual([["Delete"]]);
  });

  it("deletes the stored bytes", async () => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);

    await invoke(handler, remove(file.id));

    const deletes = s3.commandCalls(DeleteObjectCommand);
    expect(deletes).toHaveLength(1);
    expect(deletes[0]!.args[0].input).toStrictEqual({ Bucket: "platform-files", Key: `workspaces/${caller.workspace}/files/${file.id}` });
  });

  it("deletes the record before the bytes", async () => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);
    const order: string[] = [];
    dynamo.on(TransactWriteCommand).callsFake(() => (order.push("record"), {}));
    s3.on(DeleteObjectCommand).callsFake(() => (order.push("object"), {}));

    await invoke(handler, remove(file.id));

    expect(order).toStrictEqual(["record", "object"]);
  });

  it("keeps the bytes when the record cannot be deleted", async () => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);
    dynamo.on(TransactWriteCommand).rejects(new Error("throttled"));

    const response = await invoke(handler, remove(file.id));

    expect(response.statusCode).toBe(500);
    expect(s3.commandCalls(DeleteObjectCommand)).toHaveLength(0);
  });

  it("answers 404 for a file of another workspace and deletes nothing", async () => {
    const file = aFile();
    stored(file);

    const response = await invoke(handler, remove(file.id));

    expect(response.statusCode).toBe(404);
    expect(response.json).toMatchObject({ object: "error", type: "not_found_error", code: "file_not_found" });
    expect(deletions()).toHaveLength(0);
    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 404 for another principal's user-visible file and deletes nothing", async () => {
    const file = aFile({ workspace: caller.workspace, visibility: "user" });
    stored(file);

    const response = await invoke(handler, remove(file.id));

    expect(response.statusCode).toBe(404);
    expect(deletions()).toHaveLength(0);
    expect(s3.calls()).toHaveLength(0);
  });

  it("lets the owner delete a user-visible file", async () => {
    const file = aFile({ workspace: caller.workspace, visibility: "user", owner: caller.principal });
    stored(file);

    const response = await invoke(handler, remove(file.id));

    expect(response.statusCode).toBe(200);
  });

  it("answers 404 for an expired file", async () => {
    const file = aFile({ workspace: caller.workspace, expiresAt: Math.floor(Date.now() / 1000) - 1 });
    stored(file);

    const response = await invoke(handler, remove(file.id));

    expect(response.statusCode).toBe(404);
    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 404 and keeps the bytes when a concurrent delete removed the record first", async () => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);
    dynamo.on(TransactWriteCommand).rejects(new TransactionCanceledException({ message: "Transaction cancelled", $metadata: {} }));

    const response = await invoke(handler, remove(file.id));

    expect(response.statusCode).toBe(404);
    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 422 for a file id that is not a UUID", async () => {
    const response = await invoke(handler, remove("123"));

    expect(response.statusCode).toBe(422);
    expect(response.json).toStrictEqual({ detail: [{ loc: ["path", "file_id"], msg: "Input should be a valid UUID", type: "uuid_parsing" }] });
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("answers 401 without the authorizer context", async () => {
    const response = await invoke(handler, remove(aFile().id, null));

    expect(response.statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/files/content.js";
import type { FileRecord } from "../../../shared/domain/file-rules.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, aFile, aFileItem, anEvent, invoke } from "../../support/builders.js";
import { useFakeTables } from "../../support/fake-table.js";

const dynamo = mockDynamo({ resolves: {} });
const s3 = mockS3({ resolves: {} });
const tables = useFakeTables(dynamo);

const caller = aCaller();

const content = (fileId: string, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({ path: `/v1/files/${fileId}/content`, resource: "/v1/files/{file_id}/content", pathParameters: { file_id: fileId }, caller: who });

const stored = (file: FileRecord) => tables.put("files", aFileItem(file));

describe("GET /v1/files/{file_id}/content", () => {
  it("answers 302 to a presigned URL of the file's object, with no body", async () => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);
    const event = content(file.id);

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(302);
    expect(response.body).toBe("");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.headers?.["cache-control"]).toBe("no-store");
    const location = new URL(String(response.headers?.location));
    expect(location.pathname).toMatch(new RegExp(`/workspaces/${caller.workspace}/files/${file.id}$`));
    expect(location.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
  });

  it("makes S3 serve the bytes as application/octet-stream", async () => {
    const file = aFile({ workspace: caller.workspace, mimetype: "application/jsonl" });
    stored(file);

    const response = await invoke(handler, content(file.id));

    expect(String(response.headers?.location)).toContain("response-content-type=application%2Foctet-stream");
  });

  it("names the download after the file", async () => {
    const file = aFile({ workspace: caller.workspace, filename: "my data.jsonl" });
    stored(file);

    const response = await invoke(handler, content(file.id));

    const location = new URL(String(response.headers?.location));
    expect(location.searchParams.get("response-content-disposition")).toBe("attachment; filename*=UTF-8''my%20data.jsonl");
  });

  it("signs the URL for five minutes", async () => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);

    const response = await invoke(handler, content(file.id));

    expect(new URL(String(response.headers?.location)).searchParams.get("X-Amz-Expires")).toBe("300");
  });

  it("sends no bytes through the function", async () => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);

    await invoke(handler, content(file.id));

    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 404 for a file of another workspace", async () => {
    const file = aFile();
    stored(file);

    const response = await invoke(handler, content(file.id));

    expect(response.statusCode).toBe(404);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.json).toMatchObject({ object: "error", type: "not_found_error", code: "file_not_found" });
    expect(response.headers?.location).toBeUndefined();
  });

  it("answers 404 for another principal's user-visible file", async () => {
    const file = aFile({ workspace: caller.workspace, visibility: "user" });
    stored(file);

    const response = await invoke(handler, content(file.id));

    expect(response.statusCode).toBe(404);
  });

  it("answers 404 for an expired file", async () => {
    const file = aFile({ workspace: caller.workspace, expiresAt: Math.floor(Date.now() / 1000) - 1 });
    stored(file);

    const response = await invoke(handler, content(file.id));

    expect(response.statusCode).toBe(404);
  });

  it("answers 422 for a file id that is not a UUID", async () => {
    const response = await invoke(handler, content("file-abc"));

    expect(response.statusCode).toBe(422);
    expect(response.json).toStrictEqual({ detail: [{ loc: ["path", "file_id"], msg: "Input should be a valid UUID", type: "uuid_parsing" }] });
  });

  it("answers 401 without the authorizer context", async () => {
    const response = await invoke(handler, content(aFile().id, null));

    expect(response.statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

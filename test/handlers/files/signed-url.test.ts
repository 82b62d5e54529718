import { randomBytes } from "node:crypto";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { FileRecord } from "../../../shared/domain/file-rules.js";
import { verifyDownload } from "../../../shared/domain/signed-urls.js";
import type { RouteHandler } from "../../../shared/http/route.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aFile, aFileItem, anEvent, invoke, aSigningKeyItem, SIGNING_KEY } from "../../support/builders.js";
import { useFakeTables } from "../../support/fake-table.js";

const dynamo = mockDynamo({ resolves: {} });
const tables = useFakeTables(dynamo, () => ({ tenancy: [aSigningKeyItem(SECRET)] }));

const NOW = 1_800_000_000;
const SECRET = randomBytes(32);
const caller = aCaller();
let handler: RouteHandler;

freezeDate(NOW * 1000);
beforeEach(async () => {
  // A fresh module graph per test: the signing secret is cached per process (per container).
  vi.resetModules();
  ({ handler } = await import("../../../functions/files/signed-url.js"));
});

const signedUrl = (fileId: string, query: Record<string, string> = {}, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({ path: `/v1/files/${fileId}/url`, resource: "/v1/files/{file_id}/url", pathParameters: { file_id: fileId }, query, caller: who });

const stored = (file: FileRecord) => tables.put("files", aFileItem(file));

const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;

describe("GET /v1/files/{file_id}/url", () => {
  it("answers 200 JSON with only a url", async () => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);
    const event = signedUrl(file.id);

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(Object.keys(response.json)).toStrictEqual(["url"]);
  });

  it("points at the download route of this API, under the stage the client used", async () => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);

    const response = await invoke(handler, signedUrl(file.id));

    expect(response.json.url).toMatch(new RegExp(`^https://api\\.example\\.test/prod/v1/files/${file.id}/download\\?token=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
  });

  it("signs a token for this workspace and file that expires after 24 hours by default", async () => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);

    const response = await invoke(handler, signedUrl(file.id));

    expect(verifyDownload(SECRET, tokenOf(response.json.url), NOW)).toStrictEqual({
      ok: true,
      grant: { workspace: caller.workspace, fileId: file.id, expiresAt: NOW + 24 * 3600 },
    });
  });

  it("signs a token that lives the requested number of hours", async () => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);

    const response = await invoke(handler, signedUrl(file.id, { expiry: "168" }));

    const check = verifyDownload(SECRET, tokenOf(response.json.url), NOW);
    expect(check.ok && check.grant.expiresAt).toBe(NOW + 168 * 3600);
  });

  it("reads the signing secret from the tenancy table once per container", async () => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);

    await invoke(handler, signedUrl(file.id));
    await invoke(handler, signedUrl(file.id));

    const secretReads = dynamo.commandCalls(GetCommand, { Key: SIGNING_KEY });
    expect(secretReads).toHaveLength(1);
    expect(secretReads[0]!.args[0].input.TableName).toBe("platform-tenancy");
  });

  it("answers 500 without internals when the signing secret is missing", async () => {
    dynamo.on(GetCommand, { Key: SIGNING_KEY }).resolves({});
    const file = aFile({ workspace: caller.workspace });
    stored(file);

    const response = await invoke(handler, signedUrl(file.id));

    expect(response.statusCode).toBe(500);
    expect(response.json.message).toBe("Internal server error");
  });

  it.each(["0", "169", "-1", "2.5", "day"])("answers 422 for expiry=%s", async (expiry) => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);

    const response = await invoke(handler, signedUrl(file.id, { expiry }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["query", "expiry"], msg: expect.any(String), type: expect.any(String) }]);
  });

  it("accepts the bounds 1 and 168", async () => {
    const file = aFile({ workspace: caller.workspace });
    stored(file);

    expect((await invoke(handler, signedUrl(file.id, { expiry: "1" }))).statusCode).toBe(200);
    expect((await invoke(handler, signedUrl(file.id, { expiry: "168" }))).statusCode).toBe(200);
  });

  it("answers 404 for a file of another workspace", async () => {
    const file = aFile();
    stored(file);

    const response = await invoke(handler, signedUrl(file.id));

    expect(response.statusCode).toBe(404);
    expect(response.json).toMatchObject({ object: "error", type: "not_found_error", code: "file_not_found" });
  });

  it("answers 404 for another principal's user-visible file", async () => {
    const file = aFile({ workspace: caller.workspace, visibility: "user" });
    stored(file);

    const response = await invoke(handler, signedUrl(file.id));

    expect(response.statusCode).toBe(404);
  });

  it("answers 404 for an expired file", async () => {
    const file = aFile({ workspace: caller.workspace, expiresAt: NOW });
    stored(file);

    const response = await invoke(handler, signedUrl(file.id));

    expect(response.statusCode).toBe(404);
  });

  it("answers 422 for a file id that is not a UUID", async () => {
    const response = await invoke(handler, signedUrl("nope"));

    expect(response.statusCode).toBe(422);
    expect(response.json).toStrictEqual({ detail: [{ loc: ["path", "file_id"], msg: "Input should be a valid UUID", type: "uuid_parsing" }] });
  });

  it("answers 401 without the authorizer context", async () => {
    const response = await invoke(handler, signedUrl(aFile().id, {}, null));

    expect(response.statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

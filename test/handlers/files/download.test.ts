import { randomBytes, randomUUID } from "node:crypto";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { FileRecord } from "../../../shared/domain/file-rules.js";
import { signDownload } from "../../../shared/domain/signed-urls.js";
import type { RouteHandler } from "../../../shared/http/route.js";
import { freezeDate, mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aFile, aFileItem, anEvent, invoke, aSigningKeyItem } from "../../support/builders.js";
import { aPlatformError } from "../../support/errors.js";
import { useFakeTables } from "../../support/fake-table.js";

const dynamo = mockDynamo({ resolves: {} });
const tables = useFakeTables(dynamo, () => ({ tenancy: [aSigningKeyItem(SECRET)] }));
const s3 = mockS3({ resolves: {} });

const NOW = 1_800_000_000;
const SECRET = randomBytes(32);
let handler: RouteHandler;

freezeDate(NOW * 1000);
beforeEach(async () => {
  // A fresh module graph per test: the signing secret is cached per process (per container).
  vi.resetModules();
  ({ handler } = await import("../../../functions/files/download.js"));
});

/** The public route: no authorizer context, only the token. */
const download = (fileId: string, query: Record<string, string>) =>
  anEvent({ path: `/v1/files/${fileId}/download`, resource: "/v1/files/{file_id}/download", pathParameters: { file_id: fileId }, query, caller: null });

const stored = (file: FileRecord) => tables.put("files", aFileItem(file));

const tokenFor = (file: Pick<FileRecord, "workspace" | "id">, expiresAt = NOW + 3600, secret = SECRET) =>
  signDownload(secret, { workspace: file.workspace, fileId: file.id, expiresAt });

describe("GET /v1/files/{file_id}/download", () => {
  it("answers 302 to a presigned URL of the file's object for a valid token, without an API key", async () => {
    const file = aFile();
    stored(file);
    const event = download(file.id, { token: tokenFor(file) });

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(302);
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.headers?.["cache-control"]).toBe("no-store");
    const location = String(response.headers?.location);
    expect(new URL(location).pathname).toMatch(new RegExp(`/workspaces/${file.workspace}/files/${file.id}$`));
    expect(location).toContain("response-content-type=application%2Foctet-stream");
    expect(s3.calls()).toHaveLength(0);
  });

  it("reads the file in the workspace the token names", async () => {
    const file = aFile();
    stored(file);

    await invoke(handler, download(file.id, { token: tokenFor(file) }));

    const fileReads = dynamo.commandCalls(GetCommand).filter((c) => c.args[0].input.TableName === "platform-files");
    expect(fileReads.map((c) => c.args[0].input.Key)).toStrictEqual([{ workspace: file.workspace, sk: `FILE#${file.id}` }]);
  });

  it("refuses a token whose payload was altered with 403", async () => {
    const file = aFile();
    const victim = aFile();
    stored(victim);
    const [, signature] = tokenFor(file).split(".");
    const forgedPayload = Buffer.from(JSON.stringify({ w: victim.workspace, f: victim.id, e: NOW + 3600 })).toString("base64url");

    const response = await invoke(handler, download(victim.id, { token: `${forgedPayload}.${signature}` }));

    expect(response.statusCode).toBe(403);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.json).toStrictEqual(aPlatformError({ message: "This signed URL is not valid", type: "permission_error", param: null, code: "signed_url_bad_signature" }));
    expect(response.headers?.location).toBeUndefined();
  });

  it("refuses a token with a flipped signature character with 403", async () => {
    const file = aFile();
    stored(file);
    const token = tokenFor(file);
    const tampered = token.slice(0, -2) + (token.at(-2) === "A" ? "B" : "A") + token.at(-1);

    const response = await invoke(handler, download(file.id, { token: tampered }));

    expect(response.statusCode).toBe(403);
  });

  it("refuses a token signed with another secret with 403", async () => {
    const file = aFile();
    stored(file);

    const response = await invoke(handler, download(file.id, { token: tokenFor(file, NOW + 3600, randomBytes(32)) }));

    expect(response.statusCode).toBe(403);
    expect(response.json.code).toBe("signed_url_bad_signature");
  });

  it("refuses a token for another file id with 403, without reading that file", async () => {
    const file = aFile();
    const other = aFile({ workspace: file.workspace });
    stored(other);

    const response = await invoke(handler, download(other.id, { token: tokenFor(file) }));

    expect(response.statusCode).toBe(403);
    expect(response.json.code).toBe("signed_url_bad_signature");
    expect(dynamo.commandCalls(GetCommand).filter((c) => c.args[0].input.TableName === "platform-files")).toHaveLength(0);
  });

  it("refuses an expired token with 403", async () => {
    const file = aFile();
    stored(file);
    const token = tokenFor(file, NOW + 3600);
    vi.setSystemTime((NOW + 7200) * 1000);

    const response = await invoke(handler, download(file.id, { token }));

    expect(response.statusCode).toBe(403);
    expect(response.json).toMatchObject({ message: "This signed URL has expired", type: "permission_error", code: "signed_url_expired" });
  });

  it("refuses a token at exactly its expiry second", async () => {
    const file = aFile();
    stored(file);
    const token = tokenFor(file, NOW + 3600);
    vi.setSystemTime((NOW + 3600) * 1000);

    const response = await invoke(handler, download(file.id, { token }));

    expect(response.statusCode).toBe(403);
    expect(response.json.code).toBe("signed_url_expired");
  });

  it("still honours a token one second before its expiry", async () => {
    const file = aFile();
    stored(file);
    const token = tokenFor(file, NOW + 3600);
    vi.setSystemTime((NOW + 3599) * 1000);

    const response = await invoke(handler, download(file.id, { token }));

    expect(response.statusCode).toBe(302);
  });

  it("refuses a malformed token with 403", async () => {
    const file = aFile();
    stored(file);

    const response = await invoke(handler, download(file.id, { token: "not-a-token" }));

    expect(response.statusCode).toBe(403);
    expect(response.json.code).toBe("signed_url_malformed");
  });

  it("answers 404 when the file was deleted after the URL was signed", async () => {
    const file = aFile();

    const response = await invoke(handler, download(file.id, { token: tokenFor(file) }));

    expect(response.statusCode).toBe(404);
    expect(response.json).toMatchObject({ type: "not_found_error", code: "file_not_found" });
  });

  it("answers 404 when the file itself has expired", async () => {
    const file = aFile({ expiresAt: NOW - 1 });
    stored(file);

    const response = await invoke(handler, download(file.id, { token: tokenFor(file) }));

    expect(response.statusCode).toBe(404);
  });

  it("answers 422 without a token", async () => {
    const response = await invoke(handler, download(randomUUID(), {}));

    expect(response.statusCode).toBe(422);
    expect(response.json).toStrictEqual({ detail: [{ loc: ["query", "token"], msg: "Field required", type: "missing" }] });
  });

  it("answers 422 for a file id that is not a UUID", async () => {
    const response = await invoke(handler, download("abc", { token: "x.y" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([{ loc: ["path", "file_id"], msg: "Input should be a valid UUID", type: "uuid_parsing" }]);
  });
  describe("after a rotation of the signing secret (npm run keys -- rotate-url-secret)", () => {
    const NEW_SECRET = randomBytes(32);
    const rotated = (previous?: Buffer) =>
      tables.put("tenancy", { ...aSigningKeyItem(NEW_SECRET), ...(previous ? { previous: previous.toString("base64") } : {}), rotatedAt: NOW - 60 });

    it("takes a URL the previous secret signed, during the overlap, and one the new secret signed", async () => {
      rotated(SECRET);
      const file = aFile();
      stored(file);

      expect((await invoke(handler, download(file.id, { token: tokenFor(file) }))).statusCode).toBe(302);
      expect((await invoke(handler, download(file.id, { token: tokenFor(file, NOW + 3600, NEW_SECRET) }))).statusCode).toBe(302);
    });

    it("refuses a URL the old secret signed after a rotation without overlap", async () => {
      rotated();
      const file = aFile();
      stored(file);

      const response = await invoke(handler, download(file.id, { token: tokenFor(file) }));

      expect(response.statusCode).toBe(403);
      expect(response.json.code).toBe("signed_url_bad_signature");
    });

    it("still refuses an expired URL the previous secret signed", async () => {
      rotated(SECRET);
      const file = aFile();
      stored(file);

      expect((await invoke(handler, download(file.id, { token: tokenFor(file, NOW - 1) }))).statusCode).toBe(403);
    });
  });
});

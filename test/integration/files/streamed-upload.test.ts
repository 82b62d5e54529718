/**
 * POST /v1/files through the streaming upload service on the embedded servers (the local server sends the
 * route there, as the deployment's CloudFront function does): real keys and roles in DynamoDB Local, real
 * objects in s3rver. What a refused or abandoned upload leaves behind: nothing.
 */
import { request, type IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { STREAM_PART_BYTES } from "../../../shared/blobs/files.js";
import { useEmbeddedApi } from "../../support/api.js";
import { filesClient, follow, objectsOf } from "../../support/files-client.js";
import { sleep } from "../../support/local-process.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const files = filesClient(api, tenant);
const BOUNDARY = "----streamed-upload";
const head = (filename: string) =>
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`);

/** A raw request to POST /v1/files whose body this test writes itself. */
function rawUpload(headers: Record<string, string | number>) {
  const { hostname, port } = new URL(api.url);
  let answered: (value: { status: number; body: string }) => void;
  const answer = new Promise<{ status: number; body: string }>((resolve) => (answered = resolve));
  const req = request(
    { host: hostname, port, path: "/v1/files", method: "POST", headers: { authorization: `Bearer ${tenant.key}`, "content-type": `multipart/form-data; boundary=${BOUNDARY}`, ...headers } },
    (res: IncomingMessage) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk));
      res.on("end", () => answered({ status: res.statusCode!, body }));
    },
  );
  req.on("error", () => undefined);
  return { req, answer };
}

describe("POST /v1/files through the streaming upload service", () => {
  it("stores a file of several parts and serves the same bytes back", async () => {
    const content = Buffer.alloc(2 * STREAM_PART_BYTES + 1000);
    for (let i = 0; i < content.length; i += 1) content[i] = i % 251;

    const file = await files.uploaded({ filename: "weights.bin", content, purpose: "batch" });

    expect(file).toMatchObject({ bytes: content.length, num_lines: null, mimetype: "application/octet-stream" });
    expect(await objectsOf(tenant.caller.workspace)).toEqual([`workspaces/${tenant.caller.workspace}/files/${file.id}`]);
    expect((await follow(await files.content(file.id))).bytes.equals(content)).toBe(true);
  });

  it("answers 413 naming 512 MB to a declared length over the limit without waiting for the body, and stores nothing", async () => {
    const { req, answer } = rawUpload({ "content-length": 600 * 1024 * 1024 });
    req.write(head("huge.jsonl"));

    const { status, body } = await answer;
    req.destroy();

    expect(status).toBe(413);
    expect(JSON.parse(body)).toMatchObject({ object: "error", code: "file_too_large", message: expect.stringContaining("(512 MB)") });
    expect(await objectsOf(tenant.caller.workspace)).toEqual([]);
  });

  it("leaves no object and no record when the client goes away mid-file", async () => {
    const { req } = rawUpload({ "transfer-encoding": "chunked" });
    req.write(head("cut.bin"));
    req.write(Buffer.alloc(STREAM_PART_BYTES + 1024 * 1024, 0x61));
    await sleep(500);

    req.destroy();
    await sleep(1000);

    expect(await objectsOf(tenant.caller.workspace)).toEqual([]);
    expect((await files.list()).body).toMatchObject({ data: [], total: 0 });
  });

  it("refuses a key without files:write (403) and one that is revoked or unknown (401), storing nothing", async () => {
    const reader = await newTenant({ roles: ["billing"], workspace: tenant.caller.workspace, organization: tenant.caller.organization });

    const refused = await files.upload({ filename: "a.jsonl", content: "{}\n", purpose: "batch" }, { key: reader.key });
    const unknown = await files.upload({ filename: "a.jsonl", content: "{}\n", purpose: "batch" }, { key: "pak_not-a-real-key-at-all" });

    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ type: "permission_error", code: "missing_permission" });
    expect(unknown.status).toBe(401);
    expect(await objectsOf(tenant.caller.workspace)).toEqual([]);
  });
});

/**
 * `client.files.upload` of files far over the Lambda route's 4 MB, through the official SDK on the embedded API,
 * which sends POST /v1/files to the streaming upload service as `npm start` and the deployment's CloudFront
 * distribution do: the File the SDK parses, the record it retrieves and the bytes it downloads all match what
 * was sent. (In process rather than on a started `npm start`: the route is the same, and the suite starts
 * `npm start` only where `npm start` itself is the subject, docs/decisions/0047-test-suite-in-parallel.md.)
 */
import { createHash, randomBytes } from "node:crypto";
import type { Mistral } from "@mistralai/mistralai";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { sdkClient } from "../support/sdk.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;

beforeAll(() => {
  client = sdkClient(api, tenant.key, { timeoutMs: 180_000 });
});

/** `bytes` (about) of fine-tuning JSON lines, each line distinct so a misplaced part would show. */
function trainingLines(bytes: number): { content: Uint8Array; lines: number } {
  const parts: string[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n += 1) {
    const line = `${JSON.stringify({ messages: [{ role: "user", content: `question ${n} ${"x".repeat(180)}` }, { role: "assistant", content: `answer ${n}` }] })}\n`;
    parts.push(line);
    size += line.length;
  }
  return { content: new TextEncoder().encode(parts.join("")), lines: parts.length };
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function downloaded(fileId: string): Promise<Uint8Array> {
  const stream = await client.files.download({ fileId });
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

describe("POST /v1/files through the SDK and the streaming upload service, past the Lambda route's 4 MB", () => {
  it("uploads a 5 MB JSON-lines blob for fine-tuning, judged JSON lines by its content", async () => {
    const { content, lines } = trainingLines(5 * 1024 * 1024);

    const file = await client.files.upload({ file: new Blob([content as Uint8Array<ArrayBuffer>]), purpose: "fine-tune" });

    expect(file).toMatchObject({ object: "file", sizeBytes: content.length, purpose: "fine-tune", numLines: lines, source: "upload" });
    const retrieved = await client.files.retrieve({ fileId: file.id });
    expect(retrieved).toMatchObject({ id: file.id, sizeBytes: content.length, numLines: lines, deleted: false });
    expect(sha256(await downloaded(file.id))).toBe(sha256(content));
  });

  it("uploads a 50 MB .jsonl file and reads the same bytes back", async () => {
    const { content, lines } = trainingLines(50 * 1024 * 1024);

    const file = await client.files.upload({ file: { fileName: "train-50mb.jsonl", content }, purpose: "fine-tune" });

    expect(file).toMatchObject({ filename: "train-50mb.jsonl", sizeBytes: content.length, numLines: lines, mimetype: "application/jsonl" });
    const listed = await client.files.list({ search: "train-50mb" });
    expect(listed.data.map((f) => [f.id, f.sizeBytes])).toEqual([[file.id, content.length]]);
    expect(sha256(await downloaded(file.id))).toBe(sha256(content));
  }, 180_000);

  it("refuses a 5 MB file that is not JSON lines for fine-tuning, and keeps nothing of it", async () => {
    const content = randomBytes(5 * 1024 * 1024);
    const before = (await client.files.list({})).total;

    const error = await client.files.upload({ file: { fileName: "weights.bin", content }, purpose: "fine-tune" }).then(
      () => undefined,
      (e: { statusCode?: number; body?: string }) => e,
    );

    expect(error?.statusCode).toBe(400);
    expect(error?.body).toContain("invalid_file_type");
    expect((await client.files.list({})).total).toBe(before);
  });
});

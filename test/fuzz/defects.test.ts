/**
 * The defects the fuzz ring found (docs/testing.md, "The fuzz ring"), each pinned by the request that
 * showed it, through the local API Gateway stand-in: every one answered 500, took the process down, or
 * held the server for seconds before these fixes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { agentsClient, anAgentRequest } from "../support/agents-client.js";
import { filesClient } from "../support/files-client.js";
import { nested } from "../support/schema-arbitrary.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
const files = filesClient(api, tenant);
const agents = agentsClient(api, tenant);

const uncaught: Error[] = [];
const record = (error: Error) => uncaught.push(error);
beforeAll(() => void process.on("uncaughtException", record));
afterAll(() => void process.off("uncaughtException", record));

const post = (path: string, contentType: string, body: string) =>
  fetch(`${api.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${tenant.key}`, "content-type": contentType }, body });

describe("POST /v1/files", () => {
  it("refuses a multipart body cut short inside the file part with 422, and the process lives on", async () => {
    const cut = `--b\r\nContent-Disposition: form-data; name="file"; filename="a.jsonl"\r\nContent-Type: application/json\r\n\r\n{"a":1}\n`;

    const response = await post("/v1/files", "multipart/form-data; boundary=b", cut);
    await new Promise((r) => setTimeout(r, 50));

    expect(response.status).toBe(422);
    expect(uncaught).toEqual([]);
    expect((await files.list()).status).toBe(200);
  });
});

/** A form whose parts are these text fields, then a small file part. */
const aForm = (names: string[]) =>
  names.map((name) => `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\nv\r\n`).join("") +
  `--b\r\nContent-Disposition: form-data; name="file"; filename="a.jsonl"\r\nContent-Type: application/json\r\n\r\n{"a":1}\n\r\n--b--\r\n`;

describe.each(["/v1/files", "/v1/audio/transcriptions"])("POST %s (multipart)", (path) => {
  it.each([
    [["purpose", "purpose[]"]],
    [["model", "model[]"]],
    [["__proto__[]"]],
    [["constructor[]"]],
    [["x", "x[]"]],
  ])("answers a form with fields %j without a 5xx (a field it does not take is ignored), and the process lives on", async (names) => {
    const response = await post(path, "multipart/form-data; boundary=b", aForm(names));
    await new Promise((r) => setTimeout(r, 50));

    expect(response.status).toBeLessThan(500);
    expect(uncaught).toEqual([]);
    expect((await files.list()).status).toBe(200);
  });

  it("names the field sent both as a text field and as a list item in its 422", async () => {
    const response = await post(path, "multipart/form-data; boundary=b", aForm(["x", "x[]"]));

    expect(response.status).toBe(422);
    expect((await response.json()).detail).toEqual([expect.objectContaining({ loc: ["body", "x"], msg: expect.stringContaining("both as a text and as a list") })]);
  });
});

describe("POST /v1/files/uploads/{upload_id}/complete", () => {
  it("refuses parts that were never uploaded with 400 invalid_parts, as S3 does, and the process lives on", async () => {
    const started = await files.startUpload({ filename: "a.jsonl", bytes: 100 });

    const reply = await files.completeUpload(started.body.id, [{ part_number: 1, etag: '"0123456789abcdef0123456789abcdef"' }]);

    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe("invalid_parts");
    expect(uncaught).toEqual([]);
  });
});

describe("POST /v1/files/uploads", () => {
  it("refuses a mimetype that cannot be an HTTP header with 422", async () => {
    const reply = await files.startUpload({ filename: "a.jsonl", bytes: 1, mimetype: "Āa" });

    expect(reply.status).toBe(422);
    expect(reply.body.detail[0].loc).toEqual(["body", "mimetype"]);
  });
});

describe("POST /v1/agents", () => {
  it("refuses metadata with an empty key with 422 instead of DynamoDB's ValidationException", async () => {
    const reply = await agents.create(anAgentRequest({ metadata: { "": 0 } }));

    expect(reply.status).toBe(422);
  });

  it("refuses metadata nested deeper than DynamoDB keeps (32 levels) with 422", async () => {
    const reply = await agents.create(anAgentRequest({ metadata: { deep: nested(40) } }));

    expect(reply.status).toBe(422);
  });

  it("refuses an agent larger than one record holds (400 KB) with 413", async () => {
    const reply = await agents.create(anAgentRequest({ instructions: "i".repeat(500_000) }));

    expect(reply.status).toBe(413);
  });
});

describe("PATCH /v1/agents/{agent_id}", () => {
  it("refuses a number DynamoDB cannot store (5e-324) with 422", async () => {
    const agent = (await agents.create(anAgentRequest())).body;

    const reply = await agents.update(agent.id, { completion_args: { top_p: 5e-324 } });

    expect(reply.status).toBe(422);
  });

  it("answers a model name longer than any key with a 4xx", async () => {
    const agent = (await agents.create(anAgentRequest())).body;

    const reply = await agents.update(agent.id, { model: "z".repeat(1100) });

    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
  });
});

describe("GET /v1/agents/{agent_id}", () => {
  it("answers an agent_version alias longer than any key with 404", async () => {
    const agent = (await agents.create(anAgentRequest())).body;

    const reply = await agents.get(agent.id, { agent_version: "q".repeat(1100) });

    expect(reply.status).toBe(404);
  });
});

describe("POST /v1/chat/completions", () => {
  it("refuses a prompt of megabytes over the context by its bytes alone where they decide (a SentencePiece model)", async () => {
    const response = await post("/v1/chat/completions", "application/json", JSON.stringify({ model: "open-mistral-7b", messages: [{ role: "user", content: "word ".repeat(700_000) }] }));
    const body = await response.json();

    expect(response.status).toBe(400);
    expect(body.code).toBe("context_length_exceeded");
    // The byte bound's refusal names bytes and a lower bound of tokens; a counted one would name the exact count.
    expect(body.message).toMatch(/^Prompt \(3500\d{3} bytes, more than \d+ tokens\)/);
  });

  it("counts a prompt of megabytes that its bytes cannot decide (Tekken's long tokens) and refuses it with the exact count", async () => {
    const response = await post("/v1/chat/completions", "application/json", JSON.stringify({ model: "mistral-small-latest", messages: [{ role: "user", content: "word ".repeat(700_000) }] }));
    const body = await response.json();

    expect(response.status).toBe(400);
    expect(body.code).toBe("context_length_exceeded");
    expect(body.message).toMatch(/^Prompt \(700001 tokens\)/);
  });
});

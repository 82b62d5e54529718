import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { cosine, inferenceClient, norm } from "../../support/inference-client.js";

const MODEL = "mistral-embed";

const { api, tenant } = useEmbeddedApi();
const client = inferenceClient(api, tenant);

const vectors = (body: { data: { embedding: number[] }[] }) => body.data.map((d) => d.embedding);

describe("POST /v1/embeddings", () => {
  it("embeds one string: one 1024-long unit vector, usage and the backend header", async () => {
    const reply = await client.embeddings({ model: MODEL, input: "The quick brown fox" });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("x-inference-backend")).toBe("offline");
    expect(reply.body).toMatchObject({ object: "list", model: MODEL, data: [{ object: "embedding", index: 0 }] });
    expect(reply.body.id).toMatch(/^embd-/);
    const [vector] = vectors(reply.body);
    expect(vector).toHaveLength(1024);
    expect(norm(vector!)).toBeCloseTo(1, 6);
    expect(reply.body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(reply.body.usage).toEqual({ prompt_tokens: reply.body.usage.prompt_tokens, completion_tokens: 0, total_tokens: reply.body.usage.prompt_tokens });
  });

  it("embeds an array in order, each the vector the string alone gets, billing the sum of the inputs", async () => {
    const inputs = ["first text about cats", "a second, longer text about dogs and parks", "third"];
    const reply = await client.embeddings({ model: MODEL, input: inputs });
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((d: { index: number }) => d.index)).toEqual([0, 1, 2]);
    for (const v of vectors(reply.body)) {
      expect(v).toHaveLength(1024);
      expect(norm(v)).toBeCloseTo(1, 6);
    }
    const alone = await Promise.all(inputs.map((input) => client.embeddings({ model: MODEL, input })));
    alone.forEach((one, i) => expect(vectors(reply.body)[i]).toEqual(vectors(one.body)[0]));
    const sum = alone.reduce((total, one) => total + one.body.usage.prompt_tokens, 0);
    expect(reply.body.usage.prompt_tokens).toBe(sum);
    expect(alone.every((one) => one.body.usage.prompt_tokens > 0)).toBe(true);
  });

  it("puts texts that share words closer than unrelated ones", async () => {
    const reply = await client.embeddings({
      model: MODEL,
      input: ["the cat sat on the mat", "a cat sat on a mat", "quarterly revenue grew nine percent"],
    });
    const [a, b, c] = vectors(reply.body) as [number[], number[], number[]];
    expect(cosine(a, b)).toBeGreaterThan(0.5);
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c) + 0.3);
    expect(cosine(b, c)).toBeLessThan(0.3);
  });

  it("answers the same vector for the same text (deterministic)", async () => {
    const one = await client.embeddings({ model: MODEL, input: "repeat me" });
    const two = await client.embeddings({ model: MODEL, input: "repeat me" });
    expect(vectors(one.body)).toEqual(vectors(two.body));
  });

  it("serves an output_dimension the model lists (256), as unit vectors", async () => {
    const reply = await client.embeddings({ model: MODEL, input: ["short", "vectors"], output_dimension: 256 });
    expect(reply.status).toBe(200);
    for (const v of vectors(reply.body)) {
      expect(v).toHaveLength(256);
      expect(norm(v)).toBeCloseTo(1, 6);
    }
  });

  it("refuses an output_dimension the model does not list (300) with 400", async () => {
    const reply = await client.embeddings({ model: MODEL, input: "x", output_dimension: 300 });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ type: "invalid_request_error", code: "unsupported_output_dimension", param: "output_dimension" });
    expect(reply.body.message).toContain("300");
  });

  it("answers base64 float32 vectors when asked", async () => {
    const plain = await client.embeddings({ model: MODEL, input: "encode me" });
    const reply = await client.embeddings({ model: MODEL, input: "encode me", encoding_format: "base64" });
    expect(reply.status).toBe(200);
    const bytes = Buffer.from(reply.body.data[0].embedding as string, "base64");
    const decoded = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4));
    expect(decoded).toHaveLength(1024);
    decoded.forEach((x, i) => expect(x).toBeCloseTo(vectors(plain.body)[0]![i]!, 6));
  });

  it("takes 512 inputs in one call", async () => {
    const input = Array.from({ length: 512 }, (_, i) => `text number ${i}`);
    const reply = await client.embeddings({ model: MODEL, input });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toHaveLength(512);
    expect(reply.body.data.map((d: { index: number }) => d.index)).toEqual(input.map((_, i) => i));
  });

  it("refuses a chat model with 400 and an unknown model with 400 invalid_model", async () => {
    const chat = await client.embeddings({ model: "mistral-small-latest", input: "x" });
    expect(chat.status).toBe(400);
    expect(chat.body).toMatchObject({ type: "invalid_request_error", code: "model_capability_missing", param: "model" });
    const unknown = await client.embeddings({ model: "no-such-embed", input: "x" });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ type: "invalid_request_error", code: "invalid_model", param: "model" });
    expect(unknown.body.message).toContain("no-such-embed");
  });

  it("refuses an input over the model's context length with 400 naming it", async () => {
    const reply = await client.embeddings({ model: MODEL, input: ["fits", "word ".repeat(9000)] });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ type: "invalid_request_error", code: "input_too_long", param: "input" });
    expect(reply.body.message).toContain("input[1]");
  });

  it.each([
    ["an empty string", ""],
    ["an empty array", []],
    ["an array holding an empty string", ["ok", ""]],
    ["513 inputs", Array.from({ length: 513 }, () => "x")],
  ])("refuses %s with 422", async (_, input) => {
    const reply = await client.embeddings({ model: MODEL, input });
    expect(reply.status).toBe(422);
    expect(reply.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc: expect.arrayContaining(["body", "input"]) })]));
  });
});

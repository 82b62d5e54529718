import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { inferenceClient, usageRecords, usageRecordsOf, userSays } from "../../support/inference-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const client = inferenceClient(api, tenant);

const requestIdOf = (headers: Headers) => {
  const id = headers.get("x-request-id");
  if (!id) throw new Error("the response has no x-request-id");
  return id;
};

describe("usage records", () => {
  it("a chat call leaves one record in its workspace with the model, route, tokens, status and backend", async () => {
    const reply = await client.chat(userSays("mistral-small", "count me"));
    expect(reply.status).toBe(200);
    const records = await usageRecords(tenant.caller.workspace);
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(record).toMatchObject({
      workspace: tenant.caller.workspace,
      organization: tenant.caller.organization,
      principal: tenant.caller.principal,
      requestId: requestIdOf(reply.headers),
      model: "mistral-small-latest",
      route: "POST /v1/chat/completions",
      promptTokens: reply.body.usage.prompt_tokens,
      completionTokens: reply.body.usage.completion_tokens,
      status: 200,
      backend: "offline",
    });
    expect(record!.latencyMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(record!.at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("a streamed chat leaves one record with the streamed usage", async () => {
    const streamed = await client.chatStreamed(userSays("mistral-small-latest", "stream and count"));
    const usage = streamed.chunks.at(-1)!.usage!;
    const records = await usageRecordsOf(tenant.caller.workspace, requestIdOf(streamed.headers));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      route: "POST /v1/chat/completions",
      model: "mistral-small-latest",
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
      status: 200,
      backend: "offline",
    });
  });

  it("FIM and embeddings calls are recorded under their own routes", async () => {
    const fim = await client.fim({ model: "codestral-latest", prompt: "def f(" });
    const embeddings = await client.embeddings({ model: "mistral-embed", input: ["one", "two words"] });
    const records = await usageRecords(tenant.caller.workspace);
    expect(records).toHaveLength(2);
    expect(records.find((r) => r.requestId === requestIdOf(fim.headers))).toMatchObject({
      route: "POST /v1/fim/completions",
      model: "codestral-latest",
      promptTokens: fim.body.usage.prompt_tokens,
      completionTokens: fim.body.usage.completion_tokens,
      status: 200,
    });
    expect(records.find((r) => r.requestId === requestIdOf(embeddings.headers))).toMatchObject({
      route: "POST /v1/embeddings",
      model: "mistral-embed",
      promptTokens: embeddings.body.usage.prompt_tokens,
      completionTokens: 0,
      status: 200,
      backend: "offline",
    });
  });

  it("a request refused before any model call leaves no record", async () => {
    expect((await client.chat(userSays("no-such-model", "hi"))).status).toBe(400);
    expect((await client.chat(userSays("mistral-small-latest", "hi", { max_tokens: 1_000_000 }))).status).toBe(400);
    expect((await client.embeddings({ model: "mistral-embed", input: "x", output_dimension: 300 })).status).toBe(400);
    expect((await client.chat({ model: "mistral-small-latest", messages: [] })).status).toBe(422);
    expect(await usageRecords(tenant.caller.workspace)).toEqual([]);
  });

  it("records stay in the caller's workspace", async () => {
    const other = await newTenant();
    await inferenceClient(api, other).chat(userSays("mistral-small-latest", "someone else"));
    expect(await usageRecords(tenant.caller.workspace)).toEqual([]);
    expect(await usageRecords(other.caller.workspace)).toHaveLength(1);
  });
});

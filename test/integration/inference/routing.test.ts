/**
 * The router end to end (docs/routing.md): chat through the local API to two fake OpenAI-compatible upstreams, each
 * a provider of its own, serving workspace models with several deployments and fallbacks. What each upstream got,
 * what the caller got, and what the call's span says.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DeploymentEntry, ModelEntry } from "../../../shared/domain/models.js";
import type { SpanRow } from "../../../shared/domain/observability/records.js";
import { PROVIDERS_ENV } from "../../../shared/inference/registry.js";
import { refreshSharedBreakers } from "../../../shared/services/inference/routing.js";
import { resolve } from "../../../shared/services/models/catalog.js";
import { breakerStore } from "../../../shared/store/breakers.js";
import { modelStore } from "../../../shared/store/models.js";
import { useEmbeddedApi } from "../../support/api.js";
import { FakeUpstream, hang, json, sse } from "../../support/fake-upstream.js";
import { filesClient } from "../../support/files-client.js";
import { inferenceClient, usageRecordsOf, userSays } from "../../support/inference-client.js";

let east: FakeUpstream;
let west: FakeUpstream;
const providersBefore = process.env[PROVIDERS_ENV];

beforeAll(async () => {
  [east, west] = await Promise.all([FakeUpstream.start(), FakeUpstream.start()]);
  const providers = JSON.parse(providersBefore ?? "{}") as Record<string, unknown>;
  process.env[PROVIDERS_ENV] = JSON.stringify({
    ...providers,
    "routing-east": { type: "openai-compatible", baseUrl: east.url, dialect: "mistral" },
    "routing-west": { type: "openai-compatible", baseUrl: west.url, dialect: "mistral" },
  });
});
afterAll(async () => {
  await Promise.all([east?.close(), west?.close()]);
  if (providersBefore === undefined) delete process.env[PROVIDERS_ENV];
  else process.env[PROVIDERS_ENV] = providersBefore;
});

const { api, tenant } = useEmbeddedApi();
const client = inferenceClient(api, tenant);
const http = filesClient(api, tenant);

const eastDeployment: DeploymentEntry = { provider: "routing-east", upstream: "east-model", weight: 1 };
const westDeployment: DeploymentEntry = { provider: "routing-west", upstream: "west-model", weight: 1 };

/** A workspace model served by `deployments` (a builder: ids are fresh, so no breaker or balancer is shared between tests). */
async function aRoutedModel(deployments: DeploymentEntry[], extra: Partial<ModelEntry> = {}): Promise<string> {
  const root = await resolve({ workspace: tenant.caller.workspace }, "mistral-small-latest");
  const id = `ft:mistral-small-latest:routing:${randomUUID().slice(0, 8)}`;
  const own = deployments.map((d) => ({ ...d, upstream: `${d.upstream}-${id.slice(-8)}` }));
  const entry = { ...root, id, type: "fine-tuned" as const, aliases: [], workspace: tenant.caller.workspace, provider: own[0]!.provider, upstream: own[0]!.upstream, deployments: own, ...extra };
  await modelStore.putFineTuned(entry);
  return id;
}

const answer = (content: string) => json({ id: "up", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
const unavailable = () => json({ message: "overloaded" }, { status: 503 });
const requestsSince = (upstream: FakeUpstream, before: number) => upstream.requests.slice(before).map((r) => (r.body as { model: string }).model);

async function spansOf(trace: string): Promise<SpanRow[]> {
  const reply = await http.request("GET", `/v1/observability/traces/${trace}/spans`);
  return reply.status === 200 ? reply.body.spans.results : [];
}

describe("a model with two deployments", () => {
  it("answers from the second when the first keeps failing, and the span lists every attempt", async () => {
    const model = await aRoutedModel([eastDeployment, westDeployment]);
    const [eastBefore, westBefore] = [east.requests.length, west.requests.length];
    east.reply(unavailable(), unavailable());
    west.reply(answer("from the west"));
    const trace = randomBytes(16).toString("hex");

    const reply = await http.request("POST", "/v1/chat/completions", { json: userSays(model, "hello"), headers: { traceparent: `00-${trace}-${randomBytes(8).toString("hex")}-01` } });

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ model, choices: [{ message: { content: "from the west" } }] });
    expect(reply.headers.get("x-inference-deployment")).toBe("routing-west");
    expect(requestsSince(east, eastBefore)).toHaveLength(2);
    expect(requestsSince(west, westBefore)).toStrictEqual([expect.stringMatching(/^west-model-/)]);
    const [span] = await spansOf(trace);
    expect(span!.span_attributes["platform.routing.deployment"]).toMatch(/^routing-west\/west-model-/);
    const attempts = JSON.parse(span!.span_attributes["platform.routing.attempts"]!) as { deployment: string; outcome: string; status?: number }[];
    expect(attempts.map((a) => [a.deployment.split("/")[0], a.outcome, a.status])).toStrictEqual([
      ["routing-east", "failed", 502],
      ["routing-east", "failed", 502],
      ["routing-west", "ok", undefined],
    ]);
  });

  it("sends nothing to the second deployment when the upstream refuses the request itself", async () => {
    const model = await aRoutedModel([eastDeployment, westDeployment]);
    const westBefore = west.requests.length;
    east.reply(json({ message: "temperature out of range" }, { status: 422 }));

    const reply = await client.chat(userSays(model, "hello"));

    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain("temperature out of range");
    expect(west.requests.length).toBe(westBefore);
  });

  it("streams from the second when the first fails before its first byte", async () => {
    const model = await aRoutedModel([eastDeployment, westDeployment]);
    east.reply(unavailable(), unavailable());
    west.reply(sse([{ id: "w", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "streamed west" }, finish_reason: "stop" }] }], { delayMs: 0 }));

    const reply = await client.chatStreamed({ ...userSays(model, "hello"), stream: true });

    expect(reply.status).toBe(200);
    expect(reply.text).toBe("streamed west");
  });

  it("skips a deployment whose breaker opened: later calls do not reach it", async () => {
    const model = await aRoutedModel([eastDeployment, westDeployment]);
    // Nothing scripted for the east: the fake answers 500 to everything. Each call ends at the west, once.
    const call = async (text: string) => {
      west.reply(answer(text));
      expect((await client.chat(userSays(model, text))).status).toBe(200);
    };
    const eastBefore = east.requests.length;
    // Three failures within the window open the breaker (DEFAULT_COOLDOWN); two or three calls get there.
    for (let i = 0; i < 4 && east.requests.length - eastBefore < 3; i += 1) await call("warm");
    expect(east.requests.length - eastBefore).toBe(3);
    const westBefore = west.requests.length;

    for (let i = 0; i < 4; i += 1) await call(`call ${i}`);

    expect(east.requests.length - eastBefore).toBe(3);
    expect(west.requests.length - westBefore).toBe(4);
  });
});

describe("breakers shared between processes", () => {
  const idOf = async (model: string, provider: string) => {
    const entry = await resolve({ workspace: tenant.caller.workspace }, model);
    return entry.deployments!.filter((d) => d.provider === provider).map((d) => `${d.provider}/${d.upstream}`)[0]!;
  };

  it("writes a breaker to the store when it opens", async () => {
    const model = await aRoutedModel([eastDeployment, westDeployment]);
    const east = await idOf(model, "routing-east");
    for (let i = 0; i < 4 && !(await breakerStore.openAt(Date.now())).some((b) => b.deployment === east); i += 1) {
      west.reply(answer("meanwhile"));
      expect((await client.chat(userSays(model, "hello"))).status).toBe(200);
    }

    await vi.waitFor(async () => expect((await breakerStore.openAt(Date.now())).map((b) => b.deployment)).toContain(east));
  });

  it("skips a deployment another process opened, and calls it again once that process closed it", async () => {
    const model = await aRoutedModel([eastDeployment, westDeployment]);
    const eastId = await idOf(model, "routing-east");
    await breakerStore.open(eastId, Date.now() + 60_000);
    await refreshSharedBreakers();
    const eastBefore = east.requests.length;

    for (let i = 0; i < 3; i += 1) {
      west.reply(answer(`call ${i}`));
      expect((await client.chat(userSays(model, "hello"))).status).toBe(200);
    }
    expect(east.requests.length).toBe(eastBefore);

    await breakerStore.close(eastId);
    await refreshSharedBreakers();
    east.reply(answer("east again"));
    west.reply(answer("west again"));
    const replies = [await client.chat(userSays(model, "one")), await client.chat(userSays(model, "two"))];
    expect(replies.map((r) => r.body.choices[0].message.content).toSorted()).toStrictEqual(["east again", "west again"]);
  });
});

describe("a deployment with a timeout", () => {
  it("gives up on a deployment that does not answer within its timeout_ms and answers from the next", async () => {
    const model = await aRoutedModel([{ ...eastDeployment, timeoutMs: 300 }, westDeployment]);
    east.reply(hang(), hang());
    west.reply(answer("in time"));
    const trace = randomBytes(16).toString("hex");

    const reply = await http.request("POST", "/v1/chat/completions", { json: userSays(model, "hello"), headers: { traceparent: `00-${trace}-${randomBytes(8).toString("hex")}-01` } });

    expect(reply.status).toBe(200);
    expect(reply.body.choices[0].message.content).toBe("in time");
    const [span] = await spansOf(trace);
    const attempts = JSON.parse(span!.span_attributes["platform.routing.attempts"]!) as { deployment: string; status?: number; ms: number }[];
    expect(attempts.map((a) => [a.deployment.split("/")[0], a.status])).toStrictEqual([
      ["routing-east", 504],
      ["routing-east", 504],
      ["routing-west", undefined],
    ]);
    expect(attempts[0]!.ms).toBeGreaterThanOrEqual(290);
  });

  it("bounds a stream's wait for its first event only: a stream that started runs past the timeout", async () => {
    const model = await aRoutedModel([{ ...westDeployment, timeoutMs: 300 }]);
    const chunk = (content: string) => ({ id: "w", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content }, finish_reason: null }] });
    west.reply(sse([chunk("slow "), chunk("but "), chunk("whole")], { delayMs: 250 }));

    const reply = await client.chatStreamed({ ...userSays(model, "hello"), stream: true });

    expect(reply.status).toBe(200);
    expect(reply.text).toBe("slow but whole");
  });
});

describe("a model with a fallback", () => {
  it("answers from the fallback once every deployment of the model failed, with the fallback's id in the answer and its usage record", async () => {
    const fallback = await aRoutedModel([westDeployment]);
    const model = await aRoutedModel([eastDeployment], { fallbacks: [fallback] });
    east.reply(unavailable(), unavailable());
    west.reply(answer("from the fallback"));

    const reply = await client.chat(userSays(model, "hello"));

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ model: fallback, choices: [{ message: { content: "from the fallback" } }] });
    const records = await usageRecordsOf(tenant.caller.workspace, reply.headers.get("x-request-id")!);
    expect(records).toMatchObject([{ model: fallback, status: 200 }]);
  });

  it("sends a prompt too long for the model straight to a fallback whose context holds it", async () => {
    const fallback = await aRoutedModel([westDeployment], { maxContextLength: 1_000_000 });
    const model = await aRoutedModel([eastDeployment], { maxContextLength: 64, fallbacks: [fallback] });
    const eastBefore = east.requests.length;
    west.reply(answer("long one"));

    const reply = await client.chat(userSays(model, "word ".repeat(400)));

    expect(reply.status).toBe(200);
    expect(reply.body.model).toBe(fallback);
    expect(east.requests.length).toBe(eastBefore);
  });

  it("answers 400 context_length_exceeded when no model of the call holds the prompt", async () => {
    const fallback = await aRoutedModel([westDeployment], { maxContextLength: 64 });
    const model = await aRoutedModel([eastDeployment], { maxContextLength: 64, fallbacks: [fallback] });

    const reply = await client.chat(userSays(model, "word ".repeat(400)));

    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: "context_length_exceeded" });
  });
});

describe("provider prompt caching", () => {
  it("passes prompt_cache_key to the upstream, and reports its cached tokens in the answer and the usage record", async () => {
    const model = await aRoutedModel([eastDeployment]);
    const before = east.requests.length;
    east.reply(json({ id: "up", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }], usage: { prompt_tokens: 1500, completion_tokens: 2, total_tokens: 1502, num_cached_tokens: 1024 } }));

    const reply = await client.chat(userSays(model, "hello", { prompt_cache_key: "conversation-7" }));

    expect(reply.status).toBe(200);
    expect((east.requests[before]!.body as { prompt_cache_key?: string }).prompt_cache_key).toBe("conversation-7");
    expect(reply.body.usage).toStrictEqual({ prompt_tokens: 1500, completion_tokens: 2, total_tokens: 1502, prompt_tokens_details: { cached_tokens: 1024 } });
    const [record] = await usageRecordsOf(tenant.caller.workspace, reply.headers.get("x-request-id")!);
    expect(record).toMatchObject({ promptTokens: 1500, cachedTokens: 1024, completionTokens: 2 });
  });
});

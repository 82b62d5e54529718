/**
 * The response cache end to end (docs/routing.md, "Response cache"): chat through the local API, opted in by header or
 * by the workspace's setting; what the caller gets, what the upstream got, the usage record, and which callers share
 * a kept answer (the workspace's keys) and which never do (another workspace's).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bookkeepingSettled } from "../../../shared/observability/after-answer.js";
import { PROVIDERS_ENV } from "../../../shared/inference/registry.js";
import { resolve } from "../../../shared/services/models/catalog.js";
import { modelStore } from "../../../shared/store/models.js";
import { useEmbeddedApi } from "../../support/api.js";
import { FakeUpstream, json } from "../../support/fake-upstream.js";
import { filesClient } from "../../support/files-client.js";
import { inferenceClient, offlineEcho, usageRecordsOf, userSays } from "../../support/inference-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const http = filesClient(api, tenant);
const client = inferenceClient(api, tenant);
const OFFLINE = "mistral-small-latest";
const CACHE_ON = { "x-response-cache": "on" };

let upstream: FakeUpstream;
const providersBefore = process.env[PROVIDERS_ENV];
beforeAll(async () => {
  upstream = await FakeUpstream.start();
  process.env[PROVIDERS_ENV] = JSON.stringify({ ...(JSON.parse(providersBefore ?? "{}") as object), "cache-upstream": { type: "openai-compatible", baseUrl: upstream.url, dialect: "mistral" } });
});
afterAll(async () => {
  await upstream?.close();
  if (providersBefore === undefined) delete process.env[PROVIDERS_ENV];
  else process.env[PROVIDERS_ENV] = providersBefore;
});

/** A workspace model served by the fake upstream (fresh per test). */
async function anUpstreamModel(): Promise<string> {
  const root = await resolve({ workspace: tenant.caller.workspace }, OFFLINE);
  const id = `ft:${OFFLINE}:cache:${randomUUID().slice(0, 8)}`;
  await modelStore.putFineTuned({ ...root, id, type: "fine-tuned", aliases: [], workspace: tenant.caller.workspace, provider: "cache-upstream", upstream: `up-${id.slice(-8)}` });
  return id;
}

const answer = (content: string) => json({ id: "up", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } });

/** A chat call with headers, once the previous call's bookkeeping (where the cache is written) has landed. */
async function chat(body: Record<string, unknown>, headers: Record<string, string> = {}, key = tenant.key) {
  await bookkeepingSettled();
  return filesClient(api, { key }).request("POST", "/v1/chat/completions", { json: body, headers });
}

describe("the response cache", () => {
  it("answers an identical call from the cache: same body, no upstream request, a cached usage record at no cost", async () => {
    const model = await anUpstreamModel();
    const before = upstream.requests.length;
    upstream.reply(answer("kept answer"));

    const first = await chat(userSays(model, "hello"), CACHE_ON);
    const second = await chat(userSays(model, "hello"), CACHE_ON);

    expect(first.status).toBe(200);
    expect(first.headers.get("x-response-cache")).toBe("miss");
    expect(second.status).toBe(200);
    expect(second.headers.get("x-response-cache")).toBe("hit");
    expect(second.headers.get("x-inference-backend")).toBe("response-cache");
    expect(second.body.choices).toStrictEqual(first.body.choices);
    expect(second.body.usage).toStrictEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
    expect(upstream.requests.length - before).toBe(1);
    const [kept] = await usageRecordsOf(tenant.caller.workspace, second.headers.get("x-request-id")!);
    expect(kept).toMatchObject({ model, status: 200, cached: true, costMicros: 0, promptTokens: 7, completionTokens: 3, backend: "response-cache" });
    const [paid] = await usageRecordsOf(tenant.caller.workspace, first.headers.get("x-request-id")!);
    expect(paid!.cached).toBeUndefined();
  });

  it("keys on what decides the answer: another message or temperature is a miss, field order and stream are not", async () => {
    await chat(userSays(OFFLINE, "one", { temperature: 0.2, top_p: 0.9 }), CACHE_ON);

    const reordered = await chat({ top_p: 0.9, temperature: 0.2, messages: [{ content: "one", role: "user" }], model: OFFLINE }, CACHE_ON);
    const otherTemperature = await chat(userSays(OFFLINE, "one", { temperature: 0.3, top_p: 0.9 }), CACHE_ON);
    const otherMessage = await chat(userSays(OFFLINE, "two", { temperature: 0.2, top_p: 0.9 }), CACHE_ON);

    expect([reordered, otherTemperature, otherMessage].map((r) => r.headers.get("x-response-cache"))).toStrictEqual(["hit", "miss", "miss"]);
  });

  it("streams a kept plain answer to a streamed caller, and keeps a streamed answer for a plain one", async () => {
    await chat(userSays(OFFLINE, "plain first"), CACHE_ON);
    const streamedHit = await client.chatStreamed(userSays(OFFLINE, "plain first"), { headers: CACHE_ON });
    expect(streamedHit.headers.get("x-response-cache")).toBe("hit");
    expect(streamedHit.text).toBe(offlineEcho("plain first"));
    expect(streamedHit.chunks.at(-1)).toMatchObject({ choices: [{ finish_reason: "stop" }] });

    const streamedMiss = await client.chatStreamed(userSays(OFFLINE, "streamed first"), { headers: CACHE_ON });
    expect(streamedMiss.headers.get("x-response-cache")).toBe("miss");
    const plainHit = await chat(userSays(OFFLINE, "streamed first"), CACHE_ON);
    expect(plainHit.headers.get("x-response-cache")).toBe("hit");
    expect(plainHit.body.choices[0].message.content).toBe(streamedMiss.text);
  });

  it("is shared by the workspace's keys and never reaches another workspace", async () => {
    await chat(userSays(OFFLINE, "shared?"), CACHE_ON);
    const colleague = await newTenant({ workspace: tenant.caller.workspace, organization: tenant.caller.organization });
    const stranger = await newTenant({ organization: tenant.caller.organization });

    const fromColleague = await chat(userSays(OFFLINE, "shared?"), CACHE_ON, colleague.key);
    const fromStranger = await chat(userSays(OFFLINE, "shared?"), CACHE_ON, stranger.key);

    expect(fromColleague.headers.get("x-response-cache")).toBe("hit");
    expect(fromStranger.headers.get("x-response-cache")).toBe("miss");
    expect(fromStranger.headers.get("x-inference-backend")).toBe("offline");
  });

  it("is off by default: identical calls both reach the upstream, and the answer says nothing of a cache", async () => {
    const model = await anUpstreamModel();
    const before = upstream.requests.length;
    upstream.reply(answer("a"), answer("b"));

    const replies = [await chat(userSays(model, "same")), await chat(userSays(model, "same"))];

    expect(replies.map((r) => r.body.choices[0].message.content)).toStrictEqual(["a", "b"]);
    expect(replies.map((r) => r.headers.get("x-response-cache"))).toStrictEqual([null, null]);
    expect(upstream.requests.length - before).toBe(2);
  });

  it("follows the workspace's setting without a header, and `x-response-cache: off` skips it for one call", async () => {
    const patched = await http.request("PATCH", `/v1/admin/workspaces/${tenant.caller.workspace}`, { json: { response_cache_ttl_seconds: 600 } });
    expect(patched.status).toBe(200);

    await chat(userSays(OFFLINE, "by setting"));
    const hit = await chat(userSays(OFFLINE, "by setting"));
    const skipped = await chat(userSays(OFFLINE, "by setting"), { "x-response-cache": "off" });

    expect(hit.headers.get("x-response-cache")).toBe("hit");
    expect(skipped.headers.get("x-response-cache")).toBeNull();
    expect(skipped.headers.get("x-inference-backend")).toBe("offline");
  });

  it("keeps an answer no longer than its TTL", async () => {
    await chat(userSays(OFFLINE, "short-lived"), { ...CACHE_ON, "x-response-cache-ttl": "1" });
    await new Promise((r) => setTimeout(r, 2_100));

    const later = await chat(userSays(OFFLINE, "short-lived"), CACHE_ON);

    expect(later.headers.get("x-response-cache")).toBe("miss");
  });

  it("refuses a malformed cache header with 422, before calling anything", async () => {
    const model = await anUpstreamModel();
    const before = upstream.requests.length;

    const replies = [await chat(userSays(model, "x"), { "x-response-cache": "sometimes" }), await chat(userSays(model, "x"), { "x-response-cache-ttl": "forever" })];

    expect(replies.map((r) => r.status)).toStrictEqual([422, 422]);
    expect(replies[0]!.body.detail[0]).toMatchObject({ loc: ["header", "x-response-cache"] });
    expect(replies[1]!.body.detail[0]).toMatchObject({ loc: ["header", "x-response-cache-ttl"] });
    expect(upstream.requests.length).toBe(before);
  });
});

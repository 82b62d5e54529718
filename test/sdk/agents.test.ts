/**
 * The Agents group driven by the official, unmodified SDK (`@mistralai/mistralai`) against the local
 * server: every `beta.agents.*` method, and the deprecated `agents.complete` / `agents.stream`. Every
 * answer must parse into the SDK's response shapes; agent tools are a discriminated union the SDK turns
 * into `{ isUnknown: true }` instead of failing, so the tests check that none did.
 */
import { Mistral } from "@mistralai/mistralai";
import type { Agent, CompletionEvent } from "@mistralai/mistralai/models/components";
import { HTTPValidationError, SDKError } from "@mistralai/mistralai/models/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { offlineEcho } from "../support/inference-client.js";
import { errorOf, sdkClient } from "../support/sdk.js";
import { newTenant } from "../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
beforeAll(() => {
  client = sdkClient(api, tenant.key);
});

const weatherTool = {
  type: "function" as const,
  function: { name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
};

/** No tool fell back to the SDK's "unknown" variant, i.e. every tool parsed against its own schema. */
function expectToolsParsed(agent: Agent): void {
  for (const tool of agent.tools ?? []) expect(tool, JSON.stringify(tool)).not.toHaveProperty("isUnknown");
}

const createAgent = (name: string, extra: Partial<Parameters<Mistral["beta"]["agents"]["create"]>[0]> = {}) =>
  client.beta.agents.create({ model: "mistral-small-latest", name, ...extra });

describe("beta.agents", () => {
  it("create: every field, parsed into the SDK's Agent", async () => {
    const agent = await createAgent("sdk-full", {
      instructions: "Be brief.",
      description: "An agent made by the SDK",
      tools: [
        weatherTool,
        { type: "web_search" },
        { type: "web_search_premium" },
        { type: "code_interpreter" },
        { type: "image_generation" },
        { type: "document_library", libraryIds: ["lib-1"] },
        { type: "connector", connectorId: "conn-1" },
      ],
      completionArgs: { temperature: 0.2, maxTokens: 100, stop: ["END"], responseFormat: { type: "text" }, toolChoice: "auto", reasoningEffort: "low" },
      guardrails: [{ blockOnError: true, moderationLlmV1: { action: "block" } }],
      handoffs: ["other-agent"],
      metadata: { team: "sdk" },
      versionMessage: "first",
    });

    expect(agent).toMatchObject({
      object: "agent",
      name: "sdk-full",
      model: "mistral-small-latest",
      version: 1,
      versions: [1],
      deploymentChat: false,
      source: "api",
      instructions: "Be brief.",
      handoffs: ["other-agent"],
      metadata: { team: "sdk" },
      versionMessage: "first",
      ownerId: tenant.caller.principal,
    });
    expect(agent.createdAt).toBeInstanceOf(Date);
    expect(agent.completionArgs).toMatchObject({ temperature: 0.2, maxTokens: 100, stop: ["END"], toolChoice: "auto", reasoningEffort: "low" });
    expect(agent.tools?.map((t) => t.type)).toEqual(["function", "web_search", "web_search_premium", "code_interpreter", "image_generation", "document_library", "connector"]);
    expectToolsParsed(agent);
    expect(agent.guardrails?.[0]).toMatchObject({ blockOnError: true, moderationLlmV1: { action: "block" } });
  });

  it("create: a value out of range reaches the SDK as a 422 HTTPValidationError", async () => {
    const error = await errorOf(createAgent("sdk-hot", { completionArgs: { temperature: 1.5 } }), HTTPValidationError);
    expect(error.detail?.[0]?.loc).toEqual(["body", "completion_args", "temperature"]);
  });

  it("get, update, listVersions, getVersion, updateVersion: versions as the SDK reads them", async () => {
    const agent = await createAgent("sdk-versions", { description: "v1" });

    const updated = await client.beta.agents.update({ agentId: agent.id, updateAgentRequest: { description: "v2", deploymentChat: true, versionMessage: "second" } });
    expect(updated).toMatchObject({ id: agent.id, version: 2, versions: [1, 2], description: "v2", deploymentChat: true, versionMessage: "second" });

    const fetched = await client.beta.agents.get({ agentId: agent.id });
    expect(fetched).toEqual(updated);
    expect(await client.beta.agents.get({ agentId: agent.id, agentVersion: 1 })).toMatchObject({ version: 1, description: "v1" });

    const versions = await client.beta.agents.listVersions({ agentId: agent.id, page: 0, pageSize: 20 });
    expect(versions.map((v) => v.version)).toEqual([2, 1]);

    const first = await client.beta.agents.getVersion({ agentId: agent.id, version: "1" });
    expect(first).toMatchObject({ version: 1, description: "v1", deploymentChat: false });

    const switched = await client.beta.agents.updateVersion({ agentId: agent.id, version: 1 });
    expect(switched).toMatchObject({ version: 1, versions: [1, 2], description: "v1" });
  });

  it("createVersionAlias, listVersionAliases, deleteVersionAlias, and get by alias", async () => {
    const agent = await createAgent("sdk-alias", { description: "v1" });
    await client.beta.agents.update({ agentId: agent.id, updateAgentRequest: { description: "v2" } });

    const alias = await client.beta.agents.createVersionAlias({ agentId: agent.id, alias: "stable", version: 1 });
    expect(alias).toMatchObject({ alias: "stable", version: 1 });
    expect(alias.createdAt).toBeInstanceOf(Date);

    expect(await client.beta.agents.get({ agentId: agent.id, agentVersion: "stable" })).toMatchObject({ version: 1, description: "v1" });
    expect((await client.beta.agents.listVersionAliases({ agentId: agent.id })).map((a) => a.alias)).toEqual(["stable"]);

    await client.beta.agents.deleteVersionAlias({ agentId: agent.id, alias: "stable" });
    expect(await client.beta.agents.listVersionAliases({ agentId: agent.id })).toEqual([]);
  });

  it("list (deprecated) and listPages: the workspace's agents, newest first, every page parsed", async () => {
    const own = await newTenant();
    const sdk = sdkClient(api, own.key);
    for (const name of ["p0", "p1", "p2", "p3", "p4"]) await sdk.beta.agents.create({ model: "mistral-small-latest", name, metadata: { batch: "pages" } });

    const listed = await sdk.beta.agents.list({ page: 0, pageSize: 20 });
    expect(listed.map((a) => a.name)).toEqual(["p4", "p3", "p2", "p1", "p0"]);
    expect((await sdk.beta.agents.list({ page: 1, pageSize: 2, sources: ["api"] })).map((a) => a.name)).toEqual(["p2", "p1"]);

    const pages: string[][] = [];
    for await (const page of await sdk.beta.agents.listPages({ pageSize: 2 })) {
      expect(page.result.object).toBe("list");
      pages.push(page.result.data.map((a) => a.name));
    }
    expect(pages).toEqual([["p4", "p3"], ["p2", "p1"], ["p0"]]);

    const filtered = await sdk.beta.agents.listPages({ search: "P3", metadata: { batch: "pages" } });
    expect(filtered.result.data.map((a) => a.name)).toEqual(["p3"]);
    expect(filtered.result.nextPageToken).toBeNull();
  });

  it("delete: 204, after which get is a 404", async () => {
    const agent = await createAgent("sdk-delete");

    await expect(client.beta.agents.delete({ agentId: agent.id })).resolves.toBeUndefined();

    const error = await errorOf(client.beta.agents.get({ agentId: agent.id }), SDKError);
    expect(error.statusCode).toBe(404);
  });
});

describe("agents.complete and agents.stream (deprecated)", () => {
  it("complete: the agent's model answers, parsed into the SDK's ChatCompletionResponse", async () => {
    const agent = await createAgent("sdk-complete", { instructions: "Be brief.", completionArgs: { temperature: 0.3 } });

    const out = await client.agents.complete({ agentId: agent.id, messages: [{ role: "user", content: "hello agent" }], n: 1, maxTokens: 100 });

    expect(out).toMatchObject({ object: "chat.completion", model: "mistral-small-latest" });
    expect(out.choices[0]).toMatchObject({ index: 0, finishReason: "stop", message: { role: "assistant", content: offlineEcho("hello agent") } });
    expect(out.usage.totalTokens).toBe(out.usage.promptTokens! + out.usage.completionTokens!);
  });

  it("stream: CompletionEvents carrying the same text, ended by [DONE]", async () => {
    const agent = await createAgent("sdk-stream");

    const stream = await client.agents.stream({ agentId: agent.id, messages: [{ role: "user", content: "stream please" }] });
    const chunks: CompletionEvent["data"][] = [];
    for await (const event of stream) chunks.push(event.data);

    const text = chunks.flatMap((c) => c.choices.filter((choice) => choice.index === 0).map((choice) => choice.delta.content ?? "")).join("");
    expect(text).toBe(offlineEcho("stream please"));
    expect(chunks.at(-1)!.choices[0]!.finishReason).toBe("stop");
    expect(chunks.at(-1)!.usage).toBeDefined();
  });

  it("complete: an unknown agent is an SDKError 404", async () => {
    const error = await errorOf(client.agents.complete({ agentId: "3b241101-e2bb-4255-8caf-4136c566a962", messages: [{ role: "user", content: "hi" }] }), SDKError);
    expect(error.statusCode).toBe(404);
  });
});

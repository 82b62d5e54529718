/**
 * Issue 27's rules as the official, unmodified SDK meets them: the response cache asked for with a request header
 * (`RequestOptions.headers`), and a key limited to some models (docs/routing.md).
 */
import { SDKError } from "@mistralai/mistralai/models/errors";
import { describe, expect, it } from "vitest";
import { createApiKey } from "../../shared/services/tenancy/tenants.js";
import { useEmbeddedApi } from "../support/api.js";
import { usageRecords } from "../support/inference-client.js";
import { errorOf, sdkClient } from "../support/sdk.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
const messages = (content: string) => [{ role: "user" as const, content }];

describe("the response cache through the SDK", () => {
  it("answers a repeated chat.complete from the cache when the call asks, in the SDK's shape", async () => {
    const client = sdkClient(api, tenant.key);
    const ask = () => client.chat.complete({ model: "mistral-small-latest", messages: messages("cache me") }, { headers: { "x-response-cache": "on" } });

    const first = await ask();
    // The answer is kept after the caller has it: ask again until the kept one answers (at once in-process).
    let again = await ask();
    for (let i = 0; i < 20 && !(await usageRecords(tenant.caller.workspace)).some((r) => r.cached); i += 1) again = await ask();

    expect(again.choices[0]!.message?.content).toBe(first.choices[0]!.message?.content);
    expect(again.usage).toMatchObject({ promptTokens: first.usage.promptTokens, completionTokens: first.usage.completionTokens });
    const cached = (await usageRecords(tenant.caller.workspace)).filter((r) => r.cached);
    expect(cached.length).toBeGreaterThan(0);
    expect(cached.every((r) => r.costMicros === 0)).toBe(true);
  });
});

describe("a key limited to some models, through the SDK", () => {
  it("calls its model and gets a 403 SDKError for another", async () => {
    const { key } = await createApiKey({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, name: "limited", admin: false, roles: ["workspace_contributor"], models: ["mistral-small-latest"] });
    const client = sdkClient(api, key);

    const allowed = await client.chat.complete({ model: "mistral-small-latest", messages: messages("hi") });
    const refused = await errorOf(client.chat.complete({ model: "mistral-large-latest", messages: messages("hi") }), SDKError);

    expect(allowed.choices).toHaveLength(1);
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain("model_not_allowed");
  });
});

/**
 * A key's token limits and monthly budget through the official SDK (docs/routing.md, "Per-key limits"): the SDK sees
 * Mistral's 429 with the limit's code, and the key's next calls once an admin changes its limits.
 */
import { SDKError } from "@mistralai/mistralai/models/errors";
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";
import { withKey } from "../integration/service-accounts/http.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
const admin = withKey(api, () => tenant.key);

/** An SDK client on a new service account's key with these limits, and how to change them. */
async function aClientWith(limits: Record<string, unknown>) {
  const account = (await admin("POST", "/v1/service-accounts", { name: "sdk", workspace_id: tenant.caller.workspace })).body as { id: string };
  await admin("PUT", `/v1/service-accounts/${account.id}/roles`, { role_ids: ["workspace_contributor"] });
  const { id, key } = (await admin("POST", `/v1/service-accounts/${account.id}/keys`, limits)).body as { id: string; key: string };
  return { client: sdkClient(api, key), change: (body: Record<string, unknown>) => admin("PATCH", `/v1/service-accounts/${account.id}/keys/${id}`, body) };
}

const ask = { model: "mistral-small-latest", messages: [{ role: "user" as const, content: "How many tokens is this?" }] };

describe("a key's limits through the SDK", () => {
  it("answers chat.complete within the key's tokens per day, then the SDK's 429 naming the limit, until the limit is raised", async () => {
    const { client, change } = await aClientWith({ tokens_per_day: 1_000_000 });
    const first = await client.chat.complete(ask);
    expect((await change({ tokens_per_day: first.usage.totalTokens })).status).toBe(200);

    const error = await errorOf(client.chat.complete(ask), SDKError);

    expect(error.statusCode).toBe(429);
    expect(JSON.parse(error.body)).toMatchObject({ type: "rate_limit_error", code: "tokens_per_day_exceeded" });
    await change({ tokens_per_day: 1_000_000 });
    expect((await client.chat.complete(ask)).choices).toHaveLength(1);
  });

  it("refuses embeddings.create of a key whose monthly budget is spent with the SDK's 429", async () => {
    const { client } = await aClientWith({ monthly_budget: 0 });

    const error = await errorOf(client.embeddings.create({ model: "mistral-embed", inputs: ["hello"] }), SDKError);

    expect(error.statusCode).toBe(429);
    expect(JSON.parse(error.body)).toMatchObject({ code: "key_budget_reached" });
  });
});

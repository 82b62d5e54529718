import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { monthOf } from "../../../shared/domain/pricing.js";
import { tokenWindows } from "../../../shared/domain/token-limits.js";
import { bookkeepingSettled } from "../../../shared/observability/after-answer.js";
import { reserveTokens } from "../../../shared/services/identity/token-limits.js";
import { rateStore } from "../../../shared/store/rates.js";
import { usageStore } from "../../../shared/store/usage.js";
import { useEmbeddedApi } from "../../support/api.js";
import { withKey, type Answer } from "./http.js";

const { api, tenant } = useEmbeddedApi();
const admin = withKey(api, () => tenant.key);

/** A key of a new service account that may call models, with the limits given (the key route's body). */
async function aKeyWith(limits: Record<string, unknown> = {}) {
  const account = (await admin("POST", "/v1/service-accounts", { name: "ci", workspace_id: tenant.caller.workspace })).body as { id: string };
  await admin("PUT", `/v1/service-accounts/${account.id}/roles`, { role_ids: ["workspace_contributor"] });
  const created = await admin("POST", `/v1/service-accounts/${account.id}/keys`, limits);
  expect(created.status).toBe(201);
  const { id, key } = created.body as { id: string; key: string };
  const call = withKey(api, () => key);
  return {
    account,
    id,
    chat: (content = "how many tokens is this?"): Promise<Answer> => call("POST", "/v1/chat/completions", { model: "mistral-small-latest", messages: [{ role: "user", content }] }),
    patch: (body: Record<string, unknown>): Promise<Answer> => admin("PATCH", `/v1/service-accounts/${account.id}/keys/${id}`, body),
  };
}

const dayWindow = () => tokenWindows({ tokensPerDay: 1 }, new Date())[0]!.id;

describe("PATCH /v1/service-accounts/{service_account_id}/keys/{key_id}", () => {
  it("changes a live key's token limits: the next call is held to them, clearing one lets calls in again, and each change is audited", async () => {
    const key = await aKeyWith({ tokens_per_day: 1_000_000 });
    const first = await key.chat();
    expect(first.status).toBe(200);
    await bookkeepingSettled();
    // The day's window holds what the call used, prompt and completion, once settled.
    expect(await rateStore.tokensIn(key.id, dayWindow())).toBe(first.body.usage.total_tokens);

    const lowered = await key.patch({ tokens_per_day: first.body.usage.total_tokens });
    expect(lowered.status).toBe(200);
    expect(lowered.body).toMatchObject({ id: key.id, tokens_per_day: first.body.usage.total_tokens, tokens_per_minute: null });
    const refused = await key.chat();
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ object: "error", type: "rate_limit_error", code: "tokens_per_day_exceeded" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);

    expect((await key.patch({ tokens_per_day: null })).body.tokens_per_day).toBeNull();
    expect((await key.chat()).status).toBe(200);

    const events = (await admin("GET", `/v1/admin/audit-events?operation=key.update&target=${key.id}`)).body.data;
    expect(events.map((e: { after: Record<string, unknown> }) => e.after.tokens_per_day)).toStrictEqual([null, first.body.usage.total_tokens]);
  });

  it("answers 404 for a revoked key, and 422 for a body that changes nothing", async () => {
    const key = await aKeyWith();
    expect((await key.patch({})).status).toBe(422);
    await admin("DELETE", `/v1/service-accounts/${key.account.id}/keys/${key.id}`);
    expect((await key.patch({ tokens_per_minute: 10 })).status).toBe(404);
  });
});

describe("a key's token limits", () => {
  it("hold under concurrency: of 24 reservations of 10 tokens in a window of 100, exactly 10 get in and the window holds 100", async () => {
    const keyId = randomUUID();
    const outcomes = await Promise.allSettled(Array.from({ length: 24 }, () => reserveTokens({ keyId, tokensPerDay: 100 }, 10)));

    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(10);
    expect(outcomes.filter((o) => o.status === "rejected").every((o) => (o as PromiseRejectedResult).reason.code === "tokens_per_day_exceeded")).toBe(true);
    expect(await rateStore.tokensIn(keyId, dayWindow())).toBe(100);
  });
});

describe("a key's monthly budget", () => {
  it("refuses the key's calls once its month's spend reaches the budget, and no other key's", async () => {
    const probe = await aKeyWith({ monthly_budget: 1000 });
    expect((await probe.chat()).status).toBe(200);
    await bookkeepingSettled();
    const cost = await usageStore.keyMonthSpend(tenant.caller.workspace, probe.id, monthOf(new Date()));
    expect(cost).toBeGreaterThan(0);

    const key = await aKeyWith({ monthly_budget: (cost * 1.5) / 1_000_000 });
    expect((await key.chat()).status).toBe(200);
    expect((await key.chat()).status).toBe(200);
    const refused = await key.chat();

    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ type: "rate_limit_error", code: "key_budget_reached" });
    expect(await usageStore.keyMonthSpend(tenant.caller.workspace, key.id, monthOf(new Date()))).toBe(cost * 2);
    expect((await probe.chat()).status).toBe(200);
  });

  it("counts every call that ran exactly once under concurrency, and lets none start at or over the budget", async () => {
    const probe = await aKeyWith({ monthly_budget: 1000 });
    expect((await probe.chat()).status).toBe(200);
    await bookkeepingSettled();
    const cost = await usageStore.keyMonthSpend(tenant.caller.workspace, probe.id, monthOf(new Date()));
    const key = await aKeyWith({ monthly_budget: (cost * 4) / 1_000_000 });

    const answers = await Promise.all(Array.from({ length: 12 }, () => key.chat()));

    const ran = answers.filter((a) => a.status === 200).length;
    expect(answers.every((a) => a.status === 200 || (a.status === 429 && a.body.code === "key_budget_reached"))).toBe(true);
    expect(ran).toBeGreaterThanOrEqual(4);
    await bookkeepingSettled();
    expect(await usageStore.keyMonthSpend(tenant.caller.workspace, key.id, monthOf(new Date()))).toBe(cost * ran);
    expect((await key.chat()).status).toBe(429);
  });
});

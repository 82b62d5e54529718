import { describe, expect, it } from "vitest";
import { monthOf } from "../../../shared/domain/pricing.js";
import { bookkeepingSettled } from "../../../shared/observability/after-answer.js";
import { usageStore } from "../../../shared/store/usage.js";
import { useEmbeddedApi } from "../../support/api.js";
import { batchClient, chatLines } from "../../support/batch-client.js";
import { filesClient, follow, type ApiReply } from "../../support/files-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const http = () => filesClient(api, tenant);

const chat = (content = "how much is this?"): Promise<ApiReply> =>
  http().request("POST", "/v1/chat/completions", { json: { model: "mistral-small-latest", messages: [{ role: "user", content }] } });
const setLimit = (body: Record<string, unknown>): Promise<ApiReply> => http().request("PUT", "/v1/usage/spend-limit", { json: body });
const spend = (): Promise<ApiReply> => http().request("GET", "/v1/usage/spend");
/** The month's spend once this process's bookkeeping is done (calls add to it after their answers: decision 0045). */
const spentMicros = async () => {
  await bookkeepingSettled();
  return usageStore.monthSpend(tenant.caller.workspace, monthOf(new Date()));
};

/** What one identical chat call costs, in micro-dollars (the offline echo answers the same each time). */
async function costOfOneCall(): Promise<number> {
  const before = await spentMicros();
  expect((await chat()).status).toBe(200);
  return (await spentMicros()) - before;
}

describe("PUT /v1/usage/spend-limit and GET /v1/usage/spend", () => {
  it("sets, shows and clears the workspace's monthly limit", async () => {
    const set = await setLimit({ value: 12.5, currency: "USD" });
    expect(set.status).toBe(200);
    expect(set.body).toStrictEqual({ value: 12.5, currency: "USD", no_monthly_limit: false, soft_limit: null });
    expect((await spend()).body).toMatchObject({ object: "spend", workspace_id: tenant.caller.workspace, spent: 0, currency: "USD", spend_limit: { value: 12.5 }, limit_reached: false });

    expect((await setLimit({ no_monthly_limit: true })).body).toStrictEqual({ value: null, currency: null, no_monthly_limit: true, soft_limit: null });
    expect((await spend()).body.spend_limit).toStrictEqual({ value: null, currency: null, no_monthly_limit: true });
  });

  it("refuses a limit in another currency than the prices' with 422, and non-admin keys with 403", async () => {
    expect((await setLimit({ value: 5, currency: "EUR" })).status).toBe(422);
    const member = await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, roles: ["workspace_admin"] });
    const refused = await filesClient(api, member).request("PUT", "/v1/usage/spend-limit", { json: { value: 5 } });
    expect(refused.status).toBe(403);
  });

  it("answers 404 for a workspace of another organization", async () => {
    const other = await newTenant();
    expect((await setLimit({ workspace_id: other.caller.workspace, value: 1 })).status).toBe(404);
  });
});

describe("the spend limit on model calls", () => {
  it("counts every call's cost and refuses calls with 429 once the month's spend reaches the limit", async () => {
    const cost = await costOfOneCall();
    expect(cost).toBeGreaterThan(0);
    await setLimit({ value: (cost * 3) / 1_000_000 });

    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(200);
    const refused = await chat();

    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ object: "error", type: "rate_limit_error", code: "spend_limit_reached" });
    expect(await spentMicros()).toBe(cost * 3);
    expect((await spend()).body).toMatchObject({ limit_reached: true, spent: (cost * 3) / 1_000_000 });
  });

  it("lets every call that started below the limit finish and counts them all exactly, under concurrency", async () => {
    const cost = await costOfOneCall();
    await setLimit({ value: (cost * 5) / 1_000_000 });

    const answers = await Promise.all(Array.from({ length: 16 }, () => chat()));

    const succeeded = answers.filter((a) => a.status === 200).length;
    expect(answers.every((a) => a.status === 200 || (a.status === 429 && a.body.code === "spend_limit_reached"))).toBe(true);
    expect(succeeded).toBeGreaterThanOrEqual(4);
    // The counter is exact: every call that ran is in it once, none that was refused.
    expect(await spentMicros()).toBe(cost * (1 + succeeded));
    expect((await chat()).status).toBe(429);
  });

  it("stops a batch job's lines at the limit: they go to its error file as 429s and count as failed", async () => {
    await setLimit({ value: 0 });
    const input = await http().uploaded({ filename: "requests.jsonl", content: chatLines("a", "b", "c"), purpose: "batch" });
    const batch = batchClient(api, tenant);
    const created = await batch.create({ input_files: [input.id], endpoint: "/v1/chat/completions", model: "mistral-small-latest" });
    expect(created.status).toBe(200);

    let job = created.body;
    for (let i = 0; i < 100 && !["SUCCESS", "FAILED", "TIMEOUT_EXCEEDED", "CANCELLED"].includes(job.status); i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      job = (await batch.get(job.id)).body;
    }

    expect(job).toMatchObject({ status: "SUCCESS", total_requests: 3, failed_requests: 3, succeeded_requests: 0 });
    const { bytes } = await follow(await http().content(job.error_file));
    const errors = bytes.toString("utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(errors.map((e: { error: { code: number; message: string } }) => e.error.code)).toStrictEqual([429, 429, 429]);
    expect(errors[0].error.message).toMatch(/monthly spend limit/);
  });
});

describe("a soft spend limit", () => {
  it("refuses nothing; the call that takes the month past it writes one event, and the usage answers say it was reached", async () => {
    const own = await newTenant();
    const client = filesClient(api, own);
    const ownChat = () => client.request("POST", "/v1/chat/completions", { json: { model: "mistral-small-latest", messages: [{ role: "user", content: "how much is this?" }] } });
    const softEvents = async () => {
      await bookkeepingSettled();
      return (await client.request("GET", "/v1/admin/audit-events", { query: { operation: "spend.soft-limit-reached" } })).body.data;
    };
    expect((await ownChat()).status).toBe(200);
    await bookkeepingSettled();
    const cost = await usageStore.monthSpend(own.caller.workspace, monthOf(new Date()));
    const set = await client.request("PUT", "/v1/usage/spend-limit", { json: { no_monthly_limit: true, soft_limit: (cost * 2.5) / 1_000_000 } });
    expect(set.body).toStrictEqual({ value: null, currency: null, no_monthly_limit: true, soft_limit: (cost * 2.5) / 1_000_000 });

    expect((await ownChat()).status).toBe(200);
    expect(await softEvents()).toStrictEqual([]);
    expect((await client.request("GET", "/v1/usage/spend")).body).toMatchObject({ soft_limit: (cost * 2.5) / 1_000_000, soft_limit_reached: false });

    expect((await ownChat()).status).toBe(200);
    expect((await ownChat()).status).toBe(200);

    const events = await softEvents();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ workspace_id: own.caller.workspace, actor: { type: "system" }, after: { soft_limit: (cost * 2.5) / 1_000_000, spent: (cost * 3) / 1_000_000, currency: "USD" } });
    expect((await client.request("GET", "/v1/usage/spend")).body).toMatchObject({ limit_reached: false, soft_limit_reached: true });
    expect((await client.request("GET", "/v1/usage")).body.soft_limit_reached).toBe(true);
  });

  it("must be below the hard limit", async () => {
    const refused = await setLimit({ value: 5, soft_limit: 5 });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body.detail)).toContain("soft_limit");
  });
});

describe("GET /v1/usage", () => {
  it("reports the workspace's requests, tokens and cost by day and model, and by key", async () => {
    await chat("one");
    await chat("two");
    const today = new Date().toISOString().slice(0, 10);

    const report = await http().request("GET", "/v1/usage", { query: { from: today, to: today } });

    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ object: "usage_report", workspace_id: tenant.caller.workspace, from: today, to: today, currency: "USD" });
    expect(report.body.data).toStrictEqual([
      { day: today, model: "mistral-small-latest", key_id: null, requests: 2, prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), cost: expect.any(Number) },
    ]);
    expect(report.body.total.requests).toBe(2);
    const byKey = await http().request("GET", "/v1/usage", { query: { group_by: "key" } });
    expect(byKey.body.data).toStrictEqual([expect.objectContaining({ day: null, model: null, key_id: tenant.caller.keyId, requests: 2 })]);
  });

  it("answers 422 for a range that ends before it starts", async () => {
    expect((await http().request("GET", "/v1/usage", { query: { from: "2026-02-02", to: "2026-02-01" } })).status).toBe(422);
  });
});

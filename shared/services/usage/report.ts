import type { Caller } from "../../domain/caller.js";
import { NotFound, Unprocessable } from "../../domain/errors.js";
import type { SpendLimit } from "../../domain/identity/records.js";
import { dayOf, MICROS_PER_UNIT, monthOf, spendLimitReached } from "../../domain/pricing.js";
import { MAX_REPORT_DAYS, type SpendLimitIn } from "../../schemas/usage.js";
import { tenancyStore } from "../../store/tenancy.js";
import { usageStore, type DailyUsage } from "../../store/usage.js";
import { recordAudit } from "../audit/record.js";
import { priceList } from "./spend.js";
import { forgetWorkspace } from "../identity/workspace-cache.js";

type GroupBy = "day" | "model" | "key";

const units = (micros: number) => micros / MICROS_PER_UNIT;
const wireLimit = (limit: SpendLimit | null | undefined) => (limit ? { value: limit.value, currency: limit.currency, no_monthly_limit: limit.noMonthlyLimit } : null);
const softLimitOf = (limit: SpendLimit | null | undefined): number | null => limit?.softValue ?? null;
/** Whether the month's spend has reached the soft limit (docs/spend.md): the flag the usage answers carry. */
const softLimitReached = (limit: SpendLimit | null | undefined, spentMicros: number): boolean => {
  const soft = softLimitOf(limit);
  return soft !== null && spentMicros >= soft * MICROS_PER_UNIT;
};

/** The workspace's usage from its daily totals, grouped as asked; at most 366 days at once. */
export async function usageReport(caller: Pick<Caller, "organization" | "workspace">, options: { from?: string; to?: string; groupBy: GroupBy[] }, now = new Date()) {
  const workspace = caller.workspace;
  const to = options.to ?? dayOf(now);
  const from = options.from ?? `${monthOf(now)}-01`;
  // The schema checks a range it is given; a default end and a given start can still be out of order.
  const days = (Date.parse(to) - Date.parse(from)) / 86_400_000;
  if (days < 0 || days > MAX_REPORT_DAYS) throw new Unprocessable([{ loc: ["query", "from"], msg: `from must be on or before to, at most ${MAX_REPORT_DAYS} days before it`, type: "value_error" }]);
  const groups = new Map<string, DailyUsage>();
  const [rows, softReached] = await Promise.all([usageStore.dailyTotals(workspace, from, to), softLimitReachedNow(caller, now)]);
  for (const row of rows) {
    const key = [options.groupBy.includes("day") ? row.day : "", options.groupBy.includes("model") ? row.model : "", options.groupBy.includes("key") ? row.keyId : ""].join("\u0000");
    const group = groups.get(key) ?? { ...row, requests: 0, promptTokens: 0, completionTokens: 0, costMicros: 0 };
    group.requests += row.requests;
    group.promptTokens += row.promptTokens;
    group.completionTokens += row.completionTokens;
    group.costMicros += row.costMicros;
    groups.set(key, group);
  }
  const data = [...groups.values()]
    .sort((a, b) => a.day.localeCompare(b.day) || a.model.localeCompare(b.model) || a.keyId.localeCompare(b.keyId))
    .map((g) => ({
      day: options.groupBy.includes("day") ? g.day : null,
      model: options.groupBy.includes("model") ? g.model : null,
      key_id: options.groupBy.includes("key") ? g.keyId : null,
      requests: g.requests,
      prompt_tokens: g.promptTokens,
      completion_tokens: g.completionTokens,
      cost: units(g.costMicros),
    }));
  const sum = (pick: (r: (typeof data)[number]) => number) => data.reduce((total, r) => total + pick(r), 0);
  return {
    object: "usage_report" as const,
    workspace_id: workspace,
    from,
    to,
    currency: priceList.currency,
    prices_as_of: priceList.as_of,
    data,
    total: { requests: sum((r) => r.requests), prompt_tokens: sum((r) => r.prompt_tokens), completion_tokens: sum((r) => r.completion_tokens), cost: units([...groups.values()].reduce((t, g) => t + g.costMicros, 0)) },
    soft_limit_reached: softReached,
  };
}

/** Whether this month's spend has reached the workspace's soft limit: the month counter is read only when there is one. */
async function softLimitReachedNow(caller: Pick<Caller, "organization" | "workspace">, now: Date): Promise<boolean> {
  if (!caller.organization) return false;
  const limit = (await tenancyStore.getWorkspace(caller.organization, caller.workspace))?.spendLimit;
  if (softLimitOf(limit) === null) return false;
  return softLimitReached(limit, await usageStore.monthSpend(caller.workspace, monthOf(now)));
}

/** The month so far against the workspace's limit. */
export async function spendOf(caller: Pick<Caller, "organization" | "workspace">, now = new Date()) {
  const month = monthOf(now);
  const [workspace, spentMicros] = await Promise.all([tenancyStore.getWorkspace(caller.organization, caller.workspace), usageStore.monthSpend(caller.workspace, month)]);
  if (!workspace) throw new NotFound("workspace", caller.workspace);
  return {
    object: "spend" as const,
    workspace_id: caller.workspace,
    month,
    spent: units(spentMicros),
    currency: priceList.currency,
    spend_limit: wireLimit(workspace.spendLimit),
    limit_reached: spendLimitReached({ limit: workspace.spendLimit, spentMicros }),
    soft_limit: softLimitOf(workspace.spendLimit),
    soft_limit_reached: softLimitReached(workspace.spendLimit, spentMicros),
  };
}

/** Sets (or clears, with no_monthly_limit) a workspace's monthly spend limit; the workspace must be the organization's. */
export async function setSpendLimit(organization: string, workspace: string, input: SpendLimitIn) {
  const soft = input.soft_limit ?? null;
  const limit: SpendLimit = input.no_monthly_limit
    ? { value: null, currency: null, noMonthlyLimit: true, softValue: soft }
    : { value: input.value!, currency: input.currency!, noMonthlyLimit: false, softValue: soft };
  const before = await tenancyStore.getWorkspace(organization, workspace, { consistent: true });
  if (!before) throw new NotFound("workspace", workspace);
  const updated = await tenancyStore.updateWorkspace(organization, workspace, { spendLimit: limit, updatedAt: new Date().toISOString() });
  if (!updated) throw new NotFound("workspace", workspace);
  forgetWorkspace(organization, workspace);
  await recordAudit({
    organization,
    workspace,
    operation: "spend-limit.set",
    targets: [{ type: "workspace", id: workspace }],
    before: { spend_limit: wireLimit(before.spendLimit) ?? null, soft_limit: softLimitOf(before.spendLimit) },
    after: { spend_limit: wireLimit(updated.spendLimit) ?? null, soft_limit: softLimitOf(updated.spendLimit) },
  });
  return { ...wireLimit(updated.spendLimit)!, soft_limit: softLimitOf(updated.spendLimit) };
}

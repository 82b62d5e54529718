import prices from "../../../config/prices.json" with { type: "json" };
import type { Caller } from "../../domain/caller.js";
import { KeyBudgetReached, SpendLimitReached } from "../../domain/errors.js";
import { costMicros, dayOf, hasSpendLimit, MICROS_PER_UNIT, monthOf, priceOf, spendLimitReached, type PriceList } from "../../domain/pricing.js";
import { cachedWorkspace } from "../identity/workspace-cache.js";
import { bookkeepingSettled } from "../../observability/after-answer.js";
import { usageStore, type TotalsCall } from "../../store/usage.js";

export const priceList: PriceList = prices;

/**
 * Refuses a model call once the workspace's month-to-date spend has reached its limit. A call that starts
 * below the limit runs and is counted in full, so the month may end a little over it (one call's worth per
 * call in flight, its bookkeeping after the answer included: decision 0045): the limit stops new calls, it
 * never cuts one short. A limit set or changed shows within the workspace cache's TTL.
 */
export async function assertWithinSpendLimit(caller: Pick<Caller, "organization" | "workspace"> & Partial<Pick<Caller, "keyId" | "monthlyBudget">>, at = new Date()): Promise<void> {
  const keyBudget = caller.monthlyBudget !== undefined && caller.keyId ? assertWithinKeyBudget({ ...caller, keyId: caller.keyId, monthlyBudget: caller.monthlyBudget }, at) : undefined;
  keyBudget?.catch(() => undefined);
  // The limit is cached briefly (identity/workspace-cache.ts); the month's spend never is.
  const limit = (await cachedWorkspace(caller))?.spendLimit;
  // Most workspaces have no limit: their calls (and every batch line) skip the counter read.
  if (!hasSpendLimit(limit)) return keyBudget;
  // Calls this process has answered whose totals are still being written count before this one is let in
  // (locally, sequential calls then meet the limit exactly; a Lambda instance has none in flight by then).
  await bookkeepingSettled({ answeredOnly: true });
  const spentMicros = await usageStore.monthSpend(caller.workspace, monthOf(at));
  if (spendLimitReached({ limit, spentMicros })) throw new SpendLimitReached(limit.value, limit.currency ?? priceList.currency);
  await keyBudget;
}

/**
 * A key with a monthly budget of its own (docs/routing.md, "Per-key limits"): refused once its month's spend has
 * reached the budget, with the workspace limit's overshoot (decision 0010: a call that starts below it runs in full).
 * Only such keys keep a month counter, so only their calls pay this read.
 */
async function assertWithinKeyBudget(caller: Pick<Caller, "workspace" | "keyId" | "monthlyBudget"> & { monthlyBudget: number }, at: Date): Promise<void> {
  await bookkeepingSettled({ answeredOnly: true });
  const spentMicros = await usageStore.keyMonthSpend(caller.workspace, caller.keyId, monthOf(at));
  if (spentMicros >= caller.monthlyBudget * MICROS_PER_UNIT) throw new KeyBudgetReached(caller.monthlyBudget, priceList.currency);
}

type Tokens = { promptTokens: number; completionTokens: number; cachedTokens?: number | undefined };

/** What a call cost, in micro-units of the price file's currency, at the price of the deployment that answered when it has one. */
export const costOf = (model: { id: string; root?: string }, tokens: Tokens, deployment?: string): number => costMicros(priceOf(priceList, model, deployment), tokens);

/** A finished call, of the cost `costOf` gave, as the month's spend and the day's totals count it. */
export const totalsOf = (caller: Pick<Caller, "keyId">, model: { id: string }, call: Tokens & { costMicros: number }, at = new Date()): TotalsCall => ({
  month: monthOf(at),
  day: dayOf(at),
  model: model.id,
  keyId: caller.keyId,
  at: at.toISOString(),
  ...call,
});

/** Adds a finished call, of the cost `costOf` gave, to the month's spend and the day's totals. */
export async function charge(caller: Pick<Caller, "workspace" | "keyId">, model: { id: string }, call: Tokens & { costMicros: number }, at = new Date()): Promise<void> {
  await usageStore.addToTotals(caller.workspace, totalsOf(caller, model, call, at));
}

import prices from "../../../config/prices.json" with { type: "json" };
import type { Caller } from "../../domain/caller.js";
import { SpendLimitReached } from "../../domain/errors.js";
import { costMicros, dayOf, hasSpendLimit, monthOf, priceOf, spendLimitReached, type PriceList } from "../../domain/pricing.js";
import { tenancyStore } from "../../store/tenancy.js";
import { usageStore } from "../../store/usage.js";

export const priceList: PriceList = prices;

/**
 * Refuses a model call once the workspace's month-to-date spend has reached its limit. A call that starts
 * below the limit runs and is counted in full, so the month may end a little over it (one call's worth per
 * call in flight): the limit stops new calls, it never cuts one short.
 */
export async function assertWithinSpendLimit(caller: Pick<Caller, "organization" | "workspace">, at = new Date()): Promise<void> {
  const limit = (await tenancyStore.getWorkspace(caller.organization, caller.workspace))?.spendLimit;
  // Most workspaces have no limit: their calls (and every batch line) skip the counter read.
  if (!hasSpendLimit(limit)) return;
  const spentMicros = await usageStore.monthSpend(caller.workspace, monthOf(at));
  if (spendLimitReached({ limit, spentMicros })) throw new SpendLimitReached(limit.value, limit.currency ?? priceList.currency);
}

type Tokens = { promptTokens: number; completionTokens: number };

/** What a call cost, in micro-units of the price file's currency. */
export const costOf = (model: { id: string; root?: string }, tokens: Tokens): number => costMicros(priceOf(priceList, model), tokens);

/** Adds a finished call, of the cost `costOf` gave, to the month's spend and the day's totals. */
export async function charge(caller: Pick<Caller, "workspace" | "keyId">, model: { id: string }, call: Tokens & { costMicros: number }, at = new Date()): Promise<void> {
  await usageStore.addToTotals(caller.workspace, { month: monthOf(at), day: dayOf(at), model: model.id, keyId: caller.keyId, at: at.toISOString(), ...call });
}

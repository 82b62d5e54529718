import { GroupCommit } from "../../domain/group-commit.js";
import type { UsageRecord } from "../../domain/usage.js";
import { usageStore, type TotalsCall } from "../../store/usage.js";
import { bookkeepingWrites } from "../bookkeeping/store-writes.js";
import type { Caller } from "../../domain/caller.js";
import { softLimitCrossed } from "../usage/soft-limit.js";

/**
 * The usage writes of calls that end together, written together (decision 0045): records in one
 * BatchWriteItem; the month's spend and the day's totals as one ADD per counter item, the sum of the calls'
 * increments (ADD is exact whatever the grouping). A lone call writes its three items at once, as before;
 * under concurrency (the local server, a batch job's lines) the writes per call fall. A counter update that
 * fails fails only the calls it carried, which retry their own increments.
 */

const records = new GroupCommit<UsageRecord>((batch) => bookkeepingWrites().records(batch), 100);

type Counted = { workspace: string; organization?: string; call: TotalsCall };

/** Sums the increments of the items that share a counter item, writes each counter once, and answers per item. */
function coalesced(key: (c: Counted) => string, add: (first: Counted, sum: TotalsCall) => Promise<void>) {
  return async (batch: Counted[]): Promise<unknown[]> => {
    const groups = new Map<string, { indexes: number[]; first: Counted; sum: TotalsCall }>();
    batch.forEach((c, i) => {
      const k = key(c);
      const group = groups.get(k);
      if (!group) groups.set(k, { indexes: [i], first: c, sum: { ...c.call } });
      else {
        group.indexes.push(i);
        group.sum.promptTokens += c.call.promptTokens;
        group.sum.completionTokens += c.call.completionTokens;
        group.sum.costMicros += c.call.costMicros;
        group.sum.requests = (group.sum.requests ?? 1) + (c.call.requests ?? 1);
        if (c.call.at > group.sum.at) group.sum.at = c.call.at;
      }
    });
    const outcomes: unknown[] = new Array(batch.length).fill(undefined);
    await Promise.all(
      [...groups.values()].map(async (group) => {
        try {
          await add(group.first, group.sum);
        } catch (error) {
          for (const i of group.indexes) outcomes[i] = error;
        }
      }),
    );
    return outcomes;
  };
}

const months = new GroupCommit<Counted>(
  coalesced(
    (c) => `${c.workspace}\u0000${c.call.month}`,
    async ({ workspace, organization }, sum) => {
      const spent = await bookkeepingWrites().addToMonth(workspace, sum);
      // The one ADD that takes the month past the soft limit says so (after the write: never a reason to repeat it).
      if (organization) softLimitCrossed({ organization, workspace }, sum.month, spent - sum.costMicros, spent);
    },
  ),
  1000,
);
const days = new GroupCommit<Counted>(
  coalesced((c) => `${c.workspace}\u0000${c.call.day}\u0000${c.call.model}\u0000${c.call.keyId}`, ({ workspace }, sum) => bookkeepingWrites().addToDay(workspace, sum)),
  1000,
);

export const writeRecord = (record: UsageRecord): Promise<void> => records.write(record);
export const addToMonth = (caller: Pick<Caller, "organization" | "workspace">, call: TotalsCall): Promise<void> => months.write({ workspace: caller.workspace, organization: caller.organization, call });
/** Keys with a monthly budget only: each call's own ADD (few keys have one, and their calls are the key's alone). */
export const addToKeyMonth = (caller: Pick<Caller, "workspace">, call: TotalsCall): Promise<void> => usageStore.addToKeyMonth(caller.workspace, call);
export const addToDay = (workspace: string, call: TotalsCall): Promise<void> => days.write({ workspace, call });

import { GroupCommit } from "../../domain/group-commit.js";
import type { UsageRecord } from "../../domain/usage.js";
import { usageStore, type TotalsCall } from "../../store/usage.js";

/**
 * The usage writes of calls that end together, written together (decision 0045): records in one
 * BatchWriteItem; the month's spend and the day's totals as one ADD per counter item, the sum of the calls'
 * increments (ADD is exact whatever the grouping). A lone call writes its three items at once, as before;
 * under concurrency (the local server, a batch job's lines) the writes per call fall. A counter update that
 * fails fails only the calls it carried, which retry their own increments.
 */

const records = new GroupCommit<UsageRecord>((batch) => usageStore.recordMany(batch), 100);

type Counted = { workspace: string; call: TotalsCall };

/** Sums the increments of the items that share a counter item, writes each counter once, and answers per item. */
function coalesced(key: (c: Counted) => string, add: (workspace: string, sum: TotalsCall) => Promise<void>) {
  return async (batch: Counted[]): Promise<unknown[]> => {
    const groups = new Map<string, { indexes: number[]; workspace: string; sum: TotalsCall }>();
    batch.forEach((c, i) => {
      const k = key(c);
      const group = groups.get(k);
      if (!group) groups.set(k, { indexes: [i], workspace: c.workspace, sum: { ...c.call } });
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
          await add(group.workspace, group.sum);
        } catch (error) {
          for (const i of group.indexes) outcomes[i] = error;
        }
      }),
    );
    return outcomes;
  };
}

const months = new GroupCommit<Counted>(
  coalesced((c) => `${c.workspace}\u0000${c.call.month}`, (workspace, sum) => usageStore.addToMonth(workspace, sum)),
  1000,
);
const days = new GroupCommit<Counted>(
  coalesced((c) => `${c.workspace}\u0000${c.call.day}\u0000${c.call.model}\u0000${c.call.keyId}`, (workspace, sum) => usageStore.addToDay(workspace, sum)),
  1000,
);

export const writeRecord = (record: UsageRecord): Promise<void> => records.write(record);
export const addToMonth = (workspace: string, call: TotalsCall): Promise<void> => months.write({ workspace, call });
export const addToDay = (workspace: string, call: TotalsCall): Promise<void> => days.write({ workspace, call });

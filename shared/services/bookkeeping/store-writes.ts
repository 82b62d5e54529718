import { appendTelemetry } from "../../blobs/telemetry.js";
import { telemetryTtl } from "../../config.js";
import type { SpanRow } from "../../domain/observability/records.js";
import type { UsageRecord } from "../../domain/usage.js";
import { spanStore } from "../../store/observability/spans.js";
import { usageStore, type TotalsCall } from "../../store/usage.js";

/**
 * The store writes of a model call's bookkeeping, as its group commits hand them over (usage-writes.ts,
 * span-writer.ts): batches, already coalesced. In a Lambda instance they run in the process; the long-lived
 * local server runs them on a thread of their own (decision 0075, remote-writes.ts), so that their marshalling,
 * signing and garbage never stop the thread that answers the next call.
 */
export interface BookkeepingWrites {
  records(records: UsageRecord[]): Promise<void>;
  /** Answers the month's spend after the ADD (the soft-limit notice needs it). */
  addToMonth(workspace: string, sum: TotalsCall): Promise<number>;
  addToDay(workspace: string, sum: TotalsCall): Promise<void>;
  /** Both stores: the point store (DynamoDB) and the analytical one (JSON lines); fails if either refused. */
  spans(rows: SpanRow[]): Promise<void>;
}

export const inProcessWrites: BookkeepingWrites = {
  records: (records) => usageStore.recordMany(records),
  addToMonth: (workspace, sum) => usageStore.addToMonth(workspace, sum),
  addToDay: (workspace, sum) => usageStore.addToDay(workspace, sum),
  async spans(rows) {
    if (rows.length === 0) return;
    const results = await Promise.allSettled([spanStore.put(rows, telemetryTtl()), appendTelemetry("spans", rows)]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  },
};

let current: BookkeepingWrites = inProcessWrites;

/** Who runs the bookkeeping's store writes now. */
export const bookkeepingWrites = (): BookkeepingWrites => current;

/** Hands the bookkeeping's store writes to `writes` (a thread's), or back to this process with undefined. */
export function writeBookkeepingWith(writes: BookkeepingWrites | undefined): void {
  current = writes ?? inProcessWrites;
}

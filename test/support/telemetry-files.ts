import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { bookkeepingSettled } from "../../shared/observability/after-answer.js";
import type { TelemetryRows, WrittenKind } from "../../shared/domain/observability/records.js";

/** The rows appendTelemetry wrote locally for a workspace (every day partition), from `dir` (default: $TELEMETRY_DIR). */
export async function telemetryRows<K extends WrittenKind>(kind: K, workspace: string, dir = process.env.TELEMETRY_DIR): Promise<TelemetryRows[K][]> {
  if (!dir) throw new Error("TELEMETRY_DIR is not set: the tests need the embedded backends");
  // Spans are written after the call's answer (decision 0045): wait for this process's bookkeeping.
  await bookkeepingSettled();
  const base = join(dir, kind, `workspace_id=${workspace}`);
  const days = await readdir(base).catch(() => [] as string[]);
  const rows: TelemetryRows[K][] = [];
  for (const day of days) {
    for (const file of await readdir(join(base, day))) {
      const text = await readFile(join(base, day, file), "utf8");
      rows.push(...text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as TelemetryRows[K]));
    }
  }
  return rows;
}

/** Waits until `probe` answers something truthy (telemetry of a stream lands just after its last byte). */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

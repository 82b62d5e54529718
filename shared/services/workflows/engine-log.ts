import { randomBytes } from "node:crypto";
import type { WorkflowEvent } from "../../domain/workflows/events.js";
import { DEFAULT_LOG_RETENTION_DAYS, engineLineOf, lineOf, spanIdOf } from "../../domain/workflows/logs.js";
import type { RunRecord } from "../../domain/workflows/records.js";
import { logger } from "../../observability/logger.js";
import { logStore } from "../../store/workflows/logs.js";

/**
 * The engine's own log lines for a run (docs/workflows.md, "Logs"; decision 0064): one per event the run's
 * writers append (started, activity scheduled, completed or failed, ended), beside the lines workers report.
 */

const retentionSeconds = (): number => {
  const days = Number(process.env.WORKFLOW_LOG_RETENTION_DAYS ?? "");
  return Math.round((Number.isFinite(days) && days > 0 ? days : DEFAULT_LOG_RETENTION_DAYS) * 86_400);
};

/** When a line written at `nowMs` expires (epoch seconds: the table's TTL attribute). */
export const ttlOf = (nowMs: number) => Math.floor(nowMs / 1000) + retentionSeconds();
export const lineId = () => randomBytes(6).toString("hex");

/** The engine's line for one of the run's events; a failure is logged, never thrown (the event stands). */
export async function recordEngineLine(run: RunRecord, event: WorkflowEvent): Promise<void> {
  const line = engineLineOf(event);
  if (!line) return;
  try {
    const atMicros = event.event_timestamp;
    await logStore.append(
      [
        lineOf(run, {
          atMicros,
          id: lineId(),
          severity: line.severity,
          body: line.body,
          spanId: spanIdOf(run.runId, line.activity?.id),
          attributes: { source: "engine", event_type: event.event_type, ...(line.activity ? { activity_id: line.activity.id, activity_name: line.activity.name } : {}) },
        }),
      ],
      ttlOf(Math.floor(atMicros / 1000)),
    );
  } catch (error) {
    logger.warn("workflow log line not written", { runId: run.runId, type: event.event_type, error: error as Error });
  }
}


import { createHash } from "node:crypto";
import type { RunRecord } from "../../domain/workflows/records.js";
import type { ScheduleRecord } from "../../domain/workflows/schedules/records.js";
import { armTimer, disarmTimer } from "../../engine/timers.js";
import { logger } from "../../observability/logger.js";
import { scheduleStore } from "../../store/workflows/schedules.js";

/**
 * A schedule's one-time timer (the timer port's `schedules` channel: its own Scheduler group, the fire
 * handler, a role that may invoke only it). One timer per fire time, named from the schedule and that time,
 * so a fired timer deleting itself never deletes the next one; the record's `fireAt` names the armed one.
 */
export interface ScheduleFirePayload {
  kind: "schedule-fire";
  workspace: string;
  scheduleId: string;
}

export function fireTimerName(workspace: string, scheduleId: string, fireAt: string): string {
  const hash = createHash("sha256").update(`${workspace}\u0000${scheduleId}`).digest("hex").slice(0, 40);
  return `sched-${hash}-${Math.floor(Date.parse(fireAt) / 1000)}`;
}

const payloadOf = (record: Pick<ScheduleRecord, "workspace" | "scheduleId">): ScheduleFirePayload => ({
  kind: "schedule-fire",
  workspace: record.workspace,
  scheduleId: record.scheduleId,
});

/** Arms the fire at `at` (an ISO time). */
export async function armFire(record: Pick<ScheduleRecord, "workspace" | "scheduleId">, at: string): Promise<void> {
  await armTimer({ name: fireTimerName(record.workspace, record.scheduleId, at), at: new Date(at), payload: { ...payloadOf(record) } }, "schedules");
}

export async function disarmFire(record: Pick<ScheduleRecord, "workspace" | "scheduleId">, at: string | null): Promise<void> {
  if (at) await disarmTimer(fireTimerName(record.workspace, record.scheduleId, at), "schedules");
}

/**
 * A run a schedule started has closed (closeRun's winner calls this): `pause_on_failure` pauses the schedule
 * when it FAILED; a buffered fire may start now, so the schedule is marked due and its fire armed at once.
 * Never throws: the run's close is already written, and the sweeper finds a due schedule whose arm failed.
 */
export async function scheduledRunClosed(run: Pick<RunRecord, "workspace" | "scheduleId" | "status" | "executionId">): Promise<void> {
  if (!run.scheduleId) return;
  try {
    const record = await scheduleStore.get(run.workspace, run.scheduleId);
    if (!record || record.paused) return;
    const now = new Date().toISOString();
    if (run.status === "FAILED" && record.policy.pause_on_failure) {
      // Its armed timer finds it paused and does nothing.
      await scheduleStore.change({ ...record, paused: true }, { paused: true, note: `Paused: execution '${run.executionId}' failed (pause_on_failure)`, updatedAt: now });
      return;
    }
    if (record.buffered.length) {
      await scheduleStore.markDue(record, now);
      await armFire(record, now);
    }
  } catch (error) {
    logger.warn("schedule not told of its run's close", { scheduleId: run.scheduleId, error: error as Error });
  }
}

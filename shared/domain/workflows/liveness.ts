import type { WorkerRecord } from "./records.js";

/** A worker is active while its last heartbeat is this recent (Mistral's production window; workers beat about every 10 s). */
export const LIVENESS_WINDOW_MS = 50_000;

export const isWorkerActive = (worker: Pick<WorkerRecord, "lastHeartbeatMs">, nowMs: number): boolean => nowMs - worker.lastHeartbeatMs <= LIVENESS_WINDOW_MS;

/** A deployment is active while at least one of its workers is. */
export const isDeploymentActive = (workers: readonly Pick<WorkerRecord, "lastHeartbeatMs">[], nowMs: number): boolean => workers.some((w) => isWorkerActive(w, nowMs));

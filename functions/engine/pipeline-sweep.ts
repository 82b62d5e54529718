import { task } from "../../shared/engine/task.js";
import { sweepEnabledPipelines } from "../../shared/services/observability/pipelines.js";

/** Leaves this much of the invocation for the last record's evaluation and the watermark's write. */
const MARGIN_MS = 60_000;

/**
 * Every few minutes (functions/engine.ts `periodicTasks`): one sweep of every enabled evaluation pipeline, until the
 * invocation's time runs short; what is left waits for the next period.
 */
export const handler = task(async (_input: unknown, context) => sweepEnabledPipelines(Date.now() + Math.max(10_000, (context?.getRemainingTimeInMillis() ?? 240_000 + MARGIN_MS) - MARGIN_MS)));

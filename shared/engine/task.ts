import type { Context } from "aws-lambda";
import { logger } from "../observability/logger.js";

/**
 * A Step Functions task handler: the state's input in, a JSON result out, no HTTP. Errors propagate
 * as they are, so the state machine's Retry and Catch see their names (Catch hands the message to the
 * failure task, which keeps internals out of the job record).
 */
export type TaskHandler<I, O> = (input: I, context?: Context) => Promise<O>;

/** Log keys every task line carries when its input names them (the job being worked on). */
const KEYS = ["workspace", "jobId", "taskId"] as const;

function keysOf(input: unknown): Record<string, string> {
  const source = ((input as { job?: unknown } | null)?.job ?? input) as Record<string, unknown> | null;
  if (typeof source !== "object" || source === null) return {};
  const keys: Record<string, string> = {};
  for (const key of KEYS) if (typeof source[key] === "string") keys[key] = source[key];
  return keys;
}

export function task<I, O>(work: (input: I, context?: Context) => Promise<O>): TaskHandler<I, O | null> {
  return async (input, context) => {
    // The local runner may call without a Lambda context.
    if (context) logger.addContext(context);
    logger.appendKeys(keysOf(input));
    try {
      // undefined is not JSON: a task with nothing to say returns null.
      return (await work(input, context)) ?? null;
    } catch (error) {
      logger.error("task failed", { error: error as Error });
      throw error;
    } finally {
      logger.resetKeys();
    }
  };
}

/**
 * Task tokens of `.waitForTaskToken` tasks: one per attempt of a task, open until SendTaskSuccess,
 * SendTaskFailure, its TimeoutSeconds, a missed HeartbeatSeconds or the end of its execution, and closed
 * for good after that (Step Functions then answers TaskTimedOut).
 */
import { randomBytes } from "node:crypto";
import { ApiError } from "./protocol.js";
import { ExecutionEnded, MAX_TIMER_SECONDS, StatesError, timeoutError, type Execution } from "./model.js";

const PREFIX = "LSFN";
/** A token this stand-in wrote: open now, or closed (or written by an earlier run of the stand-in, whose tasks are gone). */
const TOKEN = /^LSFN[A-Za-z0-9_-]{96}$/;

interface OpenTask {
  execution: Execution;
  settle: (outcome: { output: unknown } | { error: Error }) => void;
  heartbeatSeconds?: number;
  heartbeat?: NodeJS.Timeout;
  timeout?: NodeJS.Timeout;
}

export interface TaskLimits {
  heartbeatSeconds?: number;
  timeoutSeconds?: number;
}

export class TaskTokens {
  private readonly open = new Map<string, OpenTask>();

  /** A new token, and the task's outcome: SendTaskSuccess's output, or the error the task fails with. */
  issue(execution: Execution, limits: TaskLimits): { token: string; result: Promise<unknown> } {
    const token = PREFIX + randomBytes(72).toString("base64url");
    let resolve!: (output: unknown) => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<unknown>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const task: OpenTask = {
      execution,
      heartbeatSeconds: limits.heartbeatSeconds,
      settle: (outcome) => {
        this.close(token);
        if ("error" in outcome) reject(outcome.error);
        else resolve(outcome.output);
      },
    };
    this.open.set(token, task);
    if (limits.timeoutSeconds !== undefined) {
      task.timeout = timer(limits.timeoutSeconds, () =>
        task.settle({ error: timeoutError("States.Timeout", `The task did not complete within its ${limits.timeoutSeconds} s TimeoutSeconds`) }),
      );
    }
    this.beat(task);
    return { token, result: promise };
  }

  succeed(token: unknown, output: unknown): void {
    const task = this.find(token);
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(output));
    } catch {
      throw new ApiError("InvalidOutput", "Invalid Output: the output is not JSON");
    }
    task.settle({ output: parsed });
  }

  fail(token: unknown, error: unknown, cause: unknown): void {
    this.find(token).settle({ error: new StatesError(typeof error === "string" ? error : "", typeof cause === "string" ? cause : "") });
  }

  heartbeat(token: unknown): void {
    this.beat(this.find(token));
  }

  isOpen(token: string): boolean {
    return this.open.has(token);
  }

  /** Fails an open task (its function threw); a task that already ended stays as it ended. */
  failOpen(token: string, error: Error): void {
    this.open.get(token)?.settle({ error });
  }

  /** Closes every open task of an execution that ended: they fail, where nothing listens any more. */
  endAll(execution: Execution): void {
    for (const task of [...this.open.values()]) if (task.execution === execution) task.settle({ error: new ExecutionEnded() });
  }

  private find(token: unknown): OpenTask {
    if (typeof token !== "string" || !TOKEN.test(token)) throw new ApiError("InvalidToken", "Invalid Token: the task token is malformed");
    const task = this.open.get(token);
    if (!task) throw new ApiError("TaskTimedOut", "Task Timed Out: the task of this token has already ended");
    return task;
  }

  private beat(task: OpenTask): void {
    if (task.heartbeatSeconds === undefined) return;
    clearTimeout(task.heartbeat);
    const seconds = task.heartbeatSeconds;
    task.heartbeat = timer(seconds, () => task.settle({ error: timeoutError("States.HeartbeatTimeout", `No heartbeat arrived within the task's ${seconds} s HeartbeatSeconds`) }));
  }

  private close(token: string): void {
    const task = this.open.get(token);
    if (!task) return;
    this.open.delete(token);
    clearTimeout(task.heartbeat);
    clearTimeout(task.timeout);
  }
}

function timer(seconds: number, fire: () => void): NodeJS.Timeout {
  const handle = setTimeout(fire, Math.min(seconds, MAX_TIMER_SECONDS) * 1000);
  handle.unref();
  return handle;
}

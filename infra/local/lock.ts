import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { join } from "node:path";

/** Who holds a data directory: written when `npm start` takes it, read by a second one and by the CLIs. */
export interface LockHolder {
  pid: number;
  startedAt: string;
  /** Set once the server listens. */
  url?: string;
}

export const LOCK_FILE = "npm-start.lock";
export const STACK_FILE = "local-stack.json";

/**
 * True while a process with this id runs (signal 0 checks without sending anything). A zombie (killed, not
 * yet reaped: in a container without an init, possibly never) counts as gone, where /proc says so.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0] !== "Z";
  } catch {
    return true; // No /proc (macOS): the signal's answer stands.
  }
}

/** The holder of the data directory's lock, if that process still runs. */
export function lockHolder(dataDir: string): LockHolder | undefined {
  const file = join(dataDir, LOCK_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const holder = JSON.parse(readFileSync(file, "utf8")) as LockHolder;
    return typeof holder.pid === "number" && alive(holder.pid) ? holder : undefined;
  } catch {
    return undefined;
  }
}

export class DataDirLocked extends Error {
  constructor(dataDir: string, holder: LockHolder) {
    super(
      `Another npm start (pid ${holder.pid}${holder.url ? `, serving ${holder.url}` : ""}, started ${holder.startedAt}) is using the data directory ${dataDir}.\n` +
        `Stop it first (Ctrl-C in its terminal, or kill ${holder.pid}), or set PLATFORM_DATA_DIR to another directory.`,
    );
  }
}

export interface DataDirLock {
  /** Records the URL once the server listens, so a second start can name it. */
  serving(url: string): void;
  release(): void;
}

/**
 * Takes the data directory for this process, so two `npm start`s never run DynamoDB Local on the same
 * files. A lock left by a process that no longer runs (a crash, SIGKILL) is taken over.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const file = join(dataDir, LOCK_FILE);
  const holder: LockHolder = { pid: process.pid, startedAt: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, "wx", 0o600);
      writeSync(fd, JSON.stringify(holder));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 2) throw error;
      // A holder that is still exiting (a restart right after a crash or a stop) gets two seconds to go.
      let other = lockHolder(dataDir);
      for (let waited = 0; other && other.pid !== process.pid && waited < 2000; waited += 100) {
        await sleep(100);
        other = lockHolder(dataDir);
      }
      if (other && other.pid !== process.pid) throw new DataDirLocked(dataDir, other);
      rmSync(file, { force: true });
    }
  }
  let released = false;
  return {
    serving: (url) => writeFileSync(file, JSON.stringify({ ...holder, url })),
    release: () => {
      if (released) return;
      released = true;
      const current = lockHolder(dataDir);
      if (!current || current.pid === process.pid) rmSync(file, { force: true });
    },
  };
}

/**
 * The soak's memory reading after a full garbage collection. V8 grows its heap under load and gives it back
 * lazily: right after an hour of load the server's RSS still holds garbage a full collection frees (measured:
 * 356 MB before, 222 MB after), so a raw RSS says little about what the load left behind. This opens the server's
 * inspector (SIGUSR1, on 127.0.0.1 only, as Node does), asks V8 for a full collection, reads
 * process.memoryUsage() and closes the inspector again. Local servers only: the pid must be ours to signal.
 */
import WebSocket from "ws";

export interface CollectedMemory {
  rss: number;
  heapUsed: number;
  /** Memory of JavaScript objects bound to native memory (Buffers among them), as V8 counts it. */
  external: number;
  /** The part of `external` held by ArrayBuffers and Buffers. */
  arrayBuffers: number;
}

const INSPECTOR = "http://127.0.0.1:9229/json/list";

export async function memoryAfterFullGc(pid: number): Promise<CollectedMemory> {
  process.kill(pid, "SIGUSR1");
  const target = await inspectorOf(pid);
  const socket = new WebSocket(target);
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  let nextId = 0;
  const pending = new Map<number, (result: any) => void>();
  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  });
  const call = (method: string, params: object = {}) =>
    new Promise<any>((resolve) => {
      pending.set(++nextId, resolve);
      socket.send(JSON.stringify({ id: nextId, method, params }));
    });
  try {
    const who = await call("Runtime.evaluate", { expression: "process.pid", returnByValue: true });
    if (who.result.value !== pid) throw new Error(`the inspector on 127.0.0.1:9229 is process ${who.result.value}'s, not the server's (${pid})`);
    await call("HeapProfiler.enable");
    await call("HeapProfiler.collectGarbage");
    const read = await call("Runtime.evaluate", { expression: "JSON.stringify(process.memoryUsage())", returnByValue: true });
    const usage = JSON.parse(read.result.value as string) as CollectedMemory;
    return { rss: usage.rss, heapUsed: usage.heapUsed, external: usage.external, arrayBuffers: usage.arrayBuffers };
  } finally {
    // The inspector is closed from inside, once this session is gone: inspector.close() blocks the server's event
    // loop until no session is connected, so it must not run while this one waits for its answer.
    await call("Runtime.evaluate", { expression: "setTimeout(() => process.getBuiltinModule('node:inspector').close(), 200), true" });
    socket.close();
  }
}

/** The inspector's WebSocket URL once it listens (it opens a moment after the signal). */
async function inspectorOf(pid: number): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    try {
      const targets = (await (await fetch(INSPECTOR)).json()) as { webSocketDebuggerUrl: string }[];
      if (targets[0]) return targets[0].webSocketDebuggerUrl;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`process ${pid} opened no inspector on 127.0.0.1:9229 after SIGUSR1`);
}

import { EventEmitter } from "node:events";
import { MessageChannel, type Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { remoteWrites, serveWrites } from "../../../../shared/services/bookkeeping/remote-writes.js";
import type { BookkeepingWrites } from "../../../../shared/services/bookkeeping/store-writes.js";
import type { TotalsCall } from "../../../../shared/store/usage.js";
import { aUsageRecord } from "../../../support/builders.js";

/** A worker as remoteWrites sees one: its port, its ref count, and the events a real one emits when it stops. */
function fakeWorker() {
  const channel = new MessageChannel();
  const events = new EventEmitter();
  let refs = 0;
  channel.port1.on("message", (reply) => events.emit("message", reply));
  const worker = Object.assign(events, {
    postMessage: (message: unknown) => channel.port1.postMessage(message),
    ref: () => void (refs = 1),
    unref: () => void (refs = 0),
  });
  return { worker: worker as unknown as Worker & EventEmitter, thread: channel.port2, referenced: () => refs === 1, close: () => (channel.port1.close(), channel.port2.close()) };
}

const sum: TotalsCall = { month: "2026-11", day: "2026-11-28", model: "mistral-small-latest", keyId: "key-1", at: "2026-11-28T10:00:00.000Z", promptTokens: 7, completionTokens: 3, costMicros: 42, requests: 2 };

/** The thread's writes, recording what reached them. */
function recordingWrites(overrides: Partial<BookkeepingWrites> = {}) {
  const seen: { op: string; args: unknown[] }[] = [];
  const writes: BookkeepingWrites = {
    records: async (...args) => void seen.push({ op: "records", args }),
    addToMonth: async (...args) => (seen.push({ op: "addToMonth", args }), 1_042),
    addToDay: async (...args) => void seen.push({ op: "addToDay", args }),
    spans: async (...args) => void seen.push({ op: "spans", args }),
    ...overrides,
  };
  return { writes, seen };
}

let opened: ReturnType<typeof fakeWorker>[] = [];
afterEach(() => {
  for (const o of opened) o.close();
  opened = [];
});
const open = () => {
  const w = fakeWorker();
  opened.push(w);
  return w;
};

describe("the bookkeeping's writes across a thread", () => {
  it("runs each batch on the thread's writes and answers its value", async () => {
    const { worker, thread } = open();
    const { writes, seen } = recordingWrites();
    serveWrites(thread, writes);
    const remote = remoteWrites(worker, () => undefined);
    const records = [aUsageRecord({ requestId: "r-1" }), aUsageRecord({ requestId: "r-2" })];

    await remote.records(records);
    const spent = await remote.addToMonth("ws-1", sum);
    await remote.addToDay("ws-1", sum);

    expect(spent).toBe(1_042);
    expect(seen).toStrictEqual([
      { op: "records", args: [records] },
      { op: "addToMonth", args: ["ws-1", sum] },
      { op: "addToDay", args: ["ws-1", sum] },
    ]);
    expect(remote.pending()).toBe(0);
  });

  it("rejects a batch the thread's write refused, with its error's name and message", async () => {
    const { worker, thread } = open();
    const refusal = Object.assign(new Error("Throughput exceeds the current capacity"), { name: "ProvisionedThroughputExceededException" });
    serveWrites(thread, recordingWrites({ addToDay: () => Promise.reject(refusal) }).writes);
    const remote = remoteWrites(worker, () => undefined);

    const failed = await remote.addToDay("ws-1", sum).catch((error: Error) => error);

    expect(failed).toBeInstanceOf(Error);
    expect(failed).toMatchObject({ name: "ProvisionedThroughputExceededException", message: "Throughput exceeds the current capacity" });
    expect(remote.pending()).toBe(0);
  });

  it("holds the process open only while a batch is out", async () => {
    const { worker, thread, referenced } = open();
    let release!: () => void;
    serveWrites(thread, recordingWrites({ spans: () => new Promise<void>((resolve) => (release = resolve)) }).writes);
    const remote = remoteWrites(worker, () => undefined);
    expect(referenced()).toBe(false);

    const written = remote.spans([]);
    expect(referenced()).toBe(true);
    expect(remote.pending()).toBe(1);
    await expect.poll(() => release).toBeDefined();
    release();
    await written;

    expect(referenced()).toBe(false);
  });

  it("rejects the batches out when the thread stops, says so once, and refuses the next", async () => {
    const { worker, thread } = open();
    serveWrites(thread, recordingWrites({ records: () => new Promise<void>(() => undefined) }).writes);
    const lost: string[] = [];
    const remote = remoteWrites(worker, (why) => lost.push(why));
    const out = remote.records([aUsageRecord()]).catch((error: Error) => error.message);

    worker.emit("exit", 1);
    worker.emit("exit", 1);

    expect(await out).toBe("the bookkeeping thread stopped: exit code 1");
    expect(lost).toStrictEqual(["exit code 1"]);
    expect(remote.pending()).toBe(0);
    await expect(remote.addToDay("ws-1", sum)).rejects.toThrow("the bookkeeping thread stopped: exit code 1");
  });

  it("refuses an operation it does not know, without running anything", async () => {
    const { worker, thread } = open();
    const { writes, seen } = recordingWrites();
    serveWrites(thread, writes);
    const answered = new Promise((resolve) => worker.once("message", resolve));

    worker.postMessage({ id: 7, op: "constructor", args: [] });

    expect(await answered).toStrictEqual({ id: 7, error: { name: "Error", message: "unknown bookkeeping write 'constructor'" } });
    expect(seen).toStrictEqual([]);
  });
});

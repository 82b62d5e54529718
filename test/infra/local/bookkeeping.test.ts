/**
 * npm start's bookkeeping thread (decision 0075), started as npm start starts it, in front of the run's embedded
 * backends: the calls' usage records, month and day totals and spans are written by it, a stop waits for the
 * answered calls' bookkeeping, and a thread that stops with batches out loses none of them.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bookkeepingThreadOnFirstWrite, startBookkeepingThread, type BookkeepingThread } from "../../../infra/local/bookkeeping.js";
import { monthOf } from "../../../shared/domain/pricing.js";
import { afterAnswer, bookkeepingSettled } from "../../../shared/observability/after-answer.js";
import { bookkeepingWrites, inProcessWrites } from "../../../shared/services/bookkeeping/store-writes.js";
import { writeRecord } from "../../../shared/services/inference/usage-writes.js";
import { spanStore } from "../../../shared/store/observability/spans.js";
import { usageStore } from "../../../shared/store/usage.js";
import { useEmbeddedApi } from "../../support/api.js";
import { aUsageRecord } from "../../support/builders.js";
import { filesClient } from "../../support/files-client.js";
import { usageRecords } from "../../support/inference-client.js";
import { useTelemetryDir } from "../../support/telemetry-dir.js";

const { api, tenant } = useEmbeddedApi();
const telemetry = useTelemetryDir();

let thread: BookkeepingThread | undefined;
afterEach(async () => {
  await thread?.stop();
  thread = undefined;
});

/** `count` chat calls at once, each under a trace of its own: their request and trace ids. */
async function chats(count: number): Promise<{ requestId: string; trace: string }[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const trace = randomBytes(16).toString("hex");
      const reply = await filesClient(api, tenant).request("POST", "/v1/chat/completions", {
        json: { model: "mistral-small-latest", messages: [{ role: "user", content: `call ${i}` }] },
        headers: { traceparent: `00-${trace}-${randomBytes(8).toString("hex")}-01` },
      });
      expect(reply.status).toBe(200);
      return { requestId: reply.headers.get("x-request-id")!, trace };
    }),
  );
}

/** The local telemetry files that hold a line of `trace`, by name, once this process's bookkeeping is done. */
async function filesHolding(trace: string): Promise<string[]> {
  await bookkeepingSettled();
  const files = (readdirSync(telemetry.dir, { recursive: true }) as string[]).filter((name) => name.endsWith(".jsonl"));
  return files.filter((name) => readFileSync(join(telemetry.dir, name), "utf8").includes(trace)).map((name) => basename(name));
}

describe("npm start's bookkeeping thread", () => {
  it("writes the calls' usage records, month and day totals and spans, off the serving thread", async () => {
    thread = await startBookkeepingThread();
    expect(bookkeepingWrites()).not.toBe(inProcessWrites);

    const calls = await chats(6);
    await bookkeepingSettled();

    const records = await usageRecords(tenant.caller.workspace);
    expect(records.map((r) => r.requestId).sort()).toStrictEqual(calls.map((c) => c.requestId).sort());
    const cost = records.reduce((sum, r) => sum + (r.costMicros ?? 0), 0);
    expect(cost).toBeGreaterThan(0);
    expect(await usageStore.monthSpend(tenant.caller.workspace, monthOf(new Date()))).toBe(cost);
    const day = new Date().toISOString().slice(0, 10);
    const totals = await usageStore.dailyTotals(tenant.caller.workspace, day, day);
    expect(totals.reduce((sum, t) => sum + t.requests, 0)).toBe(6);
    for (const { trace } of calls) {
      expect((await spanStore.page(tenant.caller.workspace, trace, 10, null)).spans).toHaveLength(1);
      // Appended by the thread: its file is named after the process and the thread, never the process alone.
      expect(await filesHolding(trace)).toStrictEqual([expect.stringMatching(new RegExp(`^\\d{10}-${process.pid}-\\d+\\.jsonl$`))]);
    }
    expect(thread.pending()).toBe(0);
  });

  it("stops only once the answered calls' bookkeeping is written, and the serving thread writes it again after", async () => {
    thread = await startBookkeepingThread();
    const calls = await chats(4);

    await thread.stop();
    thread = undefined;

    // Nothing left to write: the calls' bookkeeping settles before the next turn of the loop.
    expect(await Promise.race([bookkeepingSettled().then(() => "settled"), new Promise((resolve) => setImmediate(() => resolve("still writing")))])).toBe("settled");
    expect(bookkeepingWrites()).toBe(inProcessWrites);
    expect((await usageRecords(tenant.caller.workspace)).map((r) => r.requestId).sort()).toStrictEqual(calls.map((c) => c.requestId).sort());
    const [after] = await chats(1);
    expect(await filesHolding(after!.trace)).toStrictEqual([expect.stringMatching(new RegExp(`^\\d{10}-${process.pid}\\.jsonl$`))]);
  });

  it("as npm start runs it, starts with the first batch: the server writes until the thread is ready, the thread after", async () => {
    const lazy = bookkeepingThreadOnFirstWrite();
    try {
      const [first] = await chats(1);
      expect(await filesHolding(first!.trace)).toStrictEqual([expect.stringMatching(new RegExp(`^\\d{10}-${process.pid}\\.jsonl$`))]);

      await expect
        .poll(async () => filesHolding((await chats(1))[0]!.trace), { timeout: 30_000, interval: 100 })
        .toStrictEqual([expect.stringMatching(new RegExp(`^\\d{10}-${process.pid}-\\d+\\.jsonl$`))]);
    } finally {
      await lazy.stop();
    }
    expect(bookkeepingWrites()).toBe(inProcessWrites);
  });

  it("loses no batch that was out when the thread stopped: its callers write it again in the serving thread", async () => {
    thread = await startBookkeepingThread();
    const records = Array.from({ length: 5 }, () => aUsageRecord({ workspace: tenant.caller.workspace, organization: tenant.caller.organization }));

    const written = Promise.all(records.map((record) => afterAnswer("usage record", () => writeRecord(record))));
    expect(thread.pending()).toBe(1);
    await thread.stop(0);
    thread = undefined;
    await written;

    expect((await usageRecords(tenant.caller.workspace)).map((r) => r.requestId).sort()).toStrictEqual(records.map((r) => r.requestId).sort());
  });
});

/**
 * `npm run bench:workflows`: prints figures, asserts nothing.
 *
 *  1. Executions of the example workflow (two activities, an offline model call, published state) started
 *     and completed per second, through the local stack
 *     (HTTP execute, the local Step Functions stand-in, the dispatcher, the status handler) with the
 *     reference worker in this process.
 *  2. The event stream's delay: from an event's write (its `event_timestamp`) to its frame's arrival at a
 *     client of GET /v1/workflows/events/stream, for the events of executions that run while it reads.
 *
 * Everything runs in this one process plus DynamoDB Local (java) and s3rver: figures compare code paths on
 * one machine; they are not cloud latencies.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { startLocalStack } from "../infra/local/stack.js";
import { runWorker, type WorkflowModule } from "../scripts/worker/run-worker.js";
import { summarize, table } from "./stats.js";

const EXECUTIONS = Number(process.env.BENCH_WORKFLOW_EXECUTIONS ?? 200);
const START_CONCURRENCY = 16;
const STREAMED_EXECUTIONS = 20;

const log = (line = "") => console.log(line);
const cpuList = cpus();
log(`Workflow benchmark ${new Date().toISOString()}`);
log(`Machine: ${cpuList.length} cores (${cpuList[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`);
log(`Load average at start: ${loadavg().map((x) => x.toFixed(2)).join(", ")} (1, 5, 15 min)`);

/** The example workflow (examples/workflows/summarize): two activities on the worker, a model call and published state on the platform. */
const example = (await import(new URL("../examples/workflows/summarize/activities.mjs", import.meta.url).href)) as WorkflowModule;
const text = (n: number) => `Report ${n}: the platform runs the program, the workers run the activities, the models answer offline.`;

const dataDir = mkdtempSync(join(tmpdir(), "platform-bench-workflows-"));
const stack = await startLocalStack({ port: 0, dataDir, persist: false, authorizerCacheSeconds: 60 });
const auth = { authorization: `Bearer ${stack.apiKey}`, "content-type": "application/json" };
const worker = runWorker({ url: stack.url, key: stack.apiKey, deployment: "bench", name: "bench", module: example, concurrency: 32, pollWaitSeconds: 5, log: () => {} });

async function execute(executionId: string, n: number): Promise<void> {
  const response = await fetch(`${stack.url}/v1/workflows/summarize/execute`, { method: "POST", headers: auth, body: JSON.stringify({ input: { text: text(n), max_words: 5 }, execution_id: executionId }) });
  if (response.status !== 200) throw new Error(`execute answered ${response.status}: ${await response.text()}`);
}

async function statusOf(executionId: string): Promise<{ status: string; result: { summary: string } | null }> {
  return (await (await fetch(`${stack.url}/v1/workflows/executions/${executionId}`, { headers: auth })).json()) as { status: string; result: { summary: string } | null };
}

/** Starts an execution, reads its event stream to the end, and adds each live frame's delay (arrival − event_timestamp). */
async function streamDelays(id: string, n: number, delays: number[]): Promise<void> {
  await execute(id, n);
  const response = await fetch(`${stack.url}/v1/workflows/events/stream?root_workflow_exec_id=${id}`, { headers: auth });
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    const arrived = Date.now();
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.split("\n").find((line) => line.startsWith("data: "));
      if (!data) continue;
      const event = (JSON.parse(data.slice(6)) as { data: { event_timestamp: number; event_type: string } }).data;
      // The start is written before the stream opens: replayed history says nothing about delay.
      if (event.event_type !== "WORKFLOW_EXECUTION_STARTED") delays.push(arrived - event.event_timestamp / 1000);
    }
  }
}

try {
  await worker.registered;

  // ------------------------------------------------------------------------------ 1. throughput
  log(`\n== 1. ${EXECUTIONS} executions of the example workflow (two activities, a model call), started ${START_CONCURRENCY} at a time`);
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: START_CONCURRENCY }, async () => {
      while (next < EXECUTIONS) {
        const i = next++;
        await execute(`bench-${i}`, i);
      }
    }),
  );
  const startedMs = Date.now() - started;
  const open = new Set(Array.from({ length: EXECUTIONS }, (_, i) => i));
  let wrong = 0;
  while (open.size) {
    for (const i of [...open]) {
      const execution = await statusOf(`bench-${i}`);
      if (execution.status === "RUNNING") continue;
      open.delete(i);
      if (execution.status !== "COMPLETED" || execution.result?.summary !== `${text(i).split(" ").slice(0, 5).join(" ")} …`) wrong += 1;
    }
    if (open.size) await new Promise((r) => setTimeout(r, 200));
  }
  const completedMs = Date.now() - started;
  log(
    table([
      ["executions", "all started in", "started / s", "all completed in", "completed / s", "wrong results"],
      [String(EXECUTIONS), `${(startedMs / 1000).toFixed(2)} s`, (EXECUTIONS / (startedMs / 1000)).toFixed(1), `${(completedMs / 1000).toFixed(2)} s`, (EXECUTIONS / (completedMs / 1000)).toFixed(1), String(wrong)],
    ]),
  );

  // ------------------------------------------------------------------------------ 2. stream delay
  log(`\n== 2. Event stream delay: an event's write to its frame at the client (one stream per execution)`);
  const rows: string[][] = [["executions at once", "frames", "p50", "p90", "p99", "max"]];
  for (const [label, batches] of [
    ["1", Array.from({ length: STREAMED_EXECUTIONS / 2 }, (_, i) => [i])],
    [String(STREAMED_EXECUTIONS), [Array.from({ length: STREAMED_EXECUTIONS }, (_, i) => STREAMED_EXECUTIONS + i)]],
  ] as const) {
    const delays: number[] = [];
    for (const batch of batches) await Promise.all(batch.map((i) => streamDelays(`bench-stream-${i}`, i, delays)));
    const s = summarize(delays);
    rows.push([label, String(delays.length), `${s.p50.toFixed(0)} ms`, `${s.p90.toFixed(0)} ms`, `${s.p99.toFixed(0)} ms`, `${s.max.toFixed(0)} ms`]);
  }
  log(table(rows));
} finally {
  await worker.stop();
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

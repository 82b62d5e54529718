/**
 * `npm run bench:workflow-signals`: prints figures, asserts nothing.
 *
 *  1. Signal to activity: from POST …/signals to the start of the activity the program runs after its
 *     `platform:await_signal` took the signal (on the reference worker in this process), one signal at a time.
 *  2. Update round trip: POST …/updates until its answer, the program answering with `platform:complete_update`
 *     at once, and with an activity on the worker inside the update's handler.
 *
 * Everything runs in this one process plus DynamoDB Local (java) and s3rver: figures compare code paths on one
 * machine; they are not cloud latencies.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { startLocalStack } from "../infra/local/stack.js";
import { runWorker, type WorkflowModule } from "../scripts/worker/run-worker.js";
import { summarize, table } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_SIGNAL_ROUNDS ?? 100);

const log = (line = "") => console.log(line);
const cpuList = cpus();
log(`Workflow signals and updates benchmark ${new Date().toISOString()}`);
log(`Machine: ${cpuList.length} cores (${cpuList[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`);
log(`Load average at start: ${loadavg().map((x) => x.toFixed(2)).join(", ")} (1, 5, 15 min)`);

const signalled: number[] = [];
let stamped: (() => void) | undefined;
const loop = (take: object, then: Record<string, object>, first: string) => ({ StartAt: "Take", States: { Take: { ...take, Next: first }, ...then } });
const module: WorkflowModule = {
  workflows: [
    {
      name: "bench-signal",
      definition: { input_schema: {}, signals: [{ name: "go", input_schema: {} }] },
      program: loop({ Type: "Task", Resource: "platform:await_signal", Parameters: { name: "go" }, ResultPath: "$.signal" }, {
        Stamp: { Type: "Task", Resource: "activity:stamp", Parameters: { "sent.$": "$.signal.sent" }, ResultPath: null, Next: "Take" },
      }, "Stamp"),
    },
    {
      name: "bench-update",
      definition: { input_schema: {}, updates: [{ name: "ping", input_schema: {} }] },
      program: loop({ Type: "Task", Resource: "platform:await_update", Parameters: { name: "ping" }, ResultPath: "$.update" }, {
        Answer: { Type: "Task", Resource: "platform:complete_update", Parameters: { "update_id.$": "$.update.update_id", "result.$": "$.update.input" }, ResultPath: null, Next: "Take" },
      }, "Answer"),
    },
    {
      name: "bench-update-activity",
      definition: { input_schema: {}, updates: [{ name: "ping", input_schema: {} }] },
      program: loop({ Type: "Task", Resource: "platform:await_update", Parameters: { name: "ping" }, ResultPath: "$.update" }, {
        Echo: { Type: "Task", Resource: "activity:echo", Parameters: { "input.$": "$.update.input" }, ResultPath: "$.echo", Next: "Answer" },
        Answer: { Type: "Task", Resource: "platform:complete_update", Parameters: { "update_id.$": "$.update.update_id", "result.$": "$.echo" }, ResultPath: null, Next: "Take" },
      }, "Echo"),
    },
  ],
  activities: {
    async stamp({ sent }: { sent: number }) {
      signalled.push(Date.now() - sent);
      stamped?.();
      return null;
    },
    async echo({ input }: { input: unknown }) {
      return input;
    },
  },
};

const dataDir = mkdtempSync(join(tmpdir(), "platform-bench-signals-"));
const stack = await startLocalStack({ port: 0, dataDir, persist: false, authorizerCacheSeconds: 60 });
const auth = { authorization: `Bearer ${stack.apiKey}`, "content-type": "application/json" };
const worker = runWorker({ url: stack.url, key: stack.apiKey, deployment: "bench", name: "bench", module, concurrency: 4, pollWaitSeconds: 5, log: () => {} });
const post = async (path: string, body: unknown) => {
  const response = await fetch(`${stack.url}/v1/workflows${path}`, { method: "POST", headers: auth, body: JSON.stringify(body) });
  if (response.status >= 300) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return response;
};

try {
  await worker.registered;
  for (const name of ["bench-signal", "bench-update", "bench-update-activity"]) await post(`/${name}/execute`, { execution_id: name });

  log(`\n== 1. Signal to activity: ${ROUNDS} signals, one at a time (POST …/signals → the activity after await_signal starts)`);
  for (let i = 0; i < ROUNDS; i += 1) {
    const started = new Promise<void>((resolve) => (stamped = resolve));
    await post("/executions/bench-signal/signals", { name: "go", input: { sent: Date.now() } });
    await started;
  }
  const s = summarize(signalled);
  log(table([["signals", "p50", "p90", "p99", "max"], [String(s.n), `${s.p50.toFixed(0)} ms`, `${s.p90.toFixed(0)} ms`, `${s.p99.toFixed(0)} ms`, `${s.max.toFixed(0)} ms`]]));

  log(`\n== 2. Update round trip: ${ROUNDS} updates each, one at a time`);
  const rows = [["handler", "updates", "p50", "p90", "p99", "max"]];
  for (const [label, execution] of [["complete_update at once", "bench-update"], ["an activity, then complete_update", "bench-update-activity"]] as const) {
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i += 1) {
      const t0 = performance.now();
      const answer = (await (await post(`/executions/${execution}/updates`, { name: "ping", input: { i } })).json()) as { result: { i: number } | { input: { i: number } } };
      times.push(performance.now() - t0);
      const echoed = "i" in answer.result ? answer.result.i : answer.result.input.i;
      if (echoed !== i) throw new Error(`update ${i} answered ${JSON.stringify(answer)}`);
    }
    const u = summarize(times);
    rows.push([label, String(u.n), `${u.p50.toFixed(0)} ms`, `${u.p90.toFixed(0)} ms`, `${u.p99.toFixed(0)} ms`, `${u.max.toFixed(0)} ms`]);
  }
  log(table(rows));
  for (const name of ["bench-signal", "bench-update", "bench-update-activity"]) await post(`/executions/${name}/terminate`, {});
} finally {
  await worker.stop();
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

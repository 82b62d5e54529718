/**
 * `npm run bench:schedules`: prints figures, asserts nothing.
 *
 * Fire-time error of workflow schedules on the local stack: 100 schedules, each firing once at its own whole
 * second within one minute (a calendar of that second, minute and hour, `max_executions: 1`), armed as
 * one-time at() schedules on the local Scheduler stand-in, fired by its timers through the fire handler,
 * which starts an execution of a one-state workflow. The error of a fire is the execution's `started_at`
 * minus its `scheduled_at` (both from the schedule's `recent_executions`).
 *
 * Everything runs in this one process plus DynamoDB Local (java) and s3rver: figures compare code paths on
 * one machine. In the cloud, EventBridge Scheduler resolves at() schedules to the minute (decision 0015):
 * fires are up to about a minute late there, whatever this measures.
 */
import { mkdtempSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { startLocalStack } from "../infra/local/stack.js";
import { runWorker, type WorkflowModule } from "../scripts/worker/run-worker.js";
import { summarize, table } from "./stats.js";

const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 100);
/** Creating 100 schedules on a busy 2-core machine takes tens of seconds: the minute of fires starts this far ahead. */
const LEAD_MS = Number(process.env.BENCH_SCHEDULES_LEAD_MS ?? 150_000);
const CREATE_CONCURRENCY = 8;
const SPREAD_S = 40;

const log = (line = "") => console.log(line);
const cpuList = cpus();
log(`Schedule benchmark ${new Date().toISOString()}`);
log(`Machine: ${cpuList.length} cores (${cpuList[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`);
log(`Load average at start: ${loadavg().map((x) => x.toFixed(2)).join(", ")} (1, 5, 15 min)`);

/** A workflow of one Pass state: the fire's work is the start, not the run. */
const tick: WorkflowModule = {
  workflows: [{ name: "tick", definition: { input_schema: { type: "object" } }, program: { StartAt: "Done", States: { Done: { Type: "Pass", End: true } } } }],
  activities: {},
};

const stack = await startLocalStack({ port: 0, dataDir: mkdtempSync(join(tmpdir(), "platform-bench-schedules-")), persist: false, authorizerCacheSeconds: 60 });
const auth = { authorization: `Bearer ${stack.apiKey}`, "content-type": "application/json" };
const worker = runWorker({ url: stack.url, key: stack.apiKey, deployment: "bench", name: "bench", module: tick, concurrency: 1, pollWaitSeconds: 5, log: () => {} });
await worker.registered;

const api = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${stack.url}${path}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text ? (JSON.parse(text) as any) : null;
};

// Whole seconds from LEAD_MS ahead, spread over SPREAD_S seconds: about 2.5 fires per second.
const first = Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000;
const times = Array.from({ length: SCHEDULES }, (_, i) => new Date(first + Math.floor((i * SPREAD_S) / SCHEDULES) * 1000));
const createdAt = Date.now();
const one = (v: number) => [{ start: v }];
let next = 0;
await Promise.all(
  Array.from({ length: CREATE_CONCURRENCY }, async () => {
    for (let i = next++; i < SCHEDULES; i = next++) {
      const at = times[i]!;
      await api("POST", "/v1/workflows/schedules", {
        workflow_identifier: "tick",
        schedule_id: `bench-${i}`,
        schedule: { input: { i }, calendars: [{ second: one(at.getUTCSeconds()), minute: one(at.getUTCMinutes()), hour: one(at.getUTCHours()) }], max_executions: 1 },
      });
    }
  }),
);
log(`${SCHEDULES} schedules created in ${((Date.now() - createdAt) / 1000).toFixed(2)} s (${CREATE_CONCURRENCY} at a time); fires from ${times[0]!.toISOString()} to ${times.at(-1)!.toISOString()}`);
if (Date.now() > first) log(`warning: creation ended after the first fire time; schedules created late plan their fire for the next day and are missing below`);

const deadline = times.at(-1)!.getTime() + 60_000;
let fired: { scheduled_at: string; started_at: string }[] = [];
while (Date.now() < deadline) {
  await new Promise((r) => setTimeout(r, 2_000));
  const listed = await api("GET", "/v1/workflows/schedules?page_size=1000");
  fired = listed.schedules.flatMap((s: { recent_executions: { scheduled_at: string; started_at: string }[] }) => s.recent_executions);
  if (fired.length >= SCHEDULES && Date.now() > times.at(-1)!.getTime()) break;
}

const errors = fired.map((f) => Date.parse(f.started_at) - Date.parse(f.scheduled_at));
const s = summarize(errors);
log();
log(table([["schedules", "fired", "p50", "p90", "p99", "max", "min"], [String(SCHEDULES), String(fired.length), `${s.p50} ms`, `${s.p90} ms`, `${s.p99} ms`, `${s.max} ms`, `${s.min} ms`]]));
log(`Load average at the end: ${loadavg().map((x) => x.toFixed(2)).join(", ")}`);

await worker.stop();
await stack.stop();
process.exit(0);

/**
 * `npm run bench:workflow-lifecycle`: prints figures, asserts nothing (docs/benchmarks.md, "Workflow lifecycle").
 *
 *  1. Continue-as-new: the gap from a run's end to the start of its next run (status handler → next run
 *     written → StartExecution), over executions that continue as new HOPS times each.
 *  2. A child workflow's round trip: a parent whose one Task starts a child (a Pass) and waits for its result,
 *     against the same Pass run directly (`wait_for_result` latency).
 *  3. A workflow-level retry with a zero backoff: from the failed attempt's FAILED event to the next attempt's
 *     STARTED event (the timer port's local stand-in in between).
 *
 * Local stack in this process plus DynamoDB Local: figures compare code paths on one machine, not cloud latencies.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalStack } from "../infra/local/stack.js";
import { runWorker, type WorkflowModule } from "../scripts/worker/run-worker.js";
import { summarize, table } from "./stats.js";

const EXECUTIONS = Number(process.env.BENCH_LIFECYCLE_EXECUTIONS ?? 20);
const HOPS = 10;
const log = (line = "") => console.log(line);
log(`Workflow lifecycle benchmark ${new Date().toISOString()}`);
log(`Machine: ${cpus().length} cores, Node ${process.version}; load average ${loadavg().map((x) => x.toFixed(2)).join(", ")}`);

const pass = { StartAt: "Echo", States: { Echo: { Type: "Pass", Parameters: { "n.$": "$.n" }, End: true } } };
const module: WorkflowModule = {
  workflows: [
    {
      name: "hops",
      definition: { input_schema: { type: "object" } },
      program: {
        StartAt: "Count",
        States: {
          Count: { Type: "Pass", Parameters: { "n.$": "States.MathAdd($.n, 1)" }, Next: "More?" },
          "More?": { Type: "Choice", Choices: [{ Variable: "$.n", NumericLessThan: HOPS + 1, Next: "Again" }], Default: "Done" },
          Again: { Type: "Task", Resource: "platform:continue_as_new", End: true },
          Done: { Type: "Pass", End: true },
        },
      },
    },
    { name: "echo", definition: { input_schema: { type: "object" } }, program: pass },
    {
      name: "parent",
      definition: { input_schema: { type: "object" } },
      program: { StartAt: "Child", States: { Child: { Type: "Task", Resource: "platform:child_workflow", Parameters: { workflow: "echo", "input.$": "$" }, End: true } } },
    },
    {
      name: "fails-once",
      definition: { input_schema: { type: "object" }, retry_policy: { maximum_attempts: 2, initial_interval_seconds: 0 } },
      program: { StartAt: "Boom", States: { Boom: { Type: "Fail", Error: "Bench.Boom", Cause: "fails every attempt" } } },
    },
  ],
  activities: {},
};

const dataDir = mkdtempSync(join(tmpdir(), "platform-bench-lifecycle-"));
const stack = await startLocalStack({ port: 0, dataDir, persist: false, authorizerCacheSeconds: 60 });
const auth = { authorization: `Bearer ${stack.apiKey}`, "content-type": "application/json" };
const worker = runWorker({ url: stack.url, key: stack.apiKey, deployment: "bench-lifecycle", name: "bench", module, pollWaitSeconds: 5, log: () => {} });

async function call(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${stack.url}${path}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  return response.json();
}
const execute = (workflow: string, body: Record<string, unknown>) => call("POST", `/v1/workflows/${workflow}/execute`, body);
async function closed(executionId: string): Promise<void> {
  for (;;) {
    const execution = await call("GET", `/v1/workflows/executions/${executionId}`);
    if (!["RUNNING", "RETRYING_AFTER_ERROR", "CONTINUED_AS_NEW"].includes(execution.status)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}
/** Gaps between one run's end and the next run's start, within each execution's chain of runs. */
async function gaps(executionId: string): Promise<number[]> {
  const runs = (await call("GET", `/v1/workflows/runs?root_execution_id=${encodeURIComponent(executionId)}&order=asc&page_size=100`)).executions as { start_time: string; end_time: string | null }[];
  return runs.slice(1).map((run, i) => Date.parse(run.start_time) - Date.parse(runs[i]!.end_time!));
}
const ms = (s: ReturnType<typeof summarize>) => [`${s.p50.toFixed(0)} ms`, `${s.p90.toFixed(0)} ms`, `${s.p99.toFixed(0)} ms`, `${s.max.toFixed(0)} ms`];

try {
  await worker.registered;

  log(`\n== 1. Continue-as-new: a run's end to its next run's start (${EXECUTIONS} executions × ${HOPS} hops, 4 at a time)`);
  const hopGaps: number[] = [];
  for (let i = 0; i < EXECUTIONS; i += 4) {
    const ids = Array.from({ length: Math.min(4, EXECUTIONS - i) }, (_, j) => `hops-${i + j}`);
    await Promise.all(ids.map((id) => execute("hops", { execution_id: id, input: { n: 0 } })));
    await Promise.all(ids.map(closed));
    for (const id of ids) hopGaps.push(...(await gaps(id)));
  }
  log(table([["hops", "p50", "p90", "p99", "max"], [String(hopGaps.length), ...ms(summarize(hopGaps))]]));

  log(`\n== 2. Child workflow round trip: wait_for_result of a parent waiting on a child Pass vs the Pass alone (${EXECUTIONS} each, one at a time)`);
  const rows: string[][] = [["execution", "p50", "p90", "p99", "max"]];
  for (const [label, workflow] of [["Pass alone", "echo"], ["parent → child Pass", "parent"]] as const) {
    const times: number[] = [];
    for (let i = 0; i < EXECUTIONS; i += 1) {
      const started = performance.now();
      const answer = await execute(workflow, { input: { n: i }, wait_for_result: true });
      times.push(performance.now() - started);
      if (JSON.stringify(answer.result) !== JSON.stringify({ n: i })) throw new Error(`${workflow} answered ${JSON.stringify(answer)}`);
    }
    rows.push([label, ...ms(summarize(times))]);
  }
  log(table(rows));

  log(`\n== 3. Workflow-level retry with a zero backoff: the FAILED event to the next attempt's STARTED event (${EXECUTIONS} executions)`);
  const retryGaps: number[] = [];
  for (let i = 0; i < EXECUTIONS; i += 1) {
    await execute("fails-once", { execution_id: `retry-${i}` });
    await closed(`retry-${i}`);
    // The failed attempt's end is its WORKFLOW_EXECUTION_FAILED event (the run record closes only once the next attempt started).
    const events = (await call("GET", `/v1/workflows/events/list?root_workflow_exec_id=retry-${i}&limit=100`)).events as { event_type: string; event_timestamp: number }[];
    const failed = events.find((e) => e.event_type === "WORKFLOW_EXECUTION_FAILED")!;
    const restarted = events.filter((e) => e.event_type === "WORKFLOW_EXECUTION_STARTED")[1]!;
    retryGaps.push((restarted.event_timestamp - failed.event_timestamp) / 1000);
  }
  log(table([["retries", "p50", "p90", "p99", "max"], [String(retryGaps.length), ...ms(summarize(retryGaps))]]));
} finally {
  await worker.stop();
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * A workflow run survives a restart of `npm start` while one of its activities is with a worker: the
 * server is killed (SIGKILL to its whole process group) and started again on the same data directory and
 * port. The run resumes from its checkpoint under the same run id, nothing that was only waiting is marked
 * failed, and no activity that completed runs again. Then the same while a run is talked to: killed while the
 * activity of an update's handler is with a worker, and again while the run waits for a signal: the update is
 * answered once (its activity ran once), the signal is delivered once, nothing is lost.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { freePort } from "../../infra/local/net.js";
import { runWorker, type Activity, type WorkflowModule } from "../../scripts/worker/run-worker.js";
import { startNpmStart, until, useNpmStartDirs } from "../support/local-process.js";
import { workflowsClient } from "../support/workflow-builders.js";

const example = (await import(new URL("../../examples/workflows/summarize/activities.mjs", import.meta.url).href)) as WorkflowModule;
const approval = (await import(new URL("../../examples/workflows/approval/activities.mjs", import.meta.url).href)) as WorkflowModule;

const { dataDir: freshDataDir } = useNpmStartDirs("platform-workflow-restart-");

/** `npm start` on a new data directory, and the reference worker serving `source` with its activities counted; `gated` waits for `release()`. */
async function serveCounted(prefix: string, source: WorkflowModule, gated: string) {
  const dataDir = freshDataDir();
  const key = `restart-${randomBytes(16).toString("hex")}`;
  const port = await freePort();
  const server = await startNpmStart({ dataDir, key, port });
  const calls: Record<string, number> = {};
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const counted = (name: string, activity: Activity): Activity => async (input, ctx) => {
    calls[name] = (calls[name] ?? 0) + 1;
    if (name === gated) await released;
    return activity(input, ctx);
  };
  const module: WorkflowModule = {
    workflows: source.workflows,
    activities: Object.fromEntries(Object.entries(source.activities).map(([name, activity]) => [name, counted(name, activity)])),
  };
  const worker = runWorker({ url: server.url, key, deployment: "examples", name: "steady", module, pollWaitSeconds: 1, concurrency: 2, log: () => {} });
  return { dataDir, key, port, server, calls, release, worker };
}

describe("npm start restarted while a workflow activity is pending", () => {
  it("resumes the run from its checkpoint: the pending activity's result is taken, nothing fails, nothing runs twice", { timeout: 240_000 }, async () => {
    // The example's activities, counted; Summarize waits for the test to let it finish.
    const { dataDir, key, port, calls, release, worker, ...served } = await serveCounted("platform-workflow-restart-", example, "summarize");
    let server = served.server;
    try {
      await worker.registered;
      const http = workflowsClient(server, server);
      const started = await http.execute("summarize", { input: { text: "A run that outlives its server." }, execution_id: "restart-1" });
      expect(started.status).toBe(200);
      const runId = started.body.run_id as string;
      await until("the Summarize activity to be with the worker", async () => (calls.summarize === 1 ? true : undefined));

      await server.kill();
      server = await startNpmStart({ dataDir, key, port });

      // Still running after the restart: it was only waiting.
      expect((await http.execution("restart-1")).body).toMatchObject({ status: "RUNNING", run_id: runId });
      release();
      const closed = await until("the run to close", async () => {
        const execution = (await http.execution("restart-1")).body;
        return execution.status === "RUNNING" ? undefined : execution;
      });

      expect(closed).toMatchObject({ status: "COMPLETED", run_id: runId, result: { summary: expect.any(String) } });
      expect(calls).toEqual({ read_file: 1, summarize: 1 });
      const events = (await http.events({ workflow_exec_id: "restart-1", limit: "100" })).body.events as { event_type: string }[];
      expect(events.filter((e) => e.event_type === "WORKFLOW_EXECUTION_FAILED")).toEqual([]);
      expect(events.at(-1)!.event_type).toBe("WORKFLOW_EXECUTION_COMPLETED");
    } finally {
      release();
      await worker.stop();
    }
  });
});

describe("npm start restarted while a workflow run waits for an update's activity and for a signal", () => {
  it("resumes the run each time: the update answered once, the signal delivered once, each activity run once", { timeout: 300_000 }, async () => {
    const { dataDir, key, port, calls, release, worker, ...served } = await serveCounted("platform-workflow-restart-inbox-", approval, "format_note");
    let server = served.server;
    try {
      await worker.registered;
      const http = workflowsClient(server, server);
      const started = await http.execute("approval", { input: { request: "restart" }, execution_id: "restart-inbox" });
      const runId = started.body.run_id as string;
      await until("the run to wait for a note", async () => ((await http.query("restart-inbox", "stage")).body.result === "waiting for a note" ? true : undefined));

      // 1. Killed while the update's activity is with the worker: its caller loses the connection.
      const update = http.updateExecution("restart-inbox", "add_note", { text: "kept" }).catch((error: unknown) => error);
      await until("the update's activity to be with the worker", async () => (calls.format_note === 1 ? true : undefined));
      await server.kill();
      expect(await update).toBeInstanceOf(Error);
      server = await startNpmStart({ dataDir, key, port });
      expect((await http.execution("restart-inbox")).body).toMatchObject({ status: "RUNNING", run_id: runId });
      release();
      await until("the note to be published", async () => ((await http.query("restart-inbox", "note")).body.result === "[restart] kept" ? true : undefined));

      // 2. Killed while the run waits for the approval signal.
      await until("the run to wait for approval", async () => ((await http.query("restart-inbox", "__status")).body.result?.waiting_for?.[0]?.name === "approve" ? true : undefined));
      await server.kill();
      server = await startNpmStart({ dataDir, key, port });
      await until("the resumed run to wait for approval", async () => ((await http.query("restart-inbox", "__status")).body.result?.waiting_for?.length === 1 ? true : undefined));
      expect((await http.signal("restart-inbox", "approve", { by: "ada" })).status).toBe(202);
      const closed = await until("the run to close", async () => {
        const execution = (await http.execution("restart-inbox")).body;
        return execution.status === "RUNNING" ? undefined : execution;
      });

      expect(closed).toMatchObject({ status: "COMPLETED", run_id: runId, result: { note: "[restart] kept", approved_by: "ada" } });
      expect(calls).toEqual({ format_note: 1, finalize: 1 });
      const history = (await http.history("restart-inbox")).body.events.map((e: { eventType: string }) => e.eventType.replace("EVENT_TYPE_", ""));
      expect(history.filter((t: string) => t === "WORKFLOW_EXECUTION_SIGNALED")).toHaveLength(1);
      expect(history.filter((t: string) => t === "WORKFLOW_EXECUTION_UPDATE_ACCEPTED")).toHaveLength(1);
      expect(history.filter((t: string) => t === "WORKFLOW_EXECUTION_UPDATE_COMPLETED")).toHaveLength(1);
      expect(history.filter((t: string) => t === "WORKFLOW_EXECUTION_FAILED")).toEqual([]);
    } finally {
      release();
      await worker.stop();
    }
  });
});

/**
 * A workflow run that is talked to survives restarts of `npm start`: killed while the activity of an update's
 * handler is with a worker, and again while the run waits for a signal (SIGKILL to the whole process group, then
 * started again on the same data directory and port). The update is answered once (its activity ran once), the
 * signal is delivered once, nothing is lost. (A plain pending activity: workflow-restart.test.ts.)
 */
import { describe, expect, it } from "vitest";
import type { WorkflowModule } from "../../scripts/worker/run-worker.js";
import { startNpmStart, until, useNpmStartDirs } from "../support/local-process.js";
import { workflowsClient } from "../support/workflow-builders.js";
import { serveCounted } from "./workflow-restart.js";

const approval = (await import(new URL("../../examples/workflows/approval/activities.mjs", import.meta.url).href)) as WorkflowModule;
const { dataDir: freshDataDir } = useNpmStartDirs("platform-workflow-restart-inbox-");

describe("npm start restarted while a workflow run waits for an update's activity and for a signal", () => {
  it("resumes the run each time: the update answered once, the signal delivered once, each activity run once", { timeout: 300_000 }, async () => {
    const { dataDir, key, port, calls, release, worker, ...served } = await serveCounted(freshDataDir(), approval, "format_note");
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
      // After a restart under load (the whole suite on two cores) the worker may take more than a minute to be back.
      await until("the note to be published", async () => ((await http.query("restart-inbox", "note")).body.result === "[restart] kept" ? true : undefined), 120_000);

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

/**
 * A workflow run survives a restart of `npm start` while one of its activities is with a worker: the
 * server is killed (SIGKILL to its whole process group) and started again on the same data directory and
 * port. The run resumes from its checkpoint under the same run id, nothing that was only waiting is marked
 * failed, and no activity that completed runs again. (The same while a run is talked to: workflow-restart-inbox.test.ts.)
 */
import { describe, expect, it } from "vitest";
import type { WorkflowModule } from "../../scripts/worker/run-worker.js";
import { startNpmStart, until, useNpmStartDirs } from "../support/local-process.js";
import { workflowsClient } from "../support/workflow-builders.js";
import { serveCounted } from "./workflow-restart.js";

const example = (await import(new URL("../../examples/workflows/summarize/activities.mjs", import.meta.url).href)) as WorkflowModule;
const { dataDir: freshDataDir } = useNpmStartDirs("platform-workflow-restart-");

describe("npm start restarted while a workflow activity is pending", () => {
  it("resumes the run from its checkpoint: the pending activity's result is taken, nothing fails, nothing runs twice", { timeout: 240_000 }, async () => {
    // The example's activities, counted; Summarize waits for the test to let it finish.
    const { dataDir, key, port, calls, release, worker, ...served } = await serveCounted(freshDataDir(), example, "summarize");
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

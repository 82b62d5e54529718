/**
 * A schedule on `npm start`, by the clock (issue 13): created through the official SDK, it fires executions of
 * the example workflow by itself (the local Scheduler stand-in's timers, the fire handler), pause stops them,
 * trigger fires one at once, resume starts them again, and it keeps firing after `npm start` is killed and
 * started again on the same data directory. This is the one schedule test that waits for real time: its
 * interval is 3 seconds.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { runWorker, type WorkflowModule } from "../../scripts/worker/run-worker.js";
import { portOf, sleep, startNpmStart, until, useNpmStartDirs } from "../support/local-process.js";
import { sdkClient } from "../support/sdk.js";
import { workflowsClient } from "../support/workflow-builders.js";

const example = (await import(new URL("../../examples/workflows/summarize/activities.mjs", import.meta.url).href)) as WorkflowModule;

const { dataDir: freshDataDir } = useNpmStartDirs("platform-schedules-");

describe("POST /v1/workflows/schedules on npm start, by the clock", () => {
  it("fires by itself, stops while paused, triggers at once, resumes, and survives a restart of npm start", { timeout: 360_000 }, async () => {
    const dataDir = freshDataDir();
    const key = `schedules-${randomBytes(16).toString("hex")}`;
    let server = await startNpmStart({ dataDir, key });
    const port = portOf(server);
    const worker = runWorker({ url: server.url, key, deployment: "examples", name: "clockwork", module: example, pollWaitSeconds: 1, concurrency: 4, log: () => {} });
    try {
      await worker.registered;
      const client = sdkClient(server, key);
      await client.workflows.schedules.scheduleWorkflow({
        workflowIdentifier: "summarize",
        scheduleId: "every-3s",
        schedule: { input: { text: "A schedule fires this by itself.", max_words: 4 }, intervals: [{ every: "PT3S" }], policy: { overlap: 6 } },
      });
      const fired = async () => (await client.workflows.schedules.getSchedule({ scheduleId: "every-3s" })).recentExecutions ?? [];

      // By itself: two fires, three seconds apart (to the second: the stand-in fires on time).
      const two = await until("two fires", async () => ((await fired()).length >= 2 ? fired() : undefined), 30_000);
      expect(two[1]!.scheduledAt.getTime() - two[0]!.scheduledAt.getTime()).toBe(3_000);
      const http = workflowsClient(server, server);
      await until("a fired execution to complete", async () => ((await http.execution(two[0]!.executionId)).body.status === "COMPLETED" ? true : undefined));

      // Paused: nothing scheduled after the pause fires for 7 seconds (a fire that was already under way when the
      // pause was acknowledged may still be recorded just after it).
      await client.workflows.schedules.pauseSchedule({ scheduleId: "every-3s", workflowSchedulePauseRequest: { note: "quiet" } });
      const pausedAt = Date.now();
      await sleep(7_000);
      const whilePaused = await fired();
      expect(whilePaused.filter((fire) => fire.scheduledAt.getTime() > pausedAt)).toStrictEqual([]);
      const atPause = whilePaused.length;

      // Trigger fires one at once, paused or not.
      await client.workflows.schedules.triggerSchedule({ scheduleId: "every-3s" });
      expect((await fired()).length).toBe(atPause + 1);

      // Resumed: it fires again.
      await client.workflows.schedules.resumeSchedule({ scheduleId: "every-3s" });
      await until("a fire after resume", async () => ((await fired()).length >= atPause + 2 ? true : undefined), 30_000);

      // Killed and started again: the armed fire is in the local Scheduler's file, and it goes on firing.
      await server.kill();
      const beforeRestart = (await fired().catch(() => [])).length;
      server = await startNpmStart({ dataDir, key, port });
      const after = sdkClient(server, key);
      const seen = (await after.workflows.schedules.getSchedule({ scheduleId: "every-3s" })).recentExecutions!.length;
      expect(seen).toBeGreaterThanOrEqual(beforeRestart);
      const latest = await until(
        "a fire after the restart",
        async () => {
          const recent = (await after.workflows.schedules.getSchedule({ scheduleId: "every-3s" })).recentExecutions ?? [];
          const last = recent.at(-1);
          return last && last.startedAt.getTime() > Date.now() - 10_000 && recent.length >= Math.min(10, seen + 2) ? last : undefined;
        },
        45_000,
      );
      expect(latest.executionId).toMatch(/^every-3s-/);
      await after.workflows.schedules.unscheduleWorkflow({ scheduleId: "every-3s" });
    } finally {
      await worker.stop();
    }
  });
});

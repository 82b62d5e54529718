/**
 * What the workflow-restart ring files share: `npm start` on a data directory with the reference worker attached,
 * its activities counted, one of them held until the test releases it.
 */
import { randomBytes } from "node:crypto";
import { runWorker, type Activity, type WorkflowModule } from "../../scripts/worker/run-worker.js";
import { portOf, startNpmStart } from "../support/local-process.js";

/** `npm start` on a new data directory, and the reference worker serving `source` with its activities counted; `gated` waits for `release()`. */
export async function serveCounted(dataDir: string, source: WorkflowModule, gated: string) {
  const key = `restart-${randomBytes(16).toString("hex")}`;
  const server = await startNpmStart({ dataDir, key });
  const port = portOf(server);
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

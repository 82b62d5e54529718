/**
 * The reference worker's CLI (docs/workflows.md, "Workers"):
 *
 *   npm run worker -- --deployment NAME --module ./activities.mjs [--url URL] [--key KEY] [--name WORKER] [--concurrency N]
 *
 * URL and key default to PLATFORM_URL and PLATFORM_API_KEY, else to the stack `npm start` runs
 * (<PLATFORM_DATA_DIR or .data>/local-stack.json and its dev-api-key). Ctrl-C (SIGINT) or SIGTERM stops it
 * cleanly: no new tasks, running activities finish and report.
 */
import { hostname } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { apiTarget, cliArgs, fail } from "./cli-target.js";
import { runWorker, type WorkflowModule } from "./worker/run-worker.js";

const USAGE = `Usage:
  npm run worker -- --deployment NAME --module ./activities.mjs [--url URL] [--key KEY] [--name WORKER] [--concurrency N]

Runs the reference workflow worker: registers the module's workflows for the deployment and runs their
activities. URL and key default to PLATFORM_URL and PLATFORM_API_KEY, else to the stack npm start runs
(PLATFORM_DATA_DIR, default .data). Ctrl-C or SIGTERM stops it after its running activities.`;

const { values } = cliArgs(
  USAGE,
  {
    deployment: { type: "string" },
    module: { type: "string" },
    url: { type: "string" },
    key: { type: "string" },
    name: { type: "string" },
    concurrency: { type: "string" },
  },
  false,
);
if (!values.deployment || !values.module) fail(`The worker needs --deployment and --module.\n\n${USAGE}`);

const { url, key } = apiTarget(values);

const module = (await import(pathToFileURL(resolve(values.module)).href)) as WorkflowModule;
if (!Array.isArray(module.workflows) || typeof module.activities !== "object") fail(`${values.module} must export workflows (an array) and activities (an object of functions)`);

const worker = runWorker({
  url,
  key,
  deployment: values.deployment,
  name: values.name ?? hostname(),
  module,
  concurrency: values.concurrency ? Number(values.concurrency) : undefined,
  // A restart of the deployment (POST …/{name}/restart): the activities module is imported afresh, so changed code is served.
  onRestart: async () => (await import(`${pathToFileURL(resolve(values.module!)).href}?restart=${Date.now()}`)) as WorkflowModule,
});
const answer = await worker.registered.catch((error: Error) => fail(`Registration refused: ${error.message}`));
console.error(`Worker ${values.name ?? hostname()} of deployment ${values.deployment} at ${url}: registered ${module.workflows.map((w) => w.name).join(", ")} (${answer.workflow_registration_ids.join(", ")})`);
for (const warning of answer.warnings) console.error(`warning: ${warning}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.error(`${signal}: stopping (running activities finish first)`);
    void worker.stop().then(() => process.exit(0));
  });
}

import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import "../../infra/local/env.js";
import { LOCAL_CATALOG, providersEnv, readCatalog } from "../../infra/catalog.js";
import { startBackends } from "../../infra/local/backends.js";
import { synthRoot } from "./synth-root.js";

declare module "vitest" {
  export interface ProvidedContext {
    backendEnv: Record<string, string>;
    /** This run's id: work shared by the run's files (the handler bundles of test/infra) is done once per id. */
    runId: string;
  }
}

/** One DynamoDB Local (in memory) and one s3rver for the whole run; tests isolate by workspace. */
export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(join(tmpdir(), "platform-test-"));
  const backends = await startBackends({ dataDir, persist: false });
  const catalog = readCatalog(LOCAL_CATALOG);
  const env = { ...backends.env, ...providersEnv(catalog) };
  Object.assign(process.env, env);
  // The offline catalog, seeded once: tests only read base models (fine-tuned ones live per workspace).
  await (await import("../../shared/services/models/catalog.js")).seed(catalog);
  project.provide("backendEnv", env);
  const runId = randomUUID();
  project.provide("runId", runId);
  return async () => {
    await backends.stop();
    rmSync(dataDir, { recursive: true, force: true });
    // The cloud assemblies test/infra synthesized (test/infra/synth.ts): ~200 MB of staged bundles each.
    rmSync(synthRoot(runId), { recursive: true, force: true });
  };
}

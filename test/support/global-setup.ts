import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import "../../infra/local/env.js";
import { startBackends } from "../../infra/local/backends.js";

declare module "vitest" {
  export interface ProvidedContext {
    backendEnv: Record<string, string>;
  }
}

/** One DynamoDB Local (in memory) and one s3rver for the whole run; tests isolate by workspace. */
export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(join(tmpdir(), "platform-test-"));
  const backends = await startBackends({ dataDir, persist: false });
  project.provide("backendEnv", backends.env);
  return async () => {
    await backends.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}

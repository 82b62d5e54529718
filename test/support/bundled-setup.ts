import { rmSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { buildBundles } from "../../infra/local/bundles.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The Lambda bundles' folder when the run serves them (vitest.bundled.config.ts); unset otherwise. */
    bundles: string;
  }
}

/** The bundles `cdk deploy` ships, built once for the run: every test API of the run serves them (test/support/api.ts). */
export default async function setup(project: TestProject) {
  const built = await buildBundles();
  project.provide("bundles", built.functions);
  return () => rmSync(built.root, { recursive: true, force: true });
}

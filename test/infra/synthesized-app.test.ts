/**
 * The tests that read the synthesized CDK app (test/infra/*.synth.ts), run as one file: one worker synthesizes
 * the app once for all of them. As separate files they shared a worker's module cache, but each of the run's
 * workers that picked one up synthesized the same app again: 245 CPU-s with four workers against 162 with one
 * (docs/testing.md). Each part is its own suite, named after its file, so its hooks stay its own; run one
 * with `npx vitest run test/infra/synthesized-app.test.ts -t '^iam '`.
 */
import { readdirSync } from "node:fs";
import { describe } from "vitest";

const SUFFIX = ".synth.ts";

for (const file of readdirSync(import.meta.dirname).filter((name) => name.endsWith(SUFFIX)).sort()) {
  describe(file.slice(0, -SUFFIX.length), async () => {
    await import(`./${file}`);
  });
}

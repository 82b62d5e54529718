/**
 * The order files start in: longest first, so the last minutes of a parallel run are not one slow file alone
 * on one worker (docs/decisions/0047-test-suite-in-parallel.md). Vitest's cache knows each file's last duration;
 * a file it has not seen (a fresh clone, a new file) is placed by the folder it is in, whose files are slow or
 * quick as a rule (the rings and the SDK examples start processes; unit tests import a module or two).
 * Unlike Vitest's own order, the projects are mixed: `fast` and `stack` share one pool of workers.
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * What a file the cache has not seen is taken to last, in ms, by its folder (or its own path) (the typical file's duration there;
 * figures in docs/testing.md, "Where the time goes"); the file's size breaks ties.
 */
const FOLDER_ESTIMATES: Array<[string, number]> = [
  // All the synthesized app's tests in one file: the longest of the run.
  ["test/infra/synthesized-app.test.ts", 150_000],
  ["test/sdk-examples/", 50_000],
  ["test/ring/", 30_000],
  ["test/fuzz/", 30_000],
  ["test/infra/", 15_000],
  ["test/sdk/", 8_000],
  ["test/contract/", 8_000],
  ["test/integration/", 4_000],
  ["test/handlers/", 1_000],
  ["test/unit/", 500],
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const estimate = (spec: TestSpecification) => {
      const path = relative(config.root, spec.moduleId);
      const key = `${spec.project.name}:${path}`;
      const known = cache.getFileTestResults(key);
      if (known) return known.duration;
      return (FOLDER_ESTIMATES.find(([folder]) => path.startsWith(folder))?.[1] ?? 4_000) + (cache.getFileStats(key)?.size ?? 0) / 1_000;
    };
    const estimates = new Map(files.map((spec) => [spec, estimate(spec)]));
    return [...files].sort((a, b) => estimates.get(b)! - estimates.get(a)!);
  }
}

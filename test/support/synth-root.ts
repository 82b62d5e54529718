import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where a run's synthesized cloud assemblies go (test/infra/synth.ts); the run's teardown removes it (global-setup.ts). */
export const synthRoot = (runId: string): string => join(tmpdir(), `platform-synth-${runId}`);

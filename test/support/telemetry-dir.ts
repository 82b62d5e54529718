import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { SpanEvaluationRow } from "../../shared/domain/observability/records.js";
import { TELEMETRY_DIR_ENV } from "../../shared/config.js";

/**
 * A fresh TELEMETRY_DIR for this file (handlers and the embedded server run in the test's process, so what they
 * append lands there), restored and removed after it. `evaluations(ws)` reads back the span evaluation rows a
 * workspace has in it (the analytical store's JSON lines, shared/blobs/telemetry.ts).
 */
export function useTelemetryDir(): { readonly dir: string; evaluations(workspace: string): SpanEvaluationRow[] } {
  let dir: string | undefined;
  let previous: string | undefined;
  beforeAll(() => {
    previous = process.env[TELEMETRY_DIR_ENV];
    dir = mkdtempSync(join(tmpdir(), "telemetry-"));
    process.env[TELEMETRY_DIR_ENV] = dir;
  });
  afterAll(() => {
    if (previous === undefined) delete process.env[TELEMETRY_DIR_ENV];
    else process.env[TELEMETRY_DIR_ENV] = previous;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const here = () => {
    if (!dir) throw new Error("The telemetry directory is not there yet: use it inside a test or a hook");
    return dir;
  };
  return {
    get dir() {
      return here();
    },
    evaluations(workspace) {
      const root = join(here(), "span_evaluations", `workspace_id=${workspace}`);
      let days: string[];
      try {
        days = readdirSync(root);
      } catch {
        return [];
      }
      return days.flatMap((day) => readdirSync(join(root, day)).flatMap((file) => readFileSync(join(root, day, file), "utf8").trim().split("\n").map((line) => JSON.parse(line) as SpanEvaluationRow)));
    },
  };
}

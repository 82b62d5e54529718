import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const ROOT_DIR = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);
const DEPCRUISE = join(ROOT_DIR, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");
const CONFIG = join(ROOT_DIR, ".dependency-cruiser.cjs");

/** A throwaway tree laid out like the repository, holding the given files. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "layers-"));
  writeFileSync(join(root, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext" } }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  roots.push(root);
  return root;
}
const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

async function cruise(root: string): Promise<{ failed: boolean; output: string }> {
  try {
    const { stdout } = await run(process.execPath, [DEPCRUISE, "--config", CONFIG, "shared", "functions"], { cwd: root });
    return { failed: false, output: stdout };
  } catch (error) {
    return { failed: true, output: String((error as { stdout?: string }).stdout) };
  }
}

describe("the import-boundary check (npm test runs it on the repository)", () => {
  it("fails a tree whose domain reaches into the store and whose engine reads the functions' table", async () => {
    const root = tree({
      "shared/store/files.ts": "export const fileStore = {};\n",
      "shared/domain/files.ts": 'import { fileStore } from "../store/files.js";\nexport const leak = fileStore;\n',
      "functions/engine.ts": "export const stateMachines = {};\n",
      "shared/engine/executions.ts": 'import { stateMachines } from "../../functions/engine.js";\nexport const machines = stateMachines;\n',
    });
    const { failed, output } = await cruise(root);
    expect(failed).toBe(true);
    expect(output).toContain("domain-is-pure: shared/domain/files.ts → shared/store/files.ts");
    expect(output).toContain("shared-stays-below-functions-and-infra: shared/engine/executions.ts → functions/engine.ts");
  });

  it("passes the same tree drawn the right way round", async () => {
    const root = tree({
      "shared/domain/files.ts": "export const rule = 1;\n",
      "shared/store/files.ts": 'import { rule } from "../domain/files.js";\nexport const fileStore = { rule };\n',
      "shared/services/files/files.ts": 'import { fileStore } from "../../store/files.js";\nexport const get = () => fileStore;\n',
      "functions/files/retrieve.ts": 'import { get } from "../../shared/services/files/files.js";\nexport const handler = get;\n',
    });
    expect(await cruise(root)).toMatchObject({ failed: false });
  });
});

import { existsSync, mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { buildHandlers, ROOT, RUNTIME_SDK } from "../build.js";

export interface BuiltBundles {
  /** One folder per handler, `<handler>/index.mjs`, as CDK ships each function's code. */
  functions: string;
  /** The folder above them all, whose node_modules stands in for the runtime's /var/runtime/node_modules. */
  root: string;
}

/**
 * The bundles `cdk deploy` ships (infra/build.ts), built into a fresh folder outside the project: a bundle
 * resolves what it left external by walking up from its own file, and under the project that walk would
 * end in the project's node_modules, where everything is. Beside them, a node_modules holding only the
 * AWS SDK clients the Lambda runtime provides (links to the project's copies), as /var/runtime/node_modules
 * holds them: a dependency a bundle needs but does not carry fails here as it would deployed.
 */
export async function buildBundles(options: { root?: string; only?: readonly string[] } = {}): Promise<BuiltBundles> {
  const root = options.root ?? mkdtempSync(join(tmpdir(), "platform-bundles-"));
  const above = ancestorModules(root);
  if (above) throw new Error(`Bundles under ${root} would find ${above}, which the Lambda runtime does not have: build them elsewhere`);
  const functions = join(root, "functions");
  await buildHandlers({ outdir: functions, only: options.only });
  for (const name of RUNTIME_SDK) {
    const link = join(root, "node_modules", name);
    mkdirSync(dirname(link), { recursive: true });
    if (!existsSync(link)) symlinkSync(join(ROOT, "node_modules", name), link, "dir");
  }
  return { functions, root };
}

/** A node_modules above `dir` (the project's, one in /tmp…), where a bundle's imports would look after the runtime's. */
function ancestorModules(dir: string): string | undefined {
  for (let at = dirname(dir); ; at = dirname(at)) {
    if (existsSync(join(at, "node_modules"))) return join(at, "node_modules");
    if (at === dirname(at)) return undefined;
  }
}

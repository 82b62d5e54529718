/**
 * Where the console's files are: the build writes them beside each console function's bundle (infra/build.ts,
 * with a manifest naming the entry's script and stylesheet); run from source (npm start, the tests) they are
 * built in memory on first use, as the build does.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ConsoleBuild } from "../../console/build.js";

const here = dirname(fileURLToPath(import.meta.url));

/** The two functions whose bundles carry the console's files. */
export const CONSOLE_HANDLERS = ["console/page", "console/asset"] as const;
/** The manifest beside a console function's bundle: the entry's names and every asset's name and type. */
export const CONSOLE_MANIFEST = "console-manifest.json";
/** The folder beside the bundle holding the assets. */
export const CONSOLE_ASSET_DIR = "console-assets";

interface Manifest {
  script: string;
  style: string;
  assets: { name: string; contentType: string }[];
}

let loaded: Promise<ConsoleBuild> | undefined;

/** The console's build: read from beside the bundle, or built from source. */
export function consoleBuild(): Promise<ConsoleBuild> {
  loaded ??= (async () => {
    const manifestFile = join(here, CONSOLE_MANIFEST);
    if (existsSync(manifestFile)) {
      const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as Manifest;
      return { ...manifest, assets: manifest.assets.map((a) => ({ ...a, body: readFileSync(join(here, CONSOLE_ASSET_DIR, a.name)) })) };
    }
    // From source only: the specifier is computed so the bundler never pulls esbuild in.
    const builder = pathToFileURL(join(here, "..", "..", "console", "build.ts")).href;
    const { buildConsole } = (await import(builder)) as typeof import("../../console/build.js");
    return buildConsole();
  })();
  loaded.catch(() => (loaded = undefined));
  return loaded;
}

/** The manifest infra/build.ts writes beside a bundle. */
export const manifestOf = (build: ConsoleBuild): Manifest => ({ script: build.script, style: build.style, assets: build.assets.map(({ name, contentType }) => ({ name, contentType })) });

/**
 * The console's build: one esbuild pass over console/src into a script and a stylesheet named by their content
 * hash (served with a year's immutable caching), kept in memory. infra/build.ts writes it beside the console
 * functions' bundles; from source (npm start, the tests) functions/console/assets.ts runs it on first use.
 */
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));

export interface ConsoleAsset {
  /** The file name under /console/, with its content hash. */
  name: string;
  contentType: string;
  body: Uint8Array;
}

export interface ConsoleBuild {
  /** The entry script's and stylesheet's names, for the HTML entry. */
  script: string;
  style: string;
  assets: ConsoleAsset[];
}

const CONTENT_TYPES: Record<string, string> = { ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8" };

export async function buildConsole(): Promise<ConsoleBuild> {
  const result = await build({
    entryPoints: { app: join(here, "src", "main.tsx") },
    outdir: join(here, "out"),
    write: false,
    bundle: true,
    format: "esm",
    platform: "browser",
    // The browsers of the last two years; Chromium drives the tests.
    target: ["chrome111", "firefox111", "safari16.4"],
    jsx: "automatic",
    jsxImportSource: "preact",
    minify: true,
    treeShaking: true,
    legalComments: "none",
    entryNames: "[name]-[hash]",
    logLevel: "warning",
  });
  const assets = result.outputFiles.map((file) => ({
    name: file.path.slice(file.path.lastIndexOf("/") + 1),
    contentType: CONTENT_TYPES[extname(file.path)] ?? "application/octet-stream",
    body: file.contents,
  }));
  const named = (extension: string) => {
    const asset = assets.find((a) => a.name.endsWith(extension));
    if (!asset) throw new Error(`The console's build produced no ${extension} file`);
    return asset.name;
  };
  return { script: named(".js"), style: named(".css"), assets };
}

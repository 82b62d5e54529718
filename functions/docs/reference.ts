/**
 * Where the reference's files are: the build puts them beside each docs function's bundle (infra/build.ts:
 * the generated openapi.json, the renderer's assets); run from source (npm start, the tests) the document is
 * generated on first use, as the build does, and the assets come from node_modules.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** The two functions whose bundles carry the reference's files. */
export const DOCUMENT_HANDLER = "docs/openapi";
export const PAGE_HANDLER = "docs/page";

/** The file name of the generated document beside the GET /openapi.json bundle. */
export const DOCUMENT_FILE = "openapi.json";

/** The renderer (Swagger UI) files the page serves, by the name the page asks for. */
export const RENDERER_ASSETS = { "swagger-ui-bundle.js": "application/javascript; charset=utf-8", "swagger-ui.css": "text/css; charset=utf-8" } as const;
export type RendererAsset = keyof typeof RENDERER_ASSETS;
export const RENDERER_PACKAGE = "swagger-ui-dist";

let document: Promise<Record<string, unknown>> | undefined;

/** The OpenAPI document: the built one, or generated from the route table when running from source. */
export function openApiDocument(): Promise<Record<string, unknown>> {
  document ??= (async () => {
    const built = join(here, DOCUMENT_FILE);
    if (existsSync(built)) return JSON.parse(readFileSync(built, "utf8")) as Record<string, unknown>;
    // From source only: the specifier is computed so the bundler never pulls the generator (and every handler) in.
    const generator = pathToFileURL(join(here, "..", "..", "infra", "openapi", "document.ts")).href;
    const { openApiDocument: generate } = (await import(generator)) as { openApiDocument: () => Promise<Record<string, unknown>> };
    return generate();
  })();
  return document;
}

/** The folder with the renderer's files: beside the bundle, or the installed package. */
export function rendererDir(): string {
  if (existsSync(join(here, "package.json"))) return here;
  return dirname(createRequire(import.meta.url).resolve(`${RENDERER_PACKAGE}/package.json`));
}

let version: string | undefined;

/** The renderer's version, for the page's cache-busting asset URLs. */
export const rendererVersion = (): string => (version ??= (JSON.parse(readFileSync(join(rendererDir(), "package.json"), "utf8")) as { version: string }).version);

const assets = new Map<RendererAsset, string>();

/** A renderer file's text, read once per container. */
export function rendererAsset(name: RendererAsset): string {
  if (!assets.has(name)) assets.set(name, readFileSync(join(rendererDir(), name), "utf8"));
  return assets.get(name)!;
}

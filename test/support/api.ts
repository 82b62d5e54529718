import { afterAll, beforeAll, beforeEach, inject } from "vitest";
import { startApiServer, type RunningApi } from "../../infra/local/server.js";
import { ROOT_DIR } from "../../infra/local/stack.js";
import { PUBLIC_URL_ENV } from "../../shared/config.js";
import { startBundledApi } from "./bundled-process.js";
import { newTenant, type TestTenant } from "./tenant.js";

/**
 * The local API Gateway stand-in on a free port, in front of the run's embedded backends; in the bundled
 * run (vitest.bundled.config.ts) a Node 22 process serving the Lambda bundles instead of the TypeScript handlers.
 * Like the local stack, it configures where browsers reach it (PUBLIC_URL: the OAuth consent page and callback).
 */
export async function startTestApi(options: { authorizerCacheSeconds?: number } = {}): Promise<RunningApi> {
  const bundles = inject("bundles");
  const api = bundles ? await startBundledApi(bundles, options) : await startApiServer({ port: 0, authorizerCacheSeconds: options.authorizerCacheSeconds ?? 0, rootDir: ROOT_DIR });
  process.env[PUBLIC_URL_ENV] = api.url;
  return api;
}

export interface EmbeddedApiOptions {
  /**
   * When the file's tenant is made: a fresh one before each test (the default: tests never see one
   * another's records), once before the file's first test (suites that pay for their setup once), or
   * never (tests make their own with newTenant).
   */
  tenant?: "per-test" | "per-file" | "none";
  authorizerCacheSeconds?: number;
}

export interface EmbeddedApi {
  /** The running API; a live view, so clients built at module level reach it once it has started. */
  readonly api: Pick<RunningApi, "url">;
  /** The current tenant; a live view, so clients built at module level act as the tenant of the test running now. */
  readonly tenant: TestTenant;
}

const present = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`${what} is not there yet: use it inside a test or a hook`);
  return value;
};

/**
 * The local API for this file's tests, started before the first and stopped after the last, with a
 * tenant as `options.tenant` says. Clients take the returned views: `filesClient(api, tenant)`.
 */
export function useEmbeddedApi(options: EmbeddedApiOptions = {}): EmbeddedApi {
  const when = options.tenant ?? "per-test";
  let running: RunningApi | undefined;
  let current: TestTenant | undefined;
  beforeAll(async () => {
    running = await startTestApi(options);
    if (when === "per-file") current = await newTenant();
  });
  afterAll(() => running?.stop());
  if (when === "per-test") {
    beforeEach(async () => {
      current = await newTenant();
    });
  }
  return {
    api: {
      get url() {
        return present(running, "The test API").url;
      },
    },
    tenant: {
      get key() {
        return present(current, "The test's tenant").key;
      },
      get caller() {
        return present(current, "The test's tenant").caller;
      },
    },
  };
}

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import "./env.js";
import { PUBLIC_URL_ENV, TELEMETRY_DIR_ENV } from "../../shared/config.js";
import { LOCAL_CATALOG, providersEnv, readCatalog, usesOfflineModels } from "../catalog.js";
import { DENY_TARGETS_ENV } from "../../shared/net/stack-targets.js";
import { startBackends, type Backends } from "./backends.js";
import { withServer } from "./outbound-env.js";
import { lockDataDir, STACK_FILE, type DataDirLock } from "./lock.js";
import { assertPortFree } from "./net.js";

export interface LocalStackOptions {
  port: number;
  /** Where the API listens (default 127.0.0.1; 0.0.0.0 in a container or VM). */
  host?: string;
  /** One line per request (method, path, status, latency, request id) on stdout. */
  accessLog?: boolean;
  dataDir: string;
  /** Keep DynamoDB data on disk (npm start) or in memory (tests). */
  persist: boolean;
  apiKey?: string;
  authorizerCacheSeconds?: number;
  rootDir?: string;
  /** The model catalog file (default config/models.offline.json). */
  catalog?: string;
  /** Serve the handlers from these esbuild bundles (infra/local/bundles.ts) rather than the TypeScript modules. */
  bundles?: string;
  /** Write the calls' usage and spans on a thread of their own (npm start; decision 0075), not the serving thread. */
  bookkeepingThread?: boolean;
}

export interface LocalStack {
  url: string;
  apiKey: string;
  organization: string;
  workspace: string;
  env: Record<string, string>;
  /** True when some model is served by the offline provider (npm start says so in its banner). */
  offlineModels: boolean;
  stop(): Promise<void>;
}

export const ROOT_DIR = resolve(import.meta.dirname, "../..");

/**
 * The whole API on this machine: backends, tables and bucket, an organization with a default workspace
 * and an admin key, and the HTTP server in front of the route table.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  // A start refused for its port leaves nothing behind: checked before the data directory is made or locked.
  await assertPortFree(options.port, options.host ?? "127.0.0.1");
  mkdirSync(options.dataDir, { recursive: true });
  // Before DynamoDB Local opens the files: a second stack on the same directory is refused, naming the first.
  const lock = await lockDataDir(options.dataDir);
  let backends: Backends | undefined;
  try {
    backends = await startBackends({ dataDir: options.dataDir, persist: options.persist });
    return await serveOn(backends, lock, options);
  } catch (error) {
    await backends?.stop();
    lock.release();
    throw error;
  }
}

async function serveOn(backends: Backends, lock: DataDirLock, options: LocalStackOptions): Promise<LocalStack> {
  const catalog = readCatalog(options.catalog ?? LOCAL_CATALOG);
  const env: Record<string, string> = { ...backends.env, ...providersEnv(catalog) };
  Object.assign(process.env, env);
  // Its thread starts with the first model call's bookkeeping; it shares this process's environment.
  const bookkeeping = options.bookkeepingThread ? (await import("./bookkeeping.js")).bookkeepingThreadOnFirstWrite() : undefined;
  // Imported only now: the SDK clients in these modules are built from the environment set above.
  const tenants = await import("../../shared/services/tenancy/tenants.js");
  await (await import("../../shared/services/models/catalog.js")).seed(catalog);
  // Jobs whose executions died with the previous process: failed before anything else can see them.
  const interrupted = await (await import("./recovery.js")).failInterruptedJobs();
  if (interrupted.length) console.warn(`Marked ${interrupted.length} unfinished batch job(s) FAILED: the local engine restarted while they ran`);
  const imports = await (await import("./recovery.js")).failInterruptedImports();
  if (imports.length) console.warn(`Marked ${imports.length} unfinished dataset import(s) FAILED: the local engine restarted while they ran`);
  // Workflow runs whose executions died with the previous process: resumed from their checkpoints.
  const runs = await (await import("../../shared/services/workflows/recovery.js")).resumeLostRuns();
  if (runs.resumed.length) console.warn(`Resumed ${runs.resumed.length} workflow run(s) the local engine was running when it stopped`);
  if (runs.failed.length) console.warn(`Marked ${runs.failed.length} workflow run(s) FAILED: they could not be resumed`);
  // Closed hours of telemetry become Parquet (docs/observability/engine.md): before serving, then every hour.
  const { compactTelemetry } = await import("../../shared/store/observability/analytics.js");
  const telemetryDir = env[TELEMETRY_DIR_ENV]!;
  const compact = async () => {
    if (existsSync(telemetryDir)) await compactTelemetry(telemetryDir).catch((error: unknown) => console.warn(`Telemetry compaction failed: ${(error as Error).message}`));
  };
  await compact();
  const { startApiServer } = await import("./server.js");
  const { organization, workspace } = await tenants.bootstrap({ organization: "Local organization", workspace: "Default workspace" });
  const apiKey = await devKey(tenants, options, organization.id, workspace.id);
  const api = await startApiServer({
    port: options.port,
    host: options.host,
    accessLog: options.accessLog,
    authorizerCacheSeconds: options.authorizerCacheSeconds ?? 0,
    rootDir: options.rootDir ?? ROOT_DIR,
    bundles: options.bundles,
  });
  // The API server is one of the stack's own services too: no connector may call it with a loopback address.
  env[DENY_TARGETS_ENV] = withServer(env[DENY_TARGETS_ENV], options.host ?? "127.0.0.1", Number(new URL(api.url).port));
  // Where browsers reach this API (the OAuth consent page and callback): the operator's PUBLIC_URL (a proxy in front), else the server's own URL.
  env[PUBLIC_URL_ENV] = process.env[PUBLIC_URL_ENV] || api.url;
  Object.assign(process.env, env);
  const stackFile = join(options.dataDir, STACK_FILE);
  writeFileSync(stackFile, JSON.stringify({ url: api.url, pid: process.pid, env }, null, 2));
  lock.serving(api.url);
  // The schedule sweeper, as the cloud's every-minute rule runs it: fires lost while nothing ran are armed again.
  const schedules = await import("../../shared/services/workflows/schedules.js");
  const sweep = () => void schedules.sweep().catch((error: unknown) => console.warn(`Schedule sweep failed: ${(error as Error).message}`));
  sweep();
  const sweeper = setInterval(sweep, 60_000);
  sweeper.unref();
  const compactor = setInterval(() => void compact(), 3_600_000);
  compactor.unref();
  // Enabled evaluation pipelines swept as the cloud's rate rule sweeps them (docs/observability/pipelines.md).
  const pipelines = await import("../../shared/services/observability/pipelines.js");
  const everyMs = (await import("../../functions/engine.js")).periodicTasks.pipelineSweep.everyMinutes * 60_000;
  const sweepPipelines = () => void pipelines.sweepEnabledPipelines(Date.now() + everyMs / 2).catch((error: unknown) => console.warn(`Evaluation pipeline sweep failed: ${(error as Error).message}`));
  const pipelineSweeper = setInterval(sweepPipelines, everyMs);
  pipelineSweeper.unref();
  return {
    url: api.url,
    apiKey,
    organization: organization.id,
    workspace: workspace.id,
    env,
    offlineModels: usesOfflineModels(catalog),
    stop: async () => {
      clearInterval(sweeper);
      clearInterval(compactor);
      clearInterval(pipelineSweeper);
      // The CLIs read this file to find the stack: gone with it, so they can say it is not running.
      rmSync(stackFile, { force: true });
      try {
        await api.stop();
        // The answered calls' usage and spans are written before the tables go.
        await bookkeeping?.stop();
        await backends.stop();
      } finally {
        lock.release();
      }
    },
  };
}

/** PLATFORM_API_KEY if given; otherwise the key made on first start, kept in the data dir so it survives restarts. */
async function devKey(
  tenants: typeof import("../../shared/services/tenancy/tenants.js"),
  options: LocalStackOptions,
  organization: string,
  workspace: string,
): Promise<string> {
  const keyFile = join(options.dataDir, "dev-api-key");
  const wanted = options.apiKey ?? (options.persist && existsSync(keyFile) ? readFileSync(keyFile, "utf8").trim() : undefined);
  if (wanted && (await tenants.findKey(wanted))) return wanted;
  const { key } = await tenants.createApiKey({
    organization,
    workspace,
    name: "local admin",
    admin: true,
    principal: { id: "local-admin", type: "user" },
    key: wanted,
  });
  if (options.persist && !options.apiKey) writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  return key;
}

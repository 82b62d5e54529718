import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import "../infra/local/env.js";
import "./cli-output.js";
import { alive, STACK_FILE } from "../infra/local/lock.js";
import { enterCli } from "../shared/observability/change-origin.js";
import { tableEnvVar, type TableName } from "../shared/store/tables.js";

export function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * The command line of a CLI: `--help` / `-h` prints the usage (exit 0); an unknown option, a missing
 * value or a stray argument prints what is wrong and the usage (exit 2) instead of a stack trace.
 */
export function cliArgs<O extends Options>(usage: string, options: O, allowPositionals = true) {
  const args = process.argv.slice(2);
  if (args.some((a) => a === "--help" || a === "-h") || args[0] === "help") {
    console.log(usage);
    process.exit(0);
  }
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    return fail(`${(error as Error).message.replace(/\. To specify a positional argument.*$/, "")}\n\n${usage}`);
  }
}

const notRunning = (dataDir: string, why: string) =>
  `The local stack is not running (${why}).\n` +
  `Looked in the data directory ${dataDir} (${process.env.PLATFORM_DATA_DIR ? "PLATFORM_DATA_DIR" : "the default, .data: PLATFORM_DATA_DIR selects another"}).\n` +
  `Start it with npm start${dataDir === resolve(".data") ? "" : ` (PLATFORM_DATA_DIR=${dataDir})`}, or set TABLE_<NAME> and AWS credentials to work on a deployment.`;

/** A connection refused or reset anywhere in an error (the AWS SDK wraps it, sometimes in an AggregateError). */
function connectionRefused(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== "object" || depth > 4) return false;
  const e = error as { code?: unknown; errors?: unknown[]; cause?: unknown; message?: unknown };
  return (
    e.code === "ECONNREFUSED" ||
    e.code === "ECONNRESET" ||
    (typeof e.message === "string" && /ECONNREFUSED/.test(e.message)) ||
    (e.errors ?? []).some((inner) => connectionRefused(inner, depth + 1)) ||
    connectionRefused(e.cause, depth + 1)
  );
}

/**
 * Where an admin CLI works: a deployment's tables when `TABLE_<NAME>` is set (with the usual AWS
 * credentials and region), otherwise the stack `npm start` is running, whose environment it adopts.
 * A stack that is not running is said so plainly, also when it stops while the CLI works. `audited`: the
 * CLI makes privileged changes, which the audit log records (a deployment's TABLE_AUDIT is required then).
 */
export function useTablesOrLocalStack(table: TableName, options: { audited?: boolean } = {}): "deployment" | "local" {
  // What the CLI changes through the services is recorded as the OS user's, from the CLI (the audit log).
  enterCli();
  if (process.env[tableEnvVar(table)]) {
    // Privileged changes append to the audit log: without its table the change would be made and then fail unrecorded.
    if (options.audited && !process.env[tableEnvVar("audit")]) fail(`Set ${tableEnvVar("audit")} too (the DataStack output AuditTableName): changes made here are recorded in the audit log.`);
    return "deployment";
  }
  const dataDir = resolve(process.env.PLATFORM_DATA_DIR ?? ".data");
  const file = join(dataDir, STACK_FILE);
  const local = localStack(dataDir) ?? fail(notRunning(dataDir, `no ${file}`));
  Object.assign(process.env, local.env);
  const refused = (error: unknown) => {
    if (!connectionRefused(error)) throw error;
    fail(notRunning(dataDir, `nothing answers at ${local.url} and its backends`));
  };
  process.on("uncaughtException", refused);
  process.on("unhandledRejection", refused);
  console.error(`Using the local stack of ${local.url} (${file})`);
  return "local";
}

/**
 * The stack `npm start` runs on `dataDir` (its stack file), undefined when there is none; one that exited
 * without cleaning up is said so plainly.
 */
function localStack(dataDir: string): { url: string; pid?: number; env: Record<string, string> } | undefined {
  const file = join(dataDir, STACK_FILE);
  if (!existsSync(file)) return undefined;
  const local = JSON.parse(readFileSync(file, "utf8")) as { url: string; pid?: number; env: Record<string, string> };
  if (local.pid !== undefined && !alive(local.pid)) fail(notRunning(dataDir, `the npm start of ${local.url}, process ${local.pid}, has exited without cleaning up`));
  return local;
}

/**
 * The API a CLI talks to over HTTP: `--url`/`--key`, else PLATFORM_URL and PLATFORM_API_KEY, else the stack
 * `npm start` runs (<PLATFORM_DATA_DIR or .data>/local-stack.json and its dev-api-key).
 */
export function apiTarget(given: { url?: string; key?: string }): { url: string; key: string } {
  const dataDir = resolve(process.env.PLATFORM_DATA_DIR ?? ".data");
  const local = given.url || process.env.PLATFORM_URL ? undefined : localStack(dataDir);
  const keyFile = join(dataDir, "dev-api-key");
  const url = given.url ?? process.env.PLATFORM_URL ?? local?.url ?? fail(`Give --url (or PLATFORM_URL), or start the local stack with npm start (${join(dataDir, STACK_FILE)})`);
  const key = given.key ?? process.env.PLATFORM_API_KEY ?? (existsSync(keyFile) ? readFileSync(keyFile, "utf8").trim() : fail(`Give --key (or PLATFORM_API_KEY): no ${keyFile}`));
  return { url, key };
}

/**
 * The organization a CLI acts in: `--org` when given, else the only one there is; with none or several it says
 * what to do and exits 2.
 */
export async function organizationOf(org: string | undefined): Promise<string> {
  if (org) return org;
  const { tenancyStore } = await import("../shared/store/tenancy.js");
  const all = await tenancyStore.listOrganizations();
  if (all.length === 1) return all[0]!.id;
  return fail(all.length === 0 ? "No organization yet: run npm run keys -- bootstrap" : `Several organizations: pass --org (${all.map((o) => `${o.id} ${o.name}`).join(", ")})`);
}

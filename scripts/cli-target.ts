import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import "../infra/local/env.js";
import { tableEnvVar, type TableName } from "../shared/store/tables.js";

export function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

/**
 * Where an admin CLI works: a deployment's tables when `TABLE_<NAME>` is set (with the usual AWS
 * credentials and region), otherwise the stack `npm start` is running, whose environment it adopts.
 */
export function useTablesOrLocalStack(table: TableName): "deployment" | "local" {
  if (process.env[tableEnvVar(table)]) return "deployment";
  const file = join(resolve(process.env.PLATFORM_DATA_DIR ?? ".data"), "local-stack.json");
  if (!existsSync(file)) fail(`Set ${tableEnvVar(table)} to the ${table} table of a deployment, or start the local stack with npm start.`);
  const local = JSON.parse(readFileSync(file, "utf8")) as { url: string; env: Record<string, string> };
  Object.assign(process.env, local.env);
  console.error(`Using the local stack of ${local.url} (${file})`);
  return "local";
}

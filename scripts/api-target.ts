import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { alive } from "../infra/local/lock.js";

/**
 * The API a CLI talks to over HTTP: `--url`/`--key`, else PLATFORM_URL and PLATFORM_API_KEY, else the stack
 * `npm start` runs (<PLATFORM_DATA_DIR or .data>/local-stack.json and its dev-api-key). `fail` reports what
 * is missing.
 */
export function apiTarget(given: { url?: string; key?: string }, fail: (message: string) => never): { url: string; key: string } {
  const dataDir = resolve(process.env.PLATFORM_DATA_DIR ?? ".data");
  const localStack = join(dataDir, "local-stack.json");
  const local = existsSync(localStack) ? (JSON.parse(readFileSync(localStack, "utf8")) as { url: string; pid?: number }) : undefined;
  if (!given.url && !process.env.PLATFORM_URL && local?.pid !== undefined && !alive(local.pid)) {
    fail(`The local stack is not running (the npm start of ${local.url}, process ${local.pid}, has exited). Start it with npm start, or give --url.`);
  }
  const keyFile = join(dataDir, "dev-api-key");
  const url = given.url ?? process.env.PLATFORM_URL ?? local?.url ?? fail(`Give --url (or PLATFORM_URL), or start the local stack with npm start (${localStack})`);
  const key = given.key ?? process.env.PLATFORM_API_KEY ?? (existsSync(keyFile) ? readFileSync(keyFile, "utf8").trim() : fail(`Give --key (or PLATFORM_API_KEY): no ${keyFile}`));
  return { url, key };
}

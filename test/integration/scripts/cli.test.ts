/**
 * The admin CLIs as a newcomer meets them (issue 26, "the first hour"): plain tables without an `(index)`
 * column and only the columns asked for, a quiet end when stdout's reader goes away, the revoke message
 * naming the configured authorizer cache, and a missing stack explained with the data directory looked in.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { localTableName } from "../../../infra/local/env.js";
import { ROOT_DIR } from "../../../infra/local/stack.js";
import { AUTHORIZER_CACHE_SECONDS } from "../../../shared/http/gateway.js";
import { usageStore } from "../../../shared/store/usage.js";
import { newTenant } from "../../support/tenant.js";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A CLI script run as `npm run` runs it (tsx), from `cwd`; `closeStdout` closes the reading end at once, as `| head` does early. */
function cli(script: string, args: string[], options: { env?: Record<string, string | undefined>; cwd?: string; closeStdout?: boolean } = {}): Promise<Run> {
  const env = { ...process.env, ...options.env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const child = spawn(join(ROOT_DIR, "node_modules/.bin/tsx"), [join(ROOT_DIR, "scripts", script), ...args], { cwd: options.cwd ?? ROOT_DIR, env, stdio: ["ignore", "pipe", "pipe"] });
  const out: string[] = [];
  const err: string[] = [];
  if (options.closeStdout) child.stdout.destroy();
  else child.stdout.on("data", (d) => out.push(String(d)));
  child.stderr.on("data", (d) => err.push(String(d)));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout: out.join(""), stderr: err.join("") })));
}

const onTables = { TABLE_TENANCY: localTableName("tenancy"), TABLE_USAGE: localTableName("usage") };
const scratch = mkdtempSync(join(tmpdir(), "platform-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Each test starts tsx once or twice (seconds each on a busy machine).
describe("the CLIs' output", { timeout: 120_000 }, () => {
  it("ends quietly (exit 0, no EPIPE trace) when the reader of stdout is gone, as in npm run routes | head", async () => {
    const run = await cli("routes.ts", [], { closeStdout: true });

    expect(run.stderr).not.toMatch(/EPIPE|Error/);
    expect(run.code).toBe(0);
  });

  it("prints keys as a plain table: a header of the fields, no (index) column", async () => {
    const tenant = await newTenant();

    const run = await cli("keys.ts", ["list", "--org", tenant.caller.organization], { env: onTables });

    expect(run.code, run.stderr).toBe(0);
    const [header, rule, row] = run.stdout.trim().split("\n");
    expect(header!.split(/\s+/)).toStrictEqual(["keyId", "name", "preview", "organization", "workspace", "principal", "admin", "created", "revoked", "expires", "models", "limits"]);
    expect(rule).toMatch(/^[- ]+$/);
    expect(row).toContain(tenant.caller.keyId);
    expect(run.stdout).not.toContain("(index)");
    expect(run.stdout).not.toMatch(/[│┌└─]{2}/);
  });

  it("changes a key's limits with keys limits: a value sets one, none clears one, and a bad value is refused as the route refuses it", async () => {
    const tenant = await newTenant({ rateLimitPerMinute: 30 });
    const env = { ...onTables, TABLE_AUDIT: localTableName("audit") };

    const run = await cli("keys.ts", ["limits", tenant.caller.keyId, "--tpm", "5000", "--rate-limit", "none"], { env });

    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ key_id: tenant.caller.keyId, tokens_per_minute: 5000, rate_limit_per_minute: null });
    const refused = await cli("keys.ts", ["limits", tenant.caller.keyId, "--tpd", "0"], { env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("--tpd");
  });

  it("prints usage grouped by model without the empty day and key columns", async () => {
    const tenant = await newTenant();
    const at = new Date().toISOString();
    await usageStore.addToTotals(tenant.caller.workspace, { month: at.slice(0, 7), day: at.slice(0, 10), model: "mistral-small-latest", keyId: tenant.caller.keyId!, at, promptTokens: 7, completionTokens: 5, costMicros: 12 });

    const run = await cli("usage.ts", ["report", "--workspace", tenant.caller.workspace, "--by", "model"], { env: onTables });

    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines[1]!.split(/\s+/)).toStrictEqual(["model", "requests", "prompt_tokens", "completion_tokens", "cost"]);
    expect(lines[3]!.split(/\s+/).slice(0, 4)).toStrictEqual(["mistral-small-latest", "1", "7", "5"]);
  });

  it("says after a revoke how long a deployed API may still accept the key: the configured authorizer cache, not a fixed 5 minutes", async () => {
    const tenant = await newTenant();

    const run = await cli("keys.ts", ["revoke", tenant.caller.keyId!], { env: onTables });

    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`for up to ${AUTHORIZER_CACHE_SECONDS} s more`);
    expect(run.stdout).not.toContain("5 minutes");
  });
});

describe("a CLI that finds no local stack", { timeout: 120_000 }, () => {
  it("names the data directory it looked in and that PLATFORM_DATA_DIR selects it (default .data)", async () => {
    const run = await cli("keys.ts", ["list"], { cwd: scratch, env: { TABLE_TENANCY: undefined, PLATFORM_DATA_DIR: undefined } });

    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`Looked in the data directory ${join(scratch, ".data")}`);
    expect(run.stderr).toContain("PLATFORM_DATA_DIR selects another");
  });

  it("names the directory PLATFORM_DATA_DIR gave", async () => {
    const dataDir = join(scratch, "elsewhere");

    const run = await cli("users.ts", ["list"], { env: { TABLE_TENANCY: undefined, TABLE_IDENTITY: undefined, PLATFORM_DATA_DIR: dataDir } });

    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`Looked in the data directory ${dataDir} (PLATFORM_DATA_DIR)`);
  });
});

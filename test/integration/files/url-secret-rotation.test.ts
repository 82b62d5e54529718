/**
 * `npm run keys -- rotate-url-secret` (docs/operations.md "Rotations"): the CLI against the test run's tables,
 * and the download route before and after. With overlap, URLs issued before keep working and new ones work;
 * without, old ones are refused at once; a second rotation during an overlap is refused unless forced.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT_DIR } from "../../../infra/local/stack.js";
import { localTableName } from "../../../infra/local/env.js";
import { useEmbeddedApi } from "../../support/api.js";
import { filesClient } from "../../support/files-client.js";

const { api, tenant } = useEmbeddedApi();

/** The keys CLI on the test run's tables (TABLE_TENANCY set: the "deployment" path, as an operator runs it). */
async function keys(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, TABLE_TENANCY: process.env.TABLE_TENANCY ?? localTableName("tenancy") };
  try {
    const { stdout, stderr } = await promisify(execFile)(join(ROOT_DIR, "node_modules/.bin/tsx"), ["scripts/keys.ts", ...args], { cwd: ROOT_DIR, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The in-process handlers cache the secrets for 5 minutes, as deployed functions do: each call moves 6 minutes further. */
let skipped = 0;
async function afterCache<T>(fn: () => Promise<T>): Promise<T> {
  const { vi } = await import("vitest");
  skipped += 6 * 60 * 1000;
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + skipped });
  try {
    return await fn();
  } finally {
    vi.useRealTimers();
  }
}

describe("npm run keys -- rotate-url-secret, then GET /v1/files/{file_id}/download", () => {
  it("keeps issued URLs working with overlap, refuses a second rotation during it unless forced, and drops them all without overlap", { timeout: 120_000 }, async () => {
    const files = filesClient(api, tenant);
    const file = await files.uploaded({ filename: "a.jsonl", content: '{"a":1}\n', purpose: "batch" });
    const before = (await files.signedUrl(file.id, 1)).body.url as string;
    expect((await fetch(before, { redirect: "manual" })).status).toBe(302);

    const rotated = await keys("rotate-url-secret");
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/URLs issued before keep working until they expire/);

    const after = await afterCache(async () => {
      expect((await fetch(before, { redirect: "manual" })).status).toBe(302);
      const fresh = (await files.signedUrl(file.id, 1)).body.url as string;
      expect(fresh).not.toBe(before);
      expect((await fetch(fresh, { redirect: "manual" })).status).toBe(302);
      return fresh;
    });

    const again = await keys("rotate-url-secret");
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/overlap runs until .*--force/);

    const dropped = await keys("rotate-url-secret", "--no-overlap");
    expect(dropped.code, dropped.stderr).toBe(0);
    await afterCache(async () => {
      for (const url of [before, after]) expect((await fetch(url, { redirect: "manual" })).status).toBe(403);
      const fresh = (await files.signedUrl(file.id, 1)).body.url as string;
      expect((await fetch(fresh, { redirect: "manual" })).status).toBe(302);
    });
  });
});

/**
 * `npm start` refusing what it cannot do, plainly: a port in use is refused before the data directory is made; a
 * second start on the same data directory is refused naming the first; a crashed start's lock is taken over, and
 * the CLIs then say the stack is not running instead of printing a connection stack trace. (Signals and
 * listeners: npm-start-signals.test.ts.)
 */
import { existsSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { STACK_FILE } from "../../infra/local/lock.js";
import { runCli, startNpmStart, useNpmStartDirs } from "../support/local-process.js";

const { dataDir: newDataDir } = useNpmStartDirs("platform-lifecycle-");

describe("a port in use", () => {
  it("refuses the start before it makes, locks or fills the data directory", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    const dataDir = join(newDataDir(), "never-made");

    try {
      const refused = await startNpmStart({ dataDir, key: "lifecycle-port-0123456789abcdef", port, timeoutMs: 60_000 }).then(
        () => undefined,
        (error: Error) => error.message,
      );

      expect(refused).toMatch(/exited \(1\) before serving/);
      expect(refused).toContain(`Port ${port} is in use: set PORT to a free port`);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      taken.close();
    }
  }, 90_000);
});

describe("the data directory belongs to one npm start", () => {
  it("refuses a second start on the same data directory, naming the running one, which keeps serving", async () => {
    const dataDir = newDataDir();
    const first = await startNpmStart({ dataDir, key: "lifecycle-lock-0123456789abcdef" });

    const second = await startNpmStart({ dataDir, key: "lifecycle-lock-0123456789abcdef", timeoutMs: 30_000 }).then(
      () => undefined,
      (error: Error) => error.message,
    );

    expect(second).toMatch(/exited \(1\) before serving/);
    expect(second).toContain("Another npm start (pid ");
    expect(second).toContain(`serving ${first.url}`);
    expect(second).toContain(dataDir);
    expect(second).not.toContain("DynamoDB Local exited");
    expect((await fetch(`${first.url}/v1/models`, { headers: { authorization: `Bearer ${first.key}` } })).status).toBe(200);
    await first.kill();
  }, 200_000);

  it("takes over the lock a crashed start left, and the CLIs say plainly when the stack is not running", async () => {
    const dataDir = newDataDir();
    const crashed = await startNpmStart({ dataDir, key: "lifecycle-crash-0123456789abcdef" });
    await crashed.kill(); // SIGKILL: local-stack.json and the lock stay behind, naming a dead process.
    expect(existsSync(join(dataDir, STACK_FILE))).toBe(true);

    const stale = await runCli("models", ["list", "--workspace", "ws"], dataDir);
    expect(stale.code).toBe(2);
    expect(stale.output).toContain("The local stack is not running");
    expect(stale.output).not.toMatch(/ECONNREFUSED|\n\s+at /);

    const again = await startNpmStart({ dataDir, key: "lifecycle-crash-0123456789abcdef" });
    expect((await fetch(`${again.url}/v1/models`, { headers: { authorization: `Bearer ${again.key}` } })).status).toBe(200);
    await again.kill();
    rmSync(join(dataDir, STACK_FILE), { force: true });

    const none = await runCli("keys", ["list"], dataDir);
    expect(none.code).toBe(2);
    expect(none.output).toContain("The local stack is not running");
  }, 320_000);
});

/**
 * The Chromium every browser test drives, found in this order: the binary CHROMIUM_PATH names, Debian's
 * `/usr/bin/chromium`, else the headless build inside the pinned `@sparticuz/chromium` devDependency, so that
 * `npm install` is all a fresh machine needs (docs/testing.md, "The reference in a browser").
 *
 * The npm build is brotli-compressed in the package and decompressed once into the temporary directory at its
 * first launch (`@sparticuz/chromium` keeps it at `<tmpdir>/chromium`). It links against NSS, NSPR and expat:
 * Debian has them wherever Java 17 is installed (openjdk-17-jre-headless depends on libnss3), and when `ldd`
 * reports one missing, the package's own copies (its `al2023.tar.br`) are unpacked and put on LD_LIBRARY_PATH.
 */
import { execFile, spawn } from "node:child_process";
import { createReadStream, existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createBrotliDecompress } from "node:zlib";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { withLock } from "./file-lock.js";

const run = promisify(execFile);
export const DEBIAN_CHROMIUM = "/usr/bin/chromium";
const LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"];

export interface ChromiumBinary {
  path: string;
  /** Where it came from, for failure messages. */
  source: "CHROMIUM_PATH" | "debian" | "@sparticuz/chromium";
  /** Extra environment for the browser process (the bundled libraries' directory, when the system lacks one). */
  env: Record<string, string>;
}

/** Which Chromium to use; the npm build is unpacked on the first call of the machine (about 10 s). */
export async function findChromium(env: NodeJS.ProcessEnv = process.env): Promise<ChromiumBinary> {
  if (env.CHROMIUM_PATH) {
    if (!existsSync(env.CHROMIUM_PATH)) throw new Error(`CHROMIUM_PATH names ${env.CHROMIUM_PATH}, which does not exist`);
    return { path: env.CHROMIUM_PATH, source: "CHROMIUM_PATH", env: {} };
  }
  if (existsSync(DEBIAN_CHROMIUM)) return { path: DEBIAN_CHROMIUM, source: "debian", env: {} };
  const path = await withLock(join(tmpdir(), "platform-chromium.lock"), async () => (await import("@sparticuz/chromium")).default.executablePath());
  return { path, source: "@sparticuz/chromium", env: await missingLibraries(path) };
}

/** A headless Chromium from findChromium, driven by playwright-core. */
export async function launchChromium(): Promise<Browser> {
  const binary = await findChromium();
  return chromium.launch({
    executablePath: binary.path,
    headless: true,
    args: LAUNCH_ARGS,
    env: { ...process.env, ...binary.env } as Record<string, string>,
  });
}

/** LD_LIBRARY_PATH pointing at the package's NSS/NSPR/expat when the system lacks one of them, else nothing. */
async function missingLibraries(binary: string): Promise<Record<string, string>> {
  const { stdout } = await run("ldd", [binary]);
  if (!/not found/.test(stdout)) return {};
  const libs = join(tmpdir(), "al2023", "lib");
  // The package's entry is build/esm/index.js; its archives are in bin/.
  const archive = join(dirname(fileURLToPath(import.meta.resolve("@sparticuz/chromium"))), "..", "..", "bin", "al2023.tar.br");
  await withLock(join(tmpdir(), "platform-chromium.lock"), async () => {
    if (!existsSync(libs)) await untarBrotli(archive, join(tmpdir(), "al2023"));
  });
  const still = (await run("ldd", [binary], { env: { ...process.env, LD_LIBRARY_PATH: libs } })).stdout;
  const missing = still.split("\n").filter((line) => line.includes("not found"));
  if (missing.length > 0) throw new Error(`Chromium from @sparticuz/chromium lacks shared libraries: ${missing.map((l) => l.trim()).join(", ")}`);
  return { LD_LIBRARY_PATH: [libs, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":") };
}

function untarBrotli(archive: string, into: string): Promise<void> {
  mkdirSync(into, { recursive: true });
  return new Promise((resolve, reject) => {
    const tar = spawn("tar", ["-x", "-C", into], { stdio: ["pipe", "ignore", "inherit"] });
    createReadStream(archive).pipe(createBrotliDecompress()).on("error", reject).pipe(tar.stdin);
    tar.on("error", reject);
    tar.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`tar exited ${code} unpacking ${archive}`))));
  });
}

/** One headless Chromium for a test file: launched before its first test, closed after its last. */
export function useChromium(): { readonly browser: Browser } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(() => browser?.close());
  return {
    get browser() {
      if (!browser) throw new Error("The browser is not there yet: use it inside a test or a hook");
      return browser;
    },
  };
}

/**
 * How the JVM starts DynamoDB Local bound to loopback (DynamoDBLoopback.java): the launcher compiled once and kept
 * in node_modules/.cache, or run as a single-file source program where no javac is at hand, or, on a Java without
 * a compiler at all, DynamoDB Local's own main on every interface (with a warning).
 *
 * Compiling the launcher on each start cost the JVM ~3 CPU-seconds of a ~9-second start (the compiler's classes
 * loaded and run, and a `java --list-modules` before it): `npm start`, and every test that starts it, paid that
 * on each boot (docs/decisions/0058-test-cpu-shared-stack-workers-and-a-cheaper-jvm.md).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

/** Its own main has no bind option and listens on every interface: this program starts it on one address. */
export const DYNAMODB_LAUNCHER = join(import.meta.dirname, "DynamoDBLoopback.java");
const LAUNCHER_CLASS = "DynamoDBLoopback";
/** Compiled launchers by the hash of their source: a changed launcher compiles again, an old one is never run. */
export const LAUNCHER_CACHE = join(import.meta.dirname, "../../node_modules/.cache/dynamodb-loopback");

/**
 * The JVM's options for a short-lived local database, CPU first: the client compiler only (C2's compilations cost
 * more CPU than the throughput they buy back in a test run or a dev session: half the CPU to start, a fifth less
 * per request, measured) and the serial collector (no GC threads competing for the cores).
 */
export const DYNAMODB_JVM_OPTIONS = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"];

/** The java arguments after the JVM options that start DynamoDB Local on `host`, run in the emulator's directory. */
export async function loopbackLaunch(host: string, emulatorDir: string): Promise<string[]> {
  const bound = [`-Ddynamodb.host=${host}`];
  const compiled = await compiledLauncher(join(emulatorDir, "DynamoDBLocal.jar"));
  if (compiled) return [...bound, "-cp", `DynamoDBLocal.jar:${compiled}`, LAUNCHER_CLASS];
  if (await runsJavaSource()) return [...bound, "-cp", "DynamoDBLocal.jar", DYNAMODB_LAUNCHER];
  warnEveryInterface();
  return ["-jar", "DynamoDBLocal.jar"];
}

let compiling: Promise<string | undefined> | undefined;

/** The directory holding the compiled launcher, compiling it first if needed; undefined without javac or a writable cache. */
function compiledLauncher(jar: string): Promise<string | undefined> {
  compiling ??= compileOnce(jar).catch(() => undefined);
  return compiling;
}

async function compileOnce(jar: string): Promise<string | undefined> {
  const source = readFileSync(DYNAMODB_LAUNCHER);
  const dir = join(LAUNCHER_CACHE, createHash("sha256").update(source).digest("hex").slice(0, 16));
  if (existsSync(join(dir, `${LAUNCHER_CLASS}.class`))) return dir;
  mkdirSync(LAUNCHER_CACHE, { recursive: true });
  // Compiled aside, then renamed into place: starts racing to compile (test workers) each get a whole class or none.
  const scratch = mkdtempSync(join(LAUNCHER_CACHE, "compiling-"));
  const ok = await new Promise<boolean>((resolve) =>
    execFile("javac", ["--release", "17", "-cp", jar, "-d", scratch, DYNAMODB_LAUNCHER], (error) => resolve(!error)),
  );
  if (!ok) {
    rmSync(scratch, { recursive: true, force: true });
    return undefined;
  }
  try {
    renameSync(scratch, dir);
  } catch {
    // Another start put its copy there first: the same source, so the same class.
    rmSync(scratch, { recursive: true, force: true });
  }
  return existsSync(join(dir, `${LAUNCHER_CLASS}.class`)) ? dir : undefined;
}

let sourceLaunch: Promise<boolean> | undefined;

/** Whether this Java can run a .java file as a program: it needs the jdk.compiler module, which a stripped JRE may lack. */
function runsJavaSource(): Promise<boolean> {
  sourceLaunch ??= new Promise((resolve) =>
    execFile("java", ["--list-modules"], (error, stdout) =>
      // No java at all: the start itself says so (JAVA_MISSING), not a warning about interfaces.
      resolve(error ? (error as NodeJS.ErrnoException).code === "ENOENT" : /^jdk\.compiler@/m.test(stdout)),
    ),
  );
  return sourceLaunch;
}

let warned = false;
function warnEveryInterface(): void {
  if (warned) return;
  warned = true;
  console.warn(
    "WARNING: this Java has no jdk.compiler module to run infra/local/DynamoDBLoopback.java, so DynamoDB Local listens on every interface:\n" +
      "anyone who reaches this machine on its port reads every tenant's data. Install a full JDK (Debian/Ubuntu: openjdk-17-jdk-headless) to bind it to 127.0.0.1.",
  );
}

/**
 * `npm run bench:tests [-- <command…>]`: runs the test suite (default `npm test`) and prints where its
 * wall time and CPU-seconds go. Asserts nothing; the figures are in docs/testing.md and docs/benchmarks.md §21.
 *
 * - CPU-seconds by process kind: every 250 ms it reads /proc/<pid>/stat of every process below the command
 *   (a pid, once seen below it, stays counted after it is reparented), keeps each one's last utime + stime,
 *   and sums them by kind (tsc, dependency-cruiser, Vitest's main process and its workers, DynamoDB Local's
 *   java, the `npm start` children the rings start, anything else). Processes shorter than one sample are missed.
 * - Wall time, the load average before and after, and the cores.
 * - With Vitest's JSON report (the command gets `--reporter=json --outputFile.json=…` when it is `npm test`
 *   or `vitest`): the test and file counts and the slowest files by their own duration.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";

const SAMPLE_MS = 250;
const TICKS_PER_SECOND = 100;

interface Proc {
  ppid: number;
  ticks: number;
  kind: string;
}

/** Which part of the suite a process is, from its command line. */
function kindOf(cmdline: string): string {
  if (/java\b/.test(cmdline) && /DynamoDBLocal/.test(cmdline)) return "DynamoDB Local (java)";
  if (/typescript\/bin\/tsc|\btsc\b/.test(cmdline)) return "tsc";
  if (/depcruise|dependency-cruiser/.test(cmdline)) return "dependency-cruiser";
  if (/infra\/local\/start\.ts|npm start|npm-cli\.js start/.test(cmdline)) return "npm start children (node, tsx)";
  if (/vitest\/dist\/workers|forks\.js|threads\.js|vmForks|vitest\/dist\/chunks/.test(cmdline)) return "Vitest workers";
  if (/vitest(\.mjs)?\b/.test(cmdline)) return "Vitest main (global setup, s3rver, stand-ins)";
  if (/chrom/i.test(cmdline)) return "Chromium";
  if (/\bnpm\b|npm-cli/.test(cmdline)) return "npm";
  return "other";
}

function readProc(pid: number): { ppid: number; ticks: number; cmdline: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces: the fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]), cmdline };
  } catch {
    return undefined;
  }
}

const args = process.argv.slice(2);
const [command, ...commandArgs] = args.length > 0 ? args : ["npm", "test"];
const reportDir = mkdtempSync(join(tmpdir(), "bench-tests-"));
const report = join(reportDir, "vitest.json");
const wantsReport = command === "npm" ? commandArgs[0] === "test" || commandArgs.includes("test") : /vitest/.test([command, ...commandArgs].join(" "));
const finalArgs = wantsReport
  ? [...commandArgs, ...(command === "npm" ? ["--"] : []), "--reporter=default", "--reporter=json", `--outputFile.json=${report}`]
  : commandArgs;

const loadBefore = loadavg();
const started = Date.now();
const child = spawn(command!, finalArgs, { stdio: "inherit" });
const root = child.pid!;
const procs = new Map<number, Proc>();

const sample = () => {
  const below = new Set<number>([root, ...procs.keys()]);
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const info = readProc(pid);
    if (!info) continue;
    const known = procs.get(pid);
    if (known) known.ticks = Math.max(known.ticks, info.ticks);
    else if (pid === root || below.has(info.ppid)) {
      procs.set(pid, { ppid: info.ppid, ticks: info.ticks, kind: pid === root ? "npm" : kindOf(info.cmdline) });
      below.add(pid);
    }
  }
};
const timer = setInterval(sample, SAMPLE_MS);

child.on("exit", (code) => {
  clearInterval(timer);
  const wall = (Date.now() - started) / 1000;
  const loadAfter = loadavg();
  const byKind = new Map<string, number>();
  for (const proc of procs.values()) byKind.set(proc.kind, (byKind.get(proc.kind) ?? 0) + proc.ticks / TICKS_PER_SECOND);
  const total = [...byKind.values()].reduce((a, b) => a + b, 0);
  const line = (s = "") => console.log(s);
  line("\n== The test suite's wall time and CPU ===========================================");
  line(`command: ${[command, ...finalArgs].join(" ")}  (exit ${code})`);
  line(`cores: ${cpus().length}; load average before ${loadBefore.map((l) => l.toFixed(2)).join(" ")}, after ${loadAfter.map((l) => l.toFixed(2)).join(" ")}`);
  line(`wall: ${wall.toFixed(0)} s; CPU: ${total.toFixed(0)} s (${(total / wall).toFixed(2)} cores busy on average)`);
  for (const [kind, seconds] of [...byKind].sort((a, b) => b[1] - a[1])) line(`  ${kind.padEnd(48)} ${seconds.toFixed(0).padStart(6)} s`);
  if (wantsReport) {
    try {
      const json = JSON.parse(readFileSync(report, "utf8")) as {
        numTotalTests: number;
        numPassedTests: number;
        numFailedTests: number;
        testResults: Array<{ name: string; startTime: number; endTime: number; status: string }>;
      };
      const files = json.testResults.map((r) => ({ name: r.name.replace(`${process.cwd()}/`, ""), seconds: (r.endTime - r.startTime) / 1000, status: r.status }));
      const sum = files.reduce((a, f) => a + f.seconds, 0);
      line(`tests: ${json.numTotalTests} (${json.numPassedTests} passed, ${json.numFailedTests} failed) in ${files.length} files; sum of file durations ${sum.toFixed(0)} s`);
      line("slowest files:");
      for (const f of files.sort((a, b) => b.seconds - a.seconds).slice(0, 25)) line(`  ${f.seconds.toFixed(1).padStart(6)} s  ${f.name}${f.status === "passed" ? "" : `  (${f.status})`}`);
      line(`JSON report: ${report}`);
    } catch (error) {
      line(`no JSON report: ${(error as Error).message}`);
    }
  }
  process.exit(code ?? 1);
});

/**
 * `npm run bench:uploads`: prints figures, asserts nothing.
 *
 * Uploads of 5, 50 and 500 MB through `POST /v1/files` of a real `npm start` (its own process, which
 * serves the route through the streaming upload service, functions/upload-service/server.ts), each as the
 * SDK sends it (a multipart form, the file part first, `purpose` after it), streamed from a generator here
 * so this process never holds a file. For each: the wall time to the File answer, and the server process's
 * peak resident memory during the upload (sampled from /proc every 20 ms) against its resident memory before
 * the first upload. Memory must not grow with the file: the service holds one 8 MiB part at a time.
 *
 * The local S3 (s3rver) and the API run in that same process, so its figures include s3rver's handling of
 * the parts; DynamoDB Local is a separate java process and not counted. Linux only (/proc).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { freePort } from "../infra/local/net.js";
import { ROOT_DIR } from "../infra/local/stack.js";

const SIZES_MB = (process.env.BENCH_UPLOAD_SIZES_MB ?? "5,50,500").split(",").map(Number);
const MiB = 1024 * 1024;
const log = (line = "") => console.log(line);

log(`Upload benchmark ${new Date().toISOString()}`);
log(`Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`);
log(`Load average at start: ${loadavg().map((x) => x.toFixed(2)).join(", ")} (1, 5, 15 min)`);

const dataDir = mkdtempSync(join(tmpdir(), "platform-bench-uploads-"));
const port = await freePort();
const key = `bench-uploads-${Date.now()}`;
// What `npm start` runs (package.json), as one node process whose pid is the server's.
const server = spawn(process.execPath, ["--import", "tsx", "infra/local/start.ts"], {
  cwd: ROOT_DIR,
  env: { ...process.env, PORT: String(port), PLATFORM_DATA_DIR: dataDir, PLATFORM_API_KEY: key, ACCESS_LOG: "off", POWERTOOLS_LOG_LEVEL: "ERROR" },
  stdio: ["ignore", "pipe", "inherit"],
});
const url = await new Promise<string>((resolve, reject) => {
  let out = "";
  server.stdout!.on("data", (chunk: Buffer) => {
    out += chunk;
    const found = /Platform API listening on (\S+)/.exec(out);
    if (found && /Workspace:/.test(out)) resolve(found[1]!);
  });
  server.once("exit", (code) => reject(new Error(`npm start exited (${code}) before serving:\n${out}`)));
});

const rssBytes = (): number => {
  const status = readFileSync(`/proc/${server.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
};

const BOUNDARY = "----bench-uploads";

/** A multipart form of `bytes` of JSON lines, generated as it is sent (1 MiB chunks). */
function form(bytes: number, filename: string): ReadableStream<Uint8Array> {
  const line = Buffer.from(`${JSON.stringify({ custom_id: "x", body: { messages: [{ role: "user", content: "y".repeat(100) }] } })}\n`);
  const chunk = Buffer.alloc(MiB);
  for (let at = 0; at < MiB; at += line.length) line.copy(chunk, at, 0, Math.min(line.length, MiB - at));
  // Whole lines only, so the file stays valid JSON lines: the chunk ends where its last whole line ends.
  const whole = chunk.subarray(0, Math.floor(MiB / line.length) * line.length);
  const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--${BOUNDARY}--\r\n`);
  let sent = 0;
  let started = false;
  return new ReadableStream({
    pull(controller) {
      if (!started) {
        started = true;
        return controller.enqueue(head);
      }
      if (sent >= bytes) {
        controller.enqueue(tail);
        return controller.close();
      }
      const next = whole.subarray(0, Math.min(whole.length, bytes - sent));
      sent += next.length;
      controller.enqueue(new Uint8Array(next));
    },
  });
}

async function upload(bytes: number): Promise<{ seconds: number; peak: number; file: { id: string; bytes: number; num_lines: number } }> {
  let peak = rssBytes();
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes())), 20);
  const started = performance.now();
  try {
    const response = await fetch(`${url}/v1/files`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
      body: form(bytes, `bench-${bytes}.jsonl`),
      duplex: "half",
    } as RequestInit);
    const file = (await response.json()) as { id: string; bytes: number; num_lines: number };
    if (response.status !== 200) throw new Error(`upload of ${bytes} bytes answered ${response.status}: ${JSON.stringify(file)}`);
    return { seconds: (performance.now() - started) / 1000, peak: Math.max(peak, rssBytes()), file };
  } finally {
    clearInterval(sampler);
  }
}

const remove = (id: string) => fetch(`${url}/v1/files/${id}`, { method: "DELETE", headers: { authorization: `Bearer ${key}` } });

try {
  // One small upload first, so the service's modules are loaded before the baseline is read.
  await remove((await upload(64 * 1024)).file.id);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const baseline = rssBytes();
  log(`Server process RSS before the uploads: ${(baseline / MiB).toFixed(0)} MiB`);
  log();
  log("| file | time | throughput | server peak RSS | peak − baseline | lines counted |");
  log("| ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const mb of SIZES_MB) {
    const bytes = mb * 1_000_000;
    const { seconds, peak, file } = await upload(bytes);
    if (file.bytes !== bytes) throw new Error(`stored ${file.bytes} bytes of ${bytes}`);
    log(
      `| ${mb} MB | ${seconds.toFixed(2)} s | ${(bytes / MiB / seconds).toFixed(0)} MiB/s | ${(peak / MiB).toFixed(0)} MiB | ${((peak - baseline) / MiB).toFixed(0)} MiB | ${file.num_lines} |`,
    );
    await remove(file.id);
  }
} finally {
  server.kill("SIGTERM");
  await new Promise((resolve) => server.once("exit", resolve));
  rmSync(dataDir, { recursive: true, force: true });
}

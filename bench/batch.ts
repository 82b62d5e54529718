/**
 * 6. Batch throughput: a 10,000-line embeddings job on the offline provider, run by the local Step
 * Functions stand-in through the real engine tasks, at several request concurrencies per chunk.
 */
import type { InferenceBenchContext } from "./inference.js";
import { table } from "./stats.js";

const LINES = 10_000;
const CONCURRENCIES = [1, 8, 32];
const JOB_TIMEOUT_MS = 10 * 60_000;

const sentence = (i: number) => `Request ${i}: the quarterly report shows revenue from market ${i % 97} grew faster than expected.`;

export async function batchThroughput(ctx: InferenceBenchContext): Promise<void> {
  ctx.section(`6. Batch job of ${LINES.toLocaleString("en")} embeddings requests (offline provider, local Step Functions stand-in)`);
  const auth = { authorization: `Bearer ${ctx.apiKey}` };
  const jsonl = Array.from({ length: LINES }, (_, i) => JSON.stringify({ custom_id: `r${i}`, body: { input: sentence(i) } })).join("\n") + "\n";
  const form = new FormData();
  form.append("file", new Blob([jsonl]), "embeddings.jsonl");
  form.append("purpose", "batch");
  const upload = await fetch(`${ctx.url}/v1/files`, { method: "POST", headers: auth, body: form });
  if (upload.status !== 200) throw new Error(`upload answered ${upload.status}: ${await upload.text()}`);
  const file = (await upload.json()) as { id: string; bytes: number };
  ctx.log(`input file: ${LINES} lines, ${(file.bytes / 1024 / 1024).toFixed(2)} MB; the Map runs up to 8 chunks of 100 lines at once`);

  const rows: string[][] = [];
  const previous = process.env.BATCH_REQUEST_CONCURRENCY;
  try {
    for (const concurrency of CONCURRENCIES) {
      // The engine tasks run in this process and read the setting per chunk.
      process.env.BATCH_REQUEST_CONCURRENCY = String(concurrency);
      const started = Date.now();
      const created = await fetch(`${ctx.url}/v1/batch/jobs`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ input_files: [file.id], endpoint: "/v1/embeddings", model: "mistral-embed" }),
      });
      if (created.status !== 200) throw new Error(`create answered ${created.status}: ${await created.text()}`);
      const job = (await created.json()) as { id: string };
      const acceptedMs = Date.now() - started;
      let final: { status: string; succeeded_requests: number; started_at: number | null; completed_at: number | null } | undefined;
      while (Date.now() - started < JOB_TIMEOUT_MS) {
        const got = (await (await fetch(`${ctx.url}/v1/batch/jobs/${job.id}`, { headers: auth })).json()) as typeof final & { status: string };
        if (["SUCCESS", "FAILED", "TIMEOUT_EXCEEDED", "CANCELLED"].includes(got!.status)) {
          final = got;
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const seconds = (Date.now() - started) / 1000;
      if (!final) throw new Error(`job ${job.id} did not finish within ${JOB_TIMEOUT_MS / 1000} s`);
      rows.push([
        String(concurrency),
        `up to ${concurrency * 8}`,
        final.status,
        String(final.succeeded_requests),
        `${(acceptedMs / 1000).toFixed(2)} s`,
        `${seconds.toFixed(1)} s`,
        `${Math.round(final.succeeded_requests / seconds)}`,
      ]);
    }
  } finally {
    if (previous === undefined) delete process.env.BATCH_REQUEST_CONCURRENCY;
    else process.env.BATCH_REQUEST_CONCURRENCY = previous;
  }
  ctx.log(table([["per chunk", "in flight", "status", "succeeded", "create (validates the file)", "create to final", "lines/s"], ...rows]));
}

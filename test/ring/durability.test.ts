/**
 * Durability of `npm start`: the process is killed (SIGKILL to tsx, node and DynamoDB Local's java) at
 * a random point while batch jobs run and writers upload files and create agents, then started again on
 * the same data directory. Nothing acknowledged may be lost, nothing may run twice, nothing may stay
 * unfinished. One run per `npm test`; RING_DURABILITY_RUNS=n runs more, RING_DURABILITY_SEED=s replays one.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RESTART_MESSAGE } from "../../infra/local/recovery.js";
import { agentsClient, anAgentRequest } from "../support/agents-client.js";
import { batchClient } from "../support/batch-client.js";
import { filesClient, follow, type ApiReply } from "../support/files-client.js";
import { killAllStarted, seededRandom, startNpmStart, type StartedProcess } from "../support/local-process.js";

const RUNS = Number(process.env.RING_DURABILITY_RUNS ?? 1);
const FIRST_SEED = Number(process.env.RING_DURABILITY_SEED ?? Date.now() % 1_000_000);
const LINES = 1500;
const UNFINISHED = ["QUEUED", "RUNNING", "CANCELLATION_REQUESTED"];

const dirs: string[] = [];
afterAll(async () => {
  await killAllStarted();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const embeddingLines = (n: number) =>
  Array.from({ length: n }, (_, i) => `${JSON.stringify({ custom_id: `e${i}`, body: { input: [`line ${i} of the durability run`] } })}\n`).join("");

interface Acknowledged {
  files: { id: string; content: string }[];
  agents: string[];
  jobs: string[];
}

/** Writes until told to stop, keeping what the server acknowledged (a 200); a crash ends its requests in errors. */
async function writeUntil(server: StartedProcess, stop: { now: boolean }, acknowledged: Acknowledged): Promise<void> {
  const files = filesClient(server, server);
  const agents = agentsClient(server, server);
  let n = 0;
  const ok = (reply: ApiReply) => reply.status === 200;
  while (!stop.now) {
    n += 1;
    const content = `{"writer":${n},"noise":"${randomBytes(8).toString("hex")}"}\n`;
    const [upload, agent] = await Promise.allSettled([files.upload({ filename: `w-${n}.jsonl`, content }), agents.create(anAgentRequest({ name: `w-${n}` }))]);
    if (upload.status === "fulfilled" && ok(upload.value)) acknowledged.files.push({ id: upload.value.body.id, content });
    if (agent.status === "fulfilled" && ok(agent.value)) acknowledged.agents.push(agent.value.body.id);
    if (upload.status === "rejected" || agent.status === "rejected") return;
  }
}

async function crashAndRestart(seed: number): Promise<void> {
  const random = seededRandom(seed);
  const dataDir = mkdtempSync(join(tmpdir(), "platform-durability-"));
  dirs.push(dataDir);
  const key = `durability-${randomBytes(16).toString("hex")}`;
  const acknowledged: Acknowledged = { files: [], agents: [], jobs: [] };

  const first = await startNpmStart({ dataDir, key });
  const files = filesClient(first, first);
  const batch = batchClient(first, first);
  const input = await files.uploaded({ filename: "requests.jsonl", purpose: "batch", content: embeddingLines(LINES) });
  acknowledged.files.push({ id: input.id, content: embeddingLines(LINES) });
  for (const requests of [undefined, 40]) {
    const body = requests
      ? { endpoint: "/v1/embeddings", model: "mistral-embed", requests: Array.from({ length: requests }, (_, i) => ({ custom_id: `i${i}`, body: { input: [`inline ${i}`] } })) }
      : { endpoint: "/v1/embeddings", model: "mistral-embed", input_files: [input.id] };
    const created = await batch.create(body);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    acknowledged.jobs.push(created.body.id);
  }
  // The crash comes anywhere from at once to well into the big job's run (it takes a few seconds).
  const crashAfterMs = Math.floor(random() * 3000);
  const stop = { now: false };
  const writer = writeUntil(first, stop, acknowledged);
  await sleep(crashAfterMs);
  const before = await Promise.all(acknowledged.jobs.map(async (id) => (await batch.get(id)).body));
  await first.kill();
  stop.now = true;
  await writer;

  const second = await startNpmStart({ dataDir, key });
  const context = `seed ${seed}, crash after ${crashAfterMs} ms, jobs before the crash ${JSON.stringify(before.map((j) => [j.status, j.completed_requests]))}`;
  const again = { files: filesClient(second, second), agents: agentsClient(second, second), batch: batchClient(second, second) };

  // Every acknowledged file is there with its bytes, every acknowledged agent and job too.
  for (const file of acknowledged.files) {
    const record = await again.files.retrieve(file.id);
    expect(record.status, `${context}: file ${file.id}`).toBe(200);
  }
  for (const file of [acknowledged.files[0]!, ...acknowledged.files.slice(-3)]) {
    expect((await follow(await again.files.content(file.id))).bytes.toString("utf8"), context).toBe(file.content);
  }
  for (const id of acknowledged.agents) expect((await again.agents.get(id)).status, `${context}: agent ${id}`).toBe(200);

  // No job stays unfinished: recovery failed the interrupted ones with the documented message.
  const jobs = await Promise.all(acknowledged.jobs.map(async (id) => (await again.batch.get(id)).body));
  for (const job of jobs) {
    expect(UNFINISHED, `${context}: job ${job.id}`).not.toContain(job.status);
    if (job.status === "FAILED") expect(job.errors, context).toEqual([{ message: RESTART_MESSAGE, count: 1 }]);
    else expect(job.status, context).toBe("SUCCESS");
    expect(job.succeeded_requests + job.failed_requests, context).toBe(job.completed_requests);
    expect(job.completed_requests, context).toBeLessThanOrEqual(job.total_requests);
    if (job.status === "SUCCESS") expect((await again.files.retrieve(job.output_file)).body.num_lines, context).toBe(job.completed_requests);
  }

  // Nothing runs again after the restart: the jobs do not move.
  await sleep(1500);
  expect(await Promise.all(acknowledged.jobs.map(async (id) => (await again.batch.get(id)).body)), context).toEqual(jobs);

  // No duplicate result file, and the workspace's total still counts exactly the files there are.
  const listed = (await again.files.list({ page_size: 1000 })).body;
  expect(listed.total, context).toBe(listed.data.length);
  const names = listed.data.map((f: { filename: string }) => f.filename);
  expect(names.filter((name: string) => name.startsWith("batch_")).length, context).toBe(new Set(names.filter((name: string) => name.startsWith("batch_"))).size);
  const ids = new Set(listed.data.map((f: { id: string }) => f.id));
  for (const file of acknowledged.files) expect(ids.has(file.id), context).toBe(true);

  await second.kill();
  // One line a run, so a long RING_DURABILITY_RUNS session shows where each crash fell.
  console.log(`durability ${context}; after: ${JSON.stringify(jobs.map((j) => [j.status, j.completed_requests]))}; acknowledged ${acknowledged.files.length} files, ${acknowledged.agents.length} agents`);
}

describe("npm start killed while jobs run", () => {
  for (let run = 0; run < RUNS; run += 1) {
    const seed = FIRST_SEED + run;
    it(`loses nothing acknowledged, runs nothing twice and leaves nothing unfinished (seed ${seed})`, () => crashAndRestart(seed), 320_000);
  }
});

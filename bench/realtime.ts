/**
 * `npm run bench:realtime`: prints figures, asserts nothing (docs/benchmarks.md, "Realtime transcription").
 *
 *  1. Opening a session on the local stack: the upgrade to `session.created` (credential, admission, provider), with
 *     an API key and with a client secret, interleaved.
 *  2. One session streaming audio as fast as the socket takes it, in the 4 KiB frames of the SDK's example: frames
 *     per second, audio seconds per wall second, and the wait from `input_audio.end` to `transcription.done`.
 *  3. Many sessions at once, each streaming 10 s: the wall time and this process's memory per open session.
 *  4. The sample conversions the Transcribe and vLLM paths run on every frame (to 16-bit, 8 → 16 kHz), in MB/s.
 *
 * The server, its backends' clients and the benchmark's clients share this one process (plus DynamoDB Local and
 * s3rver), with the offline transcriber: figures compare code paths on one machine; they are not cloud latencies.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { startLocalStack } from "../infra/local/stack.js";
import { bytesPerSample, Resampler, toS16le } from "../shared/inference/audio/live-pcm.js";
import { LIVE_ENCODINGS } from "../shared/inference/types.js";
import { ms, summarize, table } from "./stats.js";

const MODEL = "voxtral-mini-transcribe-realtime-2602";
const FRAME_BYTES = 4096;
const log = (line = "") => console.log(line);
const cpuList = cpus();
log(`Realtime transcription benchmark ${new Date().toISOString()}`);
log(`Machine: ${cpuList.length} cores (${cpuList[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`);
log(`Load average at start: ${loadavg().map((x) => x.toFixed(2)).join(", ")} (1, 5, 15 min)`);

const p = (samples: number[]) => {
  const s = summarize(samples);
  return [ms(s.p50, 1), ms(s.p90, 1), ms(s.max, 1)];
};

interface Open {
  ws: WebSocket;
  /** Every event the server sent so far, in order. */
  events: Record<string, unknown>[];
  next(type: string): Promise<Record<string, unknown>>;
}

/** Opens a socket and resolves at `session.created`. */
function open(url: string, credential: { bearer: string } | { secret: string }): Promise<Open> {
  const target = `${url.replace(/^http/, "ws")}/v1/audio/transcriptions/realtime?model=${MODEL}`;
  const ws = "bearer" in credential ? new WebSocket(target, { headers: { authorization: `Bearer ${credential.bearer}` } }) : new WebSocket(target, ["realtime", credential.secret]);
  const events: Record<string, unknown>[] = [];
  const waiting: { type: string; resolve: (event: Record<string, unknown>) => void }[] = [];
  ws.on("message", (data) => {
    const event = JSON.parse(String(data)) as Record<string, unknown>;
    events.push(event);
    for (const wait of waiting.filter((w) => w.type === event.type)) {
      waiting.splice(waiting.indexOf(wait), 1);
      wait.resolve(event);
    }
  });
  const next = (type: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const seen = events.find((e) => e.type === type);
      if (seen) return resolve(seen);
      waiting.push({ type, resolve });
      ws.once("close", () => reject(new Error(`closed before ${type}: ${JSON.stringify(events.at(-1))}`)));
    });
  return next("session.created").then(() => ({ ws, events, next }));
}

const send = (ws: WebSocket, message: Record<string, unknown>) => new Promise<void>((resolve, reject) => ws.send(JSON.stringify(message), (error) => (error ? reject(error) : resolve())));

/**
 * Streams `seconds` of 16 kHz 16-bit audio in 4 KiB frames, ends it, and answers when `transcription.done` came; then
 * waits for the server's close, which follows its usage write.
 */
async function stream(session: Open, seconds: number): Promise<{ sentMs: number; doneMs: number; frames: number }> {
  const bytes = Buffer.alloc(seconds * 16_000 * 2, 1);
  const started = performance.now();
  let frames = 0;
  for (let at = 0; at < bytes.length; at += FRAME_BYTES) {
    await send(session.ws, { type: "input_audio.append", audio: bytes.subarray(at, at + FRAME_BYTES).toString("base64") });
    frames += 1;
  }
  const sent = performance.now();
  await send(session.ws, { type: "input_audio.end" });
  await session.next("transcription.done");
  const doneMs = performance.now() - sent;
  if (session.ws.readyState !== WebSocket.CLOSED) await new Promise((resolve) => session.ws.once("close", resolve));
  return { sentMs: sent - started, doneMs, frames };
}

const dataDir = mkdtempSync(join(tmpdir(), "platform-bench-realtime-"));
const stack = await startLocalStack({ port: 0, dataDir, persist: false, authorizerCacheSeconds: 60 });
try {
  const mint = async () => {
    const response = await fetch(`${stack.url}/v1/client/sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ purpose: "realtime", model: MODEL, ttl_seconds: 600 }),
    });
    return ((await response.json()) as { client_secret: { value: string } }).client_secret.value;
  };

  // ------------------------------------------------------------------------------- 1. opening a session
  log("\n## 1. Upgrade to session.created (40 sessions each, interleaved; closed at once)");
  const secret = await mint();
  for (let i = 0; i < 5; i += 1) (await open(stack.url, { bearer: stack.apiKey })).ws.close();
  const withKey: number[] = [];
  const withSecret: number[] = [];
  const minting: number[] = [];
  for (let i = 0; i < 40; i += 1) {
    let t = performance.now();
    (await open(stack.url, { bearer: stack.apiKey })).ws.close();
    withKey.push(performance.now() - t);
    t = performance.now();
    (await open(stack.url, { secret })).ws.close();
    withSecret.push(performance.now() - t);
    t = performance.now();
    await mint();
    minting.push(performance.now() - t);
  }
  log(table([["credential", "p50", "p90", "max"], ["API key (Authorization)", ...p(withKey)], ["client secret (subprotocol)", ...p(withSecret)], ["POST /v1/client/sessions", ...p(minting)]]));

  // ------------------------------------------------------------------------------- 2. one fast stream
  log("\n## 2. One session streaming 60 s of 16 kHz audio at full speed (4 KiB frames), three rounds");
  const rounds: string[][] = [["round", "frames", "send all", "frames/s", "audio s per wall s", "end → done"]];
  for (let round = 1; round <= 3; round += 1) {
    const session = await open(stack.url, { bearer: stack.apiKey });
    const { sentMs, doneMs, frames } = await stream(session, 60);
    rounds.push([String(round), String(frames), ms(sentMs, 0), (frames / (sentMs / 1000)).toFixed(0), (60 / (sentMs / 1000)).toFixed(0), ms(doneMs, 1)]);
  }
  log(table(rounds));

  // ------------------------------------------------------------------------------- 3. many sessions
  log("\n## 3. Sessions at once, each streaming 10 s");
  const concurrency: string[][] = [["sessions", "wall", "per session p50 (send + done)", "RSS per open session"]];
  for (const count of [10, 50]) {
    global.gc?.();
    const before = process.memoryUsage().rss;
    const sessions = await Promise.all(Array.from({ length: count }, () => open(stack.url, { bearer: stack.apiKey })));
    const held = (process.memoryUsage().rss - before) / count;
    const started = performance.now();
    const each = await Promise.all(sessions.map((s) => stream(s, 10)));
    const wall = performance.now() - started;
    concurrency.push([String(count), ms(wall, 0), ms(summarize(each.map((e) => e.sentMs + e.doneMs)).p50, 0), `${(held / 1024).toFixed(0)} KB`]);
  }
  log(table(concurrency));
} finally {
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

// ------------------------------------------------------------------------------- 4. conversions
log("\n## 4. Sample conversions, 60 s of audio at 16 kHz in 4 KiB frames (this process)");
const conversions: string[][] = [["encoding", "to 16-bit MB/s", "× real time", "then 8 → 16 kHz MB/s"]];
for (const encoding of LIVE_ENCODINGS) {
  const input = Buffer.alloc(60 * 16_000 * bytesPerSample(encoding), 0x11);
  const frames = Array.from({ length: Math.ceil(input.length / FRAME_BYTES) }, (_, i) => input.subarray(i * FRAME_BYTES, (i + 1) * FRAME_BYTES));
  let t = performance.now();
  const converted = frames.map((frame) => toS16le(frame, encoding));
  const convertMs = performance.now() - t;
  const resampler = new Resampler(8000, 16_000);
  t = performance.now();
  for (const frame of converted) resampler.push(frame);
  resampler.end();
  const resampleMs = performance.now() - t;
  const mbps = (bytes: number, took: number) => (bytes / 2 ** 20 / (took / 1000)).toFixed(0);
  conversions.push([encoding, mbps(input.length, convertMs), (60_000 / convertMs).toFixed(0), mbps(input.length, resampleMs)]);
}
log(table(conversions));

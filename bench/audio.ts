/**
 * `npm run bench:audio`: prints figures, asserts nothing (docs/benchmarks.md, "Audio").
 *
 *  1. The handler bundles of the transcription and speech routes (esbuild, as `cdk synth` builds them).
 *  2. In-function work before a model is called: reading format and duration (music-metadata) and decoding
 *     to 16 kHz 16-bit PCM (audio-decode), the Amazon Transcribe path's cost, for WAV and FLAC of 10 s, 60 s
 *     and 600 s (the limit), and the PCM bytes that go to Transcribe.
 *  3. POST /v1/audio/transcriptions end to end on the local stack (offline provider): the audio as a form
 *     part, as file_id and as file_url (served on 127.0.0.1), 10 s and 60 s of 16 kHz WAV.
 *  4. POST /v1/audio/speech offline (JSON and the SSE stream).
 *
 * Everything runs in this one process plus DynamoDB Local (java) and s3rver: figures compare code paths on
 * one machine; they are not cloud latencies.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { parseBuffer } from "music-metadata";
import { buildHandlers } from "../infra/build.js";
import { startLocalStack } from "../infra/local/stack.js";
import { toPcm16 } from "../shared/inference/audio/pcm.js";
import { aFlac } from "../test/support/flac.js";
import { aWav } from "../test/support/wav.js";
import { kb, ms, summarize, table, timed } from "./stats.js";

const log = (line = "") => console.log(line);
const cpuList = cpus();
log(`Audio benchmark ${new Date().toISOString()}`);
log(`Machine: ${cpuList.length} cores (${cpuList[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`);
log(`Load average at start: ${loadavg().map((x) => x.toFixed(2)).join(", ")} (1, 5, 15 min)`);

const p = (samples: number[]) => {
  const s = summarize(samples);
  return [ms(s.p50, 1), ms(s.p90, 1), ms(s.max, 1)];
};

// ------------------------------------------------------------------------------------------- 1. bundles
log("\n## 1. Bundles");
const outdir = mkdtempSync(join(tmpdir(), "platform-bench-audio-build-"));
try {
  const bundles = await buildHandlers({ outdir });
  const of = (handler: string) => bundles.find((b) => b.handler === handler)!.bytes;
  log(table([["handler", "index.mjs"], ...["audio/transcribe", "audio/speech", "audio/create-voice", "inference/chat"].map((h) => [h, kb(of(h))])]));
} finally {
  rmSync(outdir, { recursive: true, force: true });
}

// ------------------------------------------------------------------------------ 2. probe and PCM decode
log("\n## 2. Probe (music-metadata) and decode to 16 kHz PCM (audio-decode), in this process");
// 600 s of 44.1 kHz WAV (52 MB) is over the 25 MiB limit: not a request the route takes.
const inputs = [10, 60, 600].flatMap((seconds) => [
  { name: `WAV 16 kHz mono, ${seconds} s`, bytes: aWav({ seconds, sampleRate: 16_000 }), seconds },
  ...(seconds < 600 ? [{ name: `WAV 44.1 kHz mono, ${seconds} s`, bytes: aWav({ seconds, sampleRate: 44_100 }), seconds }] : []),
  { name: `FLAC 16 kHz mono, ${seconds} s`, bytes: aFlac({ seconds, sampleRate: 16_000 }), seconds },
]);
// Warm the decoders (WebAssembly compile) once.
await toPcm16(aFlac({ seconds: 1 }));
await toPcm16(aWav({ seconds: 1 }));
const rows: string[][] = [["input", "bytes", "probe p50", "decode p50", "decode / audio minute", "PCM sent"]];
for (const input of inputs) {
  const runs = input.seconds >= 600 ? 3 : 7;
  const probes: number[] = [];
  const decodes: number[] = [];
  let pcmBytes = 0;
  for (let i = 0; i < runs; i += 1) {
    probes.push(await timed(() => parseBuffer(input.bytes, undefined, { duration: true, skipCovers: true })));
    decodes.push(await timed(async () => void (pcmBytes = (await toPcm16(input.bytes)).length)));
  }
  const decode = summarize(decodes).p50;
  rows.push([input.name, kb(input.bytes.length), ms(summarize(probes).p50, 2), ms(decode, 1), ms((decode / input.seconds) * 60, 1), kb(pcmBytes)]);
}
log(table(rows));

// ----------------------------------------------------------------------------------- 3. end to end
log("\n## 3. POST /v1/audio/transcriptions on the local stack (offline provider)");
const dataDir = mkdtempSync(join(tmpdir(), "platform-bench-audio-"));
const stack = await startLocalStack({ port: 0, dataDir, persist: false, authorizerCacheSeconds: 60 });
const auth = { authorization: `Bearer ${stack.apiKey}` };
const clips = new Map([10, 60].map((seconds) => [seconds, aWav({ seconds, sampleRate: 16_000 })]));
const server = createServer((req, res) => {
  const clip = clips.get(Number(/\/(\d+)\.wav$/.exec(req.url ?? "")?.[1]));
  if (clip) res.writeHead(200, { "content-type": "audio/wav" }).end(clip);
  else res.writeHead(404).end();
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const served = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
try {
  const transcribe = async (fields: Record<string, string>, file?: Buffer) => {
    const form = new FormData();
    form.append("model", "voxtral-mini-latest");
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    if (file) form.append("file", new Blob([new Uint8Array(file)]), "clip.wav");
    const response = await fetch(`${stack.url}/v1/audio/transcriptions`, { method: "POST", headers: auth, body: form });
    const body = (await response.json()) as { usage?: { prompt_audio_seconds: number } };
    if (response.status !== 200) throw new Error(`transcription answered ${response.status}: ${JSON.stringify(body)}`);
    return body;
  };
  const upload = async (wav: Buffer) => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(wav)], { type: "audio/wav" }), "clip.wav");
    form.append("purpose", "ocr");
    const response = await fetch(`${stack.url}/v1/files`, { method: "POST", headers: auth, body: form });
    return ((await response.json()) as { id: string }).id;
  };
  const e2e: string[][] = [["source", "audio", "calls", "p50", "p90", "max"]];
  for (const [seconds, wav] of clips) {
    const fileId = await upload(wav);
    const sources: [string, () => Promise<unknown>][] = [
      ["file (multipart)", () => transcribe({}, wav)],
      ["file_id (local S3)", () => transcribe({ file_id: fileId })],
      ["file_url (127.0.0.1)", () => transcribe({ file_url: `${served}/${seconds}.wav` })],
    ];
    for (const [name, call] of sources) {
      await call();
      const samples: number[] = [];
      for (let i = 0; i < 15; i += 1) samples.push(await timed(call));
      e2e.push([name, `${seconds} s (${kb(wav.length)})`, String(samples.length), ...p(samples)]);
    }
  }
  log(table(e2e));

  log("\n## 4. POST /v1/audio/speech on the local stack (offline placeholder)");
  const speak = async (stream: boolean) => {
    const response = await fetch(`${stack.url}/v1/audio/speech`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ input: "Hello there, this is a benchmark.", stream }) });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`speech answered ${response.status}`);
  };
  const speech: string[][] = [["answer", "calls", "p50", "p90", "max"]];
  for (const stream of [false, true]) {
    await speak(stream);
    const samples: number[] = [];
    for (let i = 0; i < 30; i += 1) samples.push(await timed(() => speak(stream)));
    speech.push([stream ? "SSE (speech.audio.delta + done)" : "JSON {audio_data}", String(samples.length), ...p(samples)]);
  }
  log(table(speech));
} finally {
  server.close();
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * `npm run bench:tokenizers`: prints figures, asserts nothing (docs/benchmarks.md §19).
 *
 *  1. Loading each tokenizer (reading the package's vocabulary files, building the tables): once per process.
 *  2. Ordinary text: MB/s per tokenizer and corpus kind (test/support/tokenizer-corpus.ts), 1 MB samples,
 *     for this project's encoders (shared/inference/tokenizer*.ts), the package's on 20 KB samples.
 *  3. A 128k-token prompt (the mixed corpus cut to 128,000 tokens of each tokenizer): its time.
 *  4. Adversarial runs (20 KB, 100 KB, 1 MB of one letter, spaces, newlines, "é", "漢", "😀"): the new
 *     encoders at every size; the package's where it finishes (SentencePiece to 20 KB, Tekken to 4 KB:
 *     quadratic, 20 KB of "a" takes it ~26 s).
 *
 * Times are CPU time of this process (process.cpuUsage), best of a few rounds, so the shared machine's other
 * work counts less; the load average is printed.
 */
import { cpus, loadavg, totalmem } from "node:os";
import type { Tokenizer } from "../shared/schemas/model.js";
import { tokenizerFor } from "../shared/inference/tokenizer.js";
import { legacyEncode } from "../test/support/legacy-tokenizer.js";
import { corpusSample, type CorpusKind } from "../test/support/tokenizer-corpus.js";
import { table } from "./stats.js";

const log = (line = "") => console.log(line);
const cpuList = cpus();
log(`Tokenizers benchmark ${new Date().toISOString()}`);
log(`Machine: ${cpuList.length} cores (${cpuList[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`);
log(`Load average at start: ${loadavg().map((x) => x.toFixed(2)).join(", ")} (1, 5, 15 min)`);

const KINDS: readonly Tokenizer[] = ["v1", "v2", "v3", "tekken"];
const CORPUS: readonly CorpusKind[] = ["latin", "cyrillic", "cjk", "arabic", "devanagari", "code", "json", "emoji", "whitespace", "mixed"];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** CPU milliseconds of one call. */
function cpu(fn: () => unknown): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

const best = (fn: () => unknown, rounds = ROUNDS): number => Math.min(...Array.from({ length: rounds }, () => cpu(fn)));
const encodeNew = (kind: Tokenizer, text: string) => tokenizerFor(kind).encode(text, false, false);
const mbps = (bytes: number, ms: number) => (bytes / 1e6 / (ms / 1000)).toFixed(1);
const bytesOf = (text: string) => Buffer.byteLength(text);

// --------------------------------------------------------------------------------------------- 1. load
log("\n## 1. Loading (CPU ms, once per process)");
const loadRows = [["tokenizer", "new", "package"]];
for (const kind of KINDS) loadRows.push([kind, cpu(() => encodeNew(kind, "x")).toFixed(0), cpu(() => legacyEncode(kind, "x")).toFixed(0)]);
log(table(loadRows));

// -------------------------------------------------------------------------------------- 2. ordinary text
log("\n## 2. Ordinary text (MB/s of UTF-8; new on 1 MB samples: warm, and first pass; package on 20 KB)");
const textRows = [["corpus", ...KINDS.flatMap((k) => [`${k} new`, `${k} first`, `${k} package`])]];
for (const [i, corpusKind] of CORPUS.entries()) {
  const sample = corpusSample(corpusKind, 1_000_000, 500 + i);
  const small = corpusSample(corpusKind, 20_000, 700 + i);
  const row: string[] = [corpusKind];
  for (const kind of KINDS) {
    // "first": the first 1 MB of this kind the process sees (its words and pieces not yet cached; "mixed"
    // comes last and shares the others' fragments).
    const first = corpusSample(corpusKind, 1_000_000, 900 + i);
    const cold = cpu(() => encodeNew(kind, first));
    const warm = best(() => encodeNew(kind, sample));
    const old = best(() => legacyEncode(kind, small), 1);
    row.push(mbps(bytesOf(sample), warm), mbps(bytesOf(first), cold), mbps(bytesOf(small), old));
  }
  textRows.push(row);
}
log(table(textRows));

// ----------------------------------------------------------------------------------- 3. 128k-token prompt
log("\n## 3. A 128k-token prompt (mixed corpus, CPU ms)");
const mixed = corpusSample("mixed", 1_500_000, 4242);
const promptRows = [["tokenizer", "bytes", "tokens", "new ms", "package ms (estimated from 20 KB)"]];
for (const kind of KINDS) {
  const total = encodeNew(kind, mixed).length;
  const prompt = mixed.slice(0, Math.floor((mixed.length * 128_000) / total));
  const tokens = encodeNew(kind, prompt).length;
  const ms = best(() => encodeNew(kind, prompt));
  const slice = prompt.slice(0, 20_000);
  const oldMs = (cpu(() => legacyEncode(kind, slice)) * bytesOf(prompt)) / bytesOf(slice);
  promptRows.push([kind, String(bytesOf(prompt)), String(tokens), ms.toFixed(1), oldMs.toFixed(0)]);
}
log(table(promptRows));

// ----------------------------------------------------------------------------------------- 4. adversarial
log("\n## 4. Adversarial runs of one character (CPU ms)");
const UNITS: [string, string][] = [["a", "a"], ["spaces", " "], ["newlines", "\n"], ["é", "é"], ["漢", "漢"], ["😀", "😀"]];
const SIZES = [20_000, 100_000, 1_000_000];
const OLD_LIMIT: Record<Tokenizer, number> = { v1: 20_000, v2: 20_000, v3: 20_000, tekken: 4_000 };
const run = (unit: string, bytes: number) => unit.repeat(Math.max(1, Math.floor(bytes / bytesOf(unit))));
const advRows = [["tokenizer", "run", ...SIZES.map((s) => `${s / 1000} KB new`), "package (size)"]];
for (const kind of KINDS) {
  for (const [name, unit] of UNITS) {
    const row = [kind, name, ...SIZES.map((size) => best(() => encodeNew(kind, run(unit, size)), 1).toFixed(0))];
    const oldText = run(unit, OLD_LIMIT[kind]);
    row.push(`${cpu(() => legacyEncode(kind, oldText)).toFixed(0)} (${OLD_LIMIT[kind] / 1000} KB; new: ${cpu(() => encodeNew(kind, oldText)).toFixed(1)})`);
    advRows.push(row);
  }
}
log(table(advRows));
log(`\nLoad average at end: ${loadavg().map((x) => x.toFixed(2)).join(", ")}`);

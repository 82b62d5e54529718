/**
 * `npm run bench:libraries`: prints figures, asserts nothing (docs/benchmarks.md §25).
 *
 *  1. Ingestion: pages/s of a 100-page PDF through the pipeline (upload, extract, chunk, embed, index) on `npm start`'s
 *     stack (the local Step Functions runner, the offline OCR and embeddings, LanceDB), and of a scanned page (Tesseract).
 *  2. Load: BENCH_CHUNKS (100,000) chunks of synthetic text, embedded by the offline provider's feature hashing at
 *     the catalog's mistral-embed dimension (1024), written into one library of the local store (LanceDB) in
 *     batches of 1,000 as the pipeline writes them; the ANN index is built on the way (shared/engine/vectors/lancedb.ts).
 *  3. Search: p50/p99 wall time of BENCH_QUERIES queries (top 5) through the store, without and with a metadata
 *     filter, the same queries on the same table by exact scan (the index bypassed), and the ANN's recall@5 against
 *     the exact answer.
 *
 * BENCH_DIR keeps the data (default: a temporary directory, removed at the end).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import * as lancedb from "@lancedb/lancedb";
import { hashEmbedding } from "../shared/inference/feature-hashing.js";
import { LanceDbVectorStore } from "../shared/engine/vectors/lancedb.js";
import { libraryIndexName, type ChunkVector } from "../shared/engine/vectors/store.js";
import type { VectorFilter } from "../shared/schemas/vector-search.js";
import { startLocalStack } from "../infra/local/stack.js";
// The test suite's document builders (a PDF with a text layer, the scanned-invoice fixture): one way to make them.
import { aTextPdf, INVOICE_PNG } from "../test/support/documents.js";
import { summarize, table } from "./stats.js";

const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 100_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const DIMENSION = 1024;
const BATCH = 1000;
const TOP_K = 5;
const WORKSPACE = "bench-workspace";
const LIBRARY = "bench-library";

const log = (line = "") => console.log(line);
const cpuList = cpus();
log(`Libraries benchmark ${new Date().toISOString()}`);
log(`Machine: ${cpuList.length} cores (${cpuList[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`);
log(`Load average at start: ${loadavg().map((x) => x.toFixed(2)).join(", ")} (1, 5, 15 min)`);

// ------------------------------------------------------------------------------------------ 1. ingestion
const INGEST_PAGES = 100;
const INGEST_ROUNDS = Number(process.env.BENCH_INGEST_ROUNDS ?? 3);

/** A 100-page text PDF (three paragraphs a page) and a one-page scan, each uploaded and processed through `npm start`'s stack. */
async function ingestionSection(): Promise<void> {
  log(`\n## 1. Ingestion: a ${INGEST_PAGES}-page PDF (text layer) and a scanned page, upload to done, ${INGEST_ROUNDS} rounds`);
  const dataDir = mkdtempSync(join(tmpdir(), "bench-ingestion-"));
  const stack = await startLocalStack({ port: 0, dataDir, persist: false, authorizerCacheSeconds: 60 });
  const call = async (method: string, path: string, init: { json?: unknown; form?: FormData } = {}): Promise<any> => {
    const headers: Record<string, string> = { authorization: `Bearer ${stack.apiKey}` };
    if (init.json !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${stack.url}${path}`, { method, headers, body: init.form ?? (init.json === undefined ? undefined : JSON.stringify(init.json)) });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text);
  };
  /** Seconds from the upload's request to `done`, and the document's pages. */
  const ingest = async (bytes: Buffer, name: string) => {
    const library = await call("POST", "/v1/libraries", { json: { name: `bench ${name}` } });
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(bytes)]), name);
    const t0 = performance.now();
    const uploaded = await call("POST", `/v1/libraries/${library.id}/documents`, { form });
    for (;;) {
      const document = await call("GET", `/v1/libraries/${library.id}/documents/${uploaded.id}`);
      if (document.process_status === "done") return { seconds: (performance.now() - t0) / 1000, pages: document.number_of_pages as number, tokens: document.tokens_processing_total as number };
      if (document.process_status !== "todo" && document.process_status !== "in_progress") throw new Error(`${name} ended ${document.process_status}: ${document.process_error}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  try {
    const paragraph = (page: number, n: number) => [`Section ${page}.${n}: ${chunkText(60)}`, chunkText(60)];
    const pdf = aTextPdf(Array.from({ length: INGEST_PAGES }, (_, page) => [0, 1, 2].map((n) => paragraph(page, n))));
    const rows: string[][] = [];
    const pdfRuns: number[] = [];
    const scanRuns: number[] = [];
    await ingest(aTextPdf([[["warm up"]]]), "warm.pdf");
    for (let round = 0; round < INGEST_ROUNDS; round += 1) {
      // A new name and one changed byte each round: the same bytes would be the same document.
      const text = await ingest(Buffer.concat([pdf, Buffer.from(`\n% round ${round}\n`)]), `handbook-${round}.pdf`);
      pdfRuns.push(text.seconds);
      if (round === 0) rows.push(["100-page PDF: pages, tokens embedded", String(text.pages), String(text.tokens)]);
      scanRuns.push((await ingest(Buffer.concat([INVOICE_PNG, Buffer.from([round])]), `scan-${round}.png`)).seconds);
    }
    const pdfSeconds = summarize(pdfRuns.map((s) => s * 1000)).p50 / 1000;
    const scanSeconds = summarize(scanRuns.map((s) => s * 1000)).p50 / 1000;
    rows.push(["100-page PDF: upload to done, median (s)", pdfSeconds.toFixed(2), `${(INGEST_PAGES / pdfSeconds).toFixed(1)} pages/s`]);
    rows.push(["scanned page (Tesseract): upload to done, median (s)", scanSeconds.toFixed(2), `${(1 / scanSeconds).toFixed(2)} pages/s`]);
    log(table([["measure", "value", "rate"], ...rows]));
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------- 2. load
/** A deterministic vocabulary with a Zipf-like use, so chunks share common words and differ in rare ones. */
let seed = 28;
const random = () => ((seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32);
const syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "be", "do", "fe", "gi", "ha", "ju", "po", "qui", "ze", "xa"];
const vocabulary = Array.from({ length: 8000 }, (_, i) => {
  let word = "";
  for (let n = i + 1; n > 0; n = Math.floor(n / syllables.length)) word += syllables[n % syllables.length];
  return word;
});
const word = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(vocabulary.length * random() ** 2))]!;
const chunkText = (n: number) => Array.from({ length: n }, word).join(" ");

await ingestionSection();

const dir = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), "bench-libraries-"));
const store = new LanceDbVectorStore(dir);
const vectors = new Float32Array(CHUNKS * DIMENSION);
const texts: string[] = [];
const MIME = ["application/pdf", "text/markdown", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "text/plain"];

log(`\n## 2. Load: ${CHUNKS.toLocaleString("en")} chunks of ~120 words, ${DIMENSION} dimensions, batches of ${BATCH}`);
let embedMs = 0;
const writeMs: number[] = [];
const loadStart = performance.now();
for (let start = 0; start < CHUNKS; start += BATCH) {
  const batch: ChunkVector[] = [];
  const t0 = performance.now();
  for (let i = start; i < Math.min(CHUNKS, start + BATCH); i++) {
    const text = chunkText(100 + Math.floor(random() * 40));
    texts.push(text);
    const vector = hashEmbedding(text, DIMENSION);
    vectors.set(vector, i * DIMENSION);
    const document = Math.floor(i / 50);
    batch.push({
      documentId: `doc-${document}`,
      chunkIndex: i % 50,
      text,
      vector,
      documentName: `document-${document}.pdf`,
      mimeType: MIME[document % MIME.length]!,
      createdAt: 1_760_000_000 + document * 3600,
      attributes: { team: `team-${document % 10}`, year: 2015 + (document % 12), reviewed: document % 3 === 0 },
    });
  }
  embedMs += performance.now() - t0;
  const t1 = performance.now();
  await store.upsert(WORKSPACE, LIBRARY, batch);
  writeMs.push(performance.now() - t1);
}
const loadMs = performance.now() - loadStart;
const writes = summarize(writeMs);
log(
  table([
    ["what", "value"],
    ["rows in the table", (await store.count(WORKSPACE, LIBRARY)).toLocaleString("en")],
    ["ANN index built", String(await store.indexed(WORKSPACE, LIBRARY))],
    ["total load (embed + write + index)", `${(loadMs / 1000).toFixed(1)} s`],
    ["embedding (offline feature hashing)", `${(embedMs / 1000).toFixed(1)} s`],
    ["writing, with index build and compaction", `${(writeMs.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s`],
    ["one batch of 1,000: p50 / max (max: the index build)", `${writes.p50.toFixed(0)} ms / ${(writes.max / 1000).toFixed(1)} s`],
    ["rows/s overall", (CHUNKS / (loadMs / 1000)).toFixed(0)],
  ]),
);

// ---------------------------------------------------------------------------------------- 3. search
log(`\n## 3. Search: ${QUERIES} queries, top ${TOP_K}, one library of ${CHUNKS.toLocaleString("en")} chunks`);
/** A query: 8 words of a random chunk (its source), as a question quotes a passage. */
const sources: string[] = [];
const queries = Array.from({ length: QUERIES }, () => {
  const source = Math.floor(random() * texts.length);
  sources.push(`doc-${Math.floor(source / 50)}#${source % 50}`);
  const words = texts[source]!.split(" ");
  const at = Math.floor(random() * (words.length - 8));
  return hashEmbedding(words.slice(at, at + 8).join(" "), DIMENSION);
});
const filter: VectorFilter = {
  op: "and",
  filters: [
    { op: "in", field: "mime_type", values: ["application/pdf", "text/markdown"] },
    { op: "gte", field: "attributes.year", value: 2018 },
  ],
};

async function timedQueries(run: (q: number[]) => Promise<unknown>): Promise<number[]> {
  for (const q of queries.slice(0, 5)) await run(q); // warm: the table's files in the page cache, the index loaded
  const samples: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    await run(q);
    samples.push(performance.now() - t);
  }
  return samples;
}

const annHits: string[][] = [];
const ann = summarize(
  await timedQueries(async (q) => annHits.push((await store.query({ workspace: WORKSPACE, libraryIds: [LIBRARY], vector: q, topK: TOP_K })).map((h) => `${h.documentId}#${h.chunkIndex}`))),
);
const filtered = summarize(await timedQueries((q) => store.query({ workspace: WORKSPACE, libraryIds: [LIBRARY], vector: q, topK: TOP_K, filter })));

const raw = await (await lancedb.connect(dir)).openTable(libraryIndexName(WORKSPACE, LIBRARY));
const exactHits: string[][] = [];
const exact = summarize(
  await timedQueries(async (q) => {
    const rows = await raw.vectorSearch(q).distanceType("cosine").bypassVectorIndex().select(["id", "_distance"]).limit(TOP_K).toArray();
    exactHits.push(rows.map((r: { id: string }) => r.id));
  }),
);
// The timed runs are the last QUERIES entries of each list (the first 5 warmed up).
const annTimed = annHits.slice(-QUERIES);
const exactTimed = exactHits.slice(-QUERIES);
let found = 0;
let annSource = 0;
let exactSource = 0;
for (let i = 0; i < QUERIES; i++) {
  found += annTimed[i]!.filter((id) => exactTimed[i]!.includes(id)).length;
  if (annTimed[i]!.includes(sources[i]!)) annSource++;
  if (exactTimed[i]!.includes(sources[i]!)) exactSource++;
}
const recall = found / (QUERIES * TOP_K);

log(
  table([
    ["search", "p50", "p99", "max"],
    ["store.query (ANN, no filter)", `${ann.p50.toFixed(1)} ms`, `${ann.p99.toFixed(1)} ms`, `${ann.max.toFixed(1)} ms`],
    ["store.query (ANN, mime_type in + attributes.year >=)", `${filtered.p50.toFixed(1)} ms`, `${filtered.p99.toFixed(1)} ms`, `${filtered.max.toFixed(1)} ms`],
    ["exact scan (index bypassed)", `${exact.p50.toFixed(1)} ms`, `${exact.p99.toFixed(1)} ms`, `${exact.max.toFixed(1)} ms`],
  ]),
);
log(`recall@${TOP_K} of the ANN against the exact scan: ${(recall * 100).toFixed(1)}%`);
log(`the query's source chunk in the top ${TOP_K}: ANN ${annSource}/${QUERIES}, exact scan ${exactSource}/${QUERIES}`);
log(`Load average at end: ${loadavg().map((x) => x.toFixed(2)).join(", ")}`);

store.close();
if (!process.env.BENCH_DIR) rmSync(dir, { recursive: true, force: true });

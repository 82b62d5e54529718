import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Tokenizer } from "../../shared/schemas/model.js";
import { goldenCorpus } from "./tokenizer-corpus.js";

export const TOKENIZERS: readonly Tokenizer[] = ["v1", "v2", "v3", "tekken"];

/** Where the golden ids live: written once by the package's encoders, before they were replaced. */
export const GOLDEN_FILE = resolve(import.meta.dirname, "../unit/inference/tokenizer.golden.json");

/** Texts up to this long keep their ids in full (readable diffs); longer ones a count and a digest of the ids. */
const FULL_IDS_UP_TO = 80;

export interface GoldenRecord {
  count: number;
  sha256: string;
  ids?: number[];
}

export type Golden = Record<string, Record<Tokenizer, GoldenRecord>>;

export const digest = (ids: readonly number[]): string => createHash("sha256").update(ids.join(",")).digest("hex");

export function goldenRecord(text: string, ids: readonly number[]): GoldenRecord {
  return { count: ids.length, sha256: digest(ids), ...(text.length <= FULL_IDS_UP_TO ? { ids: [...ids] } : {}) };
}

/** `tsx test/support/tokenizer-golden.ts` rewrites the golden file with the package's encoders. */
if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const { legacyEncode } = await import("./legacy-tokenizer.js");
  const golden: Golden = {};
  for (const { name, text } of goldenCorpus()) {
    golden[name] = Object.fromEntries(TOKENIZERS.map((kind) => [kind, goldenRecord(text, legacyEncode(kind, text))])) as Record<Tokenizer, GoldenRecord>;
  }
  writeFileSync(GOLDEN_FILE, `${JSON.stringify(golden, null, 1)}\n`);
  console.log(`${Object.keys(golden).length} texts × ${TOKENIZERS.length} tokenizers → ${GOLDEN_FILE}`);
}

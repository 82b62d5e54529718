/**
 * Feature-hashing text embeddings: word unigrams, word bigrams and character trigrams hashed (FNV-1a,
 * signed) into `dimensions` buckets, then L2-normalised. Deterministic and real in the sense that texts
 * sharing words are closer than texts that do not; lexical, not semantic ("car" and "automobile" are
 * unrelated to it).
 */
const WEIGHTS = { unigram: 1, bigram: 0.7, trigram: 0.35 };

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

const words = (text: string): string[] => text.toLowerCase().normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? [];

export function hashEmbedding(text: string, dimensions: number): number[] {
  const vector = new Float64Array(dimensions);
  const add = (feature: string, weight: number) => {
    const hash = fnv1a(feature);
    // The top bit picks the sign, so collisions cancel out on average instead of piling up.
    vector[hash % dimensions]! += hash & 0x80000000 ? -weight : weight;
  };
  const tokens = words(text);
  tokens.forEach((word, i) => {
    add(`w:${word}`, WEIGHTS.unigram);
    if (i > 0) add(`b:${tokens[i - 1]} ${word}`, WEIGHTS.bigram);
    const padded = ` ${word} `;
    for (let j = 0; j + 3 <= padded.length; j += 1) add(`c:${padded.slice(j, j + 3)}`, WEIGHTS.trigram);
  });
  let squares = 0;
  for (const v of vector) squares += v * v;
  const norm = Math.sqrt(squares);
  return Array.from(vector, (v) => (norm ? v / norm : 0));
}

export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  for (let i = 0; i < a.length; i += 1) dot += a[i]! * b[i]!;
  return dot;
}

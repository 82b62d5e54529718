/**
 * Chunks of a document's text for embedding: paragraphs packed up to the library's chunk size (characters), a
 * paragraph longer than that cut at sentence ends, then at spaces, then anywhere; each chunk after the first of a page
 * repeats the end of the one before (the overlap), so a passage cut in two is still found whole in one of them.
 * Chunks never span pages, so each names the page it quotes.
 */

export interface TextChunk {
  /** Position in the document, from 0. */
  index: number;
  /** The page (PDF page, slide) it comes from, from 0. */
  page: number;
  text: string;
}

export const DEFAULT_CHUNK_SIZE = 2048;
export const MIN_CHUNK_SIZE = 256;
export const MAX_CHUNK_SIZE = 32_768;

/** The overlap for a chunk size: an eighth, at most 256 characters. */
export const overlapFor = (size: number) => Math.min(256, Math.floor(size / 8));

export function chunkPages(pages: readonly string[], size: number = DEFAULT_CHUNK_SIZE): TextChunk[] {
  if (!Number.isInteger(size) || size < MIN_CHUNK_SIZE || size > MAX_CHUNK_SIZE) throw new RangeError(`chunk size ${size} is outside ${MIN_CHUNK_SIZE}..${MAX_CHUNK_SIZE}`);
  const overlap = overlapFor(size);
  // The overlap and the space after it come out of the chunk size: no chunk is longer than `size`.
  const body = size - overlap - 1;
  const chunks: TextChunk[] = [];
  pages.forEach((text, page) => {
    for (const piece of packed(pieces(text, body), body, overlap)) chunks.push({ index: chunks.length, page, text: piece });
  });
  return chunks;
}

/** Paragraphs, each cut to at most `max` characters. */
function pieces(text: string, max: number): string[] {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .flatMap((paragraph) => cut(paragraph, max));
}

function cut(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const sentences = text.split(/(?<=[.!?。])\s+/);
  if (sentences.length > 1) return greedy(sentences, max, " ").flatMap((s) => cut(s, max));
  const words = text.split(/\s+/);
  if (words.length > 1 && words.every((w) => w.length <= max)) return greedy(words, max, " ");
  const out: string[] = [];
  for (let at = 0; at < text.length; at += max) out.push(text.slice(at, at + max));
  return out;
}

/** Joins parts in order while the result stays within `max` (a part longer than `max` stands alone). */
function greedy(parts: string[], max: number, separator: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const part of parts) {
    if (current && current.length + separator.length + part.length > max) {
      out.push(current);
      current = part;
    } else {
      current = current ? current + separator + part : part;
    }
  }
  if (current) out.push(current);
  return out;
}

/** Pieces packed into chunks of at most `body` characters, each but the first prefixed with the previous chunk's tail. */
function packed(parts: string[], body: number, overlap: number): string[] {
  const bodies = greedy(parts, body, "\n\n");
  return bodies.map((text, i) => (i === 0 || overlap === 0 ? text : `${tail(bodies[i - 1]!, overlap)} ${text}`));
}

/** The last `n` characters or fewer, starting at a word. */
function tail(text: string, n: number): string {
  if (text.length <= n) return text;
  const end = text.slice(-n);
  const space = end.search(/\s/);
  return (space >= 0 && space < end.length - 1 ? end.slice(space + 1) : end).trim();
}

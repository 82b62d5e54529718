/**
 * `documentFormat` (./formats.ts) for a document that streams past once and is never held whole (the upload service's
 * documents, up to 100 MiB): the same answer as `documentFormat(allBytes, filename)`, from the bytes as they pass.
 *
 * What the whole judgement reads, and how it is had here:
 * - PDF and image signatures sit in the first 1 KiB: the head (HEAD_BYTES) holds them.
 * - Text (UTF-8, HTML, Markdown): the whole file must decode as UTF-8 with no NUL byte, checked chunk by chunk with a
 *   streaming decoder; HTML is then told by the name or the first 1024 characters, which the head holds.
 * - DOCX and PPTX: a ZIP's entry names come from its central directory, at the end of the file. Only for a file whose
 *   head is a ZIP's does `result` ask the caller for the whole bytes (`whole`), which it reads back from storage.
 */
import { documentFormat, type FormatFacts } from "./formats.js";

/** Enough for every signature and for the 1024 characters the HTML check reads (at most 4 bytes each). */
export const HEAD_BYTES = 64 * 1024;

const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

export class StreamedFormat {
  private readonly head: Buffer = Buffer.alloc(HEAD_BYTES);
  private headFilled = 0;
  private total = 0;
  private readonly decoder = new TextDecoder("utf-8", { fatal: true });
  private utf8 = true;

  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    if (this.headFilled < HEAD_BYTES) {
      const take = Math.min(chunk.length, HEAD_BYTES - this.headFilled);
      this.head.set(chunk.subarray(0, take), this.headFilled);
      this.headFilled += take;
    }
    if (!this.utf8) return;
    if (chunk.includes(0)) this.utf8 = false;
    else {
      try {
        this.decoder.decode(chunk, { stream: true });
      } catch {
        this.utf8 = false;
      }
    }
  }

  /** The format `documentFormat` would find in all the bytes pushed; `whole` is read only for a ZIP past the head. */
  async result(filename: string, whole: () => Promise<Buffer>): Promise<FormatFacts | undefined> {
    const head = this.head.subarray(0, this.headFilled);
    if (this.total <= HEAD_BYTES) return documentFormat(head, filename);
    const utf8 = this.utf8 && this.finishDecoding();
    // Cut at a character's start, so that a head of valid text is valid text; the signatures are well before the cut.
    const facts = documentFormat(head.subarray(0, characterBoundary(head)), filename);
    if (facts?.format === "pdf" || facts?.format === "image") return facts;
    if (head.subarray(0, 4).equals(ZIP_SIGNATURE)) return documentFormat(await whole(), filename);
    return utf8 ? facts : undefined;
  }

  private finishDecoding(): boolean {
    try {
      this.decoder.decode();
      return true;
    } catch {
      return false;
    }
  }
}

/** The length of `bytes` without a UTF-8 sequence cut short at its end. */
export function characterBoundary(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte < 0x80 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return back < length ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/**
 * The ZIP containers of Office documents, read with fflate: the entry names alone, or the entries a reader asks for,
 * refusing to inflate more than MAX_INFLATED_BYTES in all (a small file can declare gigabytes: a ZIP bomb).
 */
import { unzipSync } from "fflate";

export const MAX_INFLATED_BYTES = 200 * 1024 * 1024;

export class ZipTooLarge extends Error {
  constructor() {
    super(`The document inflates to more than ${MAX_INFLATED_BYTES / 1024 / 1024} MiB of content`);
  }
}

/** Every entry's name, nothing inflated; undefined when the bytes are not a ZIP archive fflate can read. */
export function zipEntryNames(bytes: Uint8Array): Set<string> | undefined {
  const names = new Set<string>();
  try {
    unzipSync(bytes, {
      filter: (file) => {
        names.add(file.name);
        return false;
      },
    });
  } catch {
    return undefined;
  }
  return names;
}

/** The entries `wanted` accepts, inflated, as text (their names in archive order). */
export function zipTexts(bytes: Uint8Array, wanted: (name: string) => boolean): Map<string, string> {
  let inflated = 0;
  const entries = unzipSync(bytes, {
    filter: (file) => {
      if (!wanted(file.name)) return false;
      inflated += file.originalSize;
      if (inflated > MAX_INFLATED_BYTES) throw new ZipTooLarge();
      return true;
    },
  });
  const decoder = new TextDecoder();
  return new Map(Object.entries(entries).map(([name, data]) => [name, decoder.decode(data)]));
}

/**
 * Which state machine documents the library's validator (asl-validator, through aws-local-stepfunctions) has
 * accepted, so that each is validated once, not on every start. The validator builds and compiles its JSON
 * Schemas anew on every call (~0.17 s of CPU a document): every `npm start` paid ~1 s for the engine's
 * machines, the same documents each time, and workflow registrations as much each (docs/benchmarks.md §31).
 * Keyed by the document's text and the validator's version, in this process and in files under `dir`, so the
 * processes of one checkout (every `npm start`, every test worker) share them. A refused document is never
 * remembered: it is validated, and refused, every time.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, sep } from "node:path";

export interface ValidDocuments {
  /** Runs `validate` on `document` unless it has accepted the same text before; throws what `validate` throws. */
  check(document: unknown, validate: (document: unknown) => void): void;
}

export function validDocuments(dir: string | undefined): ValidDocuments {
  const known = new Set<string>();
  return {
    check(document, validate) {
      const key = createHash("sha256").update(JSON.stringify(document)).digest("hex");
      if (known.has(key)) return;
      const marker = dir && join(dir, key);
      if (!(marker && existsSync(marker))) {
        validate(document);
        if (marker) remember(dir, marker);
      }
      known.add(key);
    },
  };
}

function remember(dir: string, marker: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(marker, "");
  } catch {
    // A read-only checkout validates again next time; nothing is lost.
  }
}

/** The checkout's cache folder for the installed validator's version: node_modules/.cache/asl-valid/<version>. */
export function validatorCacheDir(): string | undefined {
  try {
    const library = createRequire(import.meta.url).resolve("aws-local-stepfunctions");
    const validator = createRequire(library).resolve("asl-validator");
    const { version } = JSON.parse(readFileSync(join(packageDir(validator, "asl-validator"), "package.json"), "utf8")) as { version: string };
    return join(dirname(packageDir(library, "aws-local-stepfunctions")), ".cache", "asl-valid", version);
  } catch {
    return undefined;
  }
}

/** The folder of package `name` that `file` (a file inside it) sits in. */
function packageDir(file: string, name: string): string {
  const folder = `${sep}node_modules${sep}${name}`;
  return file.slice(0, file.lastIndexOf(`${folder}${sep}`) + folder.length);
}

/**
 * What the OpenAPI document is checked against, vendored so a clone stands alone: the spec's operations
 * and their groups (operations.tsv, copied from the spec), and the parts of Mistral's OpenAPI document the
 * reference test compares (mistral-reference.json, written by scripts/vendor-mistral-openapi.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const OPENAPI_DIR = import.meta.dirname;
export const SPEC_OPERATIONS_FILE = join(OPENAPI_DIR, "operations.tsv");
export const MISTRAL_REFERENCE_FILE = join(OPENAPI_DIR, "mistral-reference.json");
export const DIFFERENCES_FILE = join(OPENAPI_DIR, "differences.tsv");

export interface SpecOperation {
  group: string;
  method: string;
  path: string;
}

/** The spec's operations, in its order, with the group each belongs to (the document's tags). */
export function specOperations(): SpecOperation[] {
  const [, ...lines] = readFileSync(SPEC_OPERATIONS_FILE, "utf8").trim().split("\n");
  return lines.map((line) => {
    const [group, method, path] = line.split("\t") as [string, string, string];
    return { group, method, path };
  });
}

/** One operation of Mistral's document, reduced to what the comparison needs. */
export interface MistralOperation {
  operationId: string;
  summary?: string;
  deprecated?: true;
  tags: string[];
  /** `in:name` of each required path and query parameter. */
  requiredParameters: string[];
  body?: { required: boolean; contentTypes: string[]; requiredFields: string[] };
  successCodes: number[];
  successContentTypes: Record<string, string[]>;
}

export function mistralReference(): Record<string, MistralOperation> {
  return (JSON.parse(readFileSync(MISTRAL_REFERENCE_FILE, "utf8")) as { operations: Record<string, MistralOperation> }).operations;
}

export interface Difference {
  key: string;
  kind: string;
  detail: string;
  reason: string;
}

/** The intended differences from Mistral's document, one a line: METHOD path, kind, detail, reason. */
export function intendedDifferences(): Difference[] {
  return readFileSync(DIFFERENCES_FILE, "utf8")
    .split("\n")
    .filter((line) => line.trim() && !line.startsWith("#"))
    .map((line) => {
      const [key, kind, detail, reason] = line.split("\t") as [string, string, string, string];
      return { key, kind, detail, reason };
    });
}

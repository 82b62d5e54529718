import { PayloadTooLarge, Unprocessable } from "./errors.js";

/**
 * What DynamoDB accepts, checked before a write so that input beyond it is the client's 413 or 422, never
 * DynamoDB's ValidationException as a 500 (docs/decisions/0009-limits-before-storage.md).
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
 */
export const STORAGE_LIMITS = {
  itemBytes: 400 * 1024,
  partitionKeyBytes: 2048,
  sortKeyBytes: 1024,
  /** Lists and maps nest 32 levels deep at most. */
  nestingLevels: 32,
  /** Numbers: 38 significant digits, magnitude 1E-130 to 9.9999999999999999999999999999999999999E+125. */
  numberMin: 1e-130,
  numberMax: 9.9999999999999999999999999999999999999e125,
} as const;

/**
 * A number as DynamoDB can keep it, for records written after the answer that must not fail on what the client
 * sent (a span's sampling parameters): a magnitude under 1e-130 is stored as 0, which it is to every reader; one
 * beyond the maximum as null (unknown). Anything in range is kept as it is.
 */
export function storableNumber(n: number): number | null {
  if (!Number.isFinite(n) || Math.abs(n) > STORAGE_LIMITS.numberMax) return null;
  return Math.abs(n) < STORAGE_LIMITS.numberMin ? 0 : n;
}

/** Marks a storage-limit refusal, so every route's 422 for it reads the same (and the fuzz ring can list it). */
export const STORAGE_LIMIT_MSG = "exceeds the storage limit";

// UTF-8 length without encoding the text (this runs over every attribute of every write).
const bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** An attribute's size as DynamoDB counts it: names plus values, 1 byte per boolean/null, ~21 per number, 3 per list/map. */
export function storedBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === "boolean") return 1;
  if (typeof value === "number") return 21;
  if (typeof value === "string") return bytes(value);
  if (value instanceof Uint8Array) return value.length;
  if (value instanceof Set) return [...value].reduce((n: number, v) => n + storedBytes(v), 0);
  if (Array.isArray(value)) return 3 + value.reduce((n: number, v) => n + 1 + storedBytes(v), 0);
  if (typeof value === "object") return 3 + Object.entries(value).reduce((n, [k, v]) => n + 1 + bytes(k) + storedBytes(v), 0);
  return 0;
}

export type StorageProblem =
  | { kind: "too_large"; bytes: number }
  | { kind: "too_deep"; path: string }
  | { kind: "empty_name"; path: string }
  | { kind: "number_range"; path: string; value: number };

/** The first thing about an item (its attributes) that DynamoDB would refuse, or undefined. */
export function storageProblem(item: Record<string, unknown>): StorageProblem | undefined {
  const inner = innerProblem(item, "", 0);
  if (inner) return inner;
  const size = Object.entries(item).reduce((n, [k, v]) => n + bytes(k) + storedBytes(v), 0);
  return size > STORAGE_LIMITS.itemBytes ? { kind: "too_large", bytes: size } : undefined;
}

function innerProblem(value: unknown, path: string, depth: number): StorageProblem | undefined {
  if (typeof value === "number") {
    const magnitude = Math.abs(value);
    if (!Number.isFinite(value) || (magnitude !== 0 && (magnitude < STORAGE_LIMITS.numberMin || magnitude > STORAGE_LIMITS.numberMax))) return { kind: "number_range", path, value };
    return undefined;
  }
  if (value === null || typeof value !== "object" || value instanceof Uint8Array || value instanceof Set) return undefined;
  // The item itself is level 0; its attributes' lists and maps count from 1.
  if (depth > STORAGE_LIMITS.nestingLevels) return { kind: "too_deep", path };
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  for (const [key, child] of entries) {
    if (!Array.isArray(value) && key === "") return { kind: "empty_name", path };
    const found = innerProblem(child, path ? `${path}.${key}` : key, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** The client's error for a storage problem: 413 for size, 422 (in the body) for shape. */
export function storageRefusal(problem: StorageProblem): PayloadTooLarge | Unprocessable {
  switch (problem.kind) {
    case "too_large":
      return new PayloadTooLarge(`The record would be ${problem.bytes} bytes, more than the ${STORAGE_LIMITS.itemBytes} bytes one record can hold`, "record_too_large");
    case "too_deep":
      return new Unprocessable([{ loc: ["body"], msg: `A value nested more than ${STORAGE_LIMITS.nestingLevels} levels deep ${STORAGE_LIMIT_MSG} (at ${problem.path})`, type: "value_error" }]);
    case "empty_name":
      return new Unprocessable([{ loc: ["body"], msg: `An object key that is empty ${STORAGE_LIMIT_MSG} (in ${problem.path || "the record"})`, type: "value_error" }]);
    case "number_range":
      return new Unprocessable([{ loc: ["body"], msg: `The number ${problem.value} ${STORAGE_LIMIT_MSG} (1e-130 to 9.99e125, at ${problem.path})`, type: "value_error" }]);
  }
}

/** Whether a key attribute's value fits DynamoDB's key size (2048 bytes for a partition key, 1024 for a sort key). */
export function keyFits(value: unknown, role: "partition" | "sort"): boolean {
  if (typeof value !== "string") return true;
  return bytes(value) <= (role === "partition" ? STORAGE_LIMITS.partitionKeyBytes : STORAGE_LIMITS.sortKeyBytes);
}

/** A write whose key (or an index key it would carry) is longer than DynamoDB keeps: the value that names it is too long. */
export const keyTooLong = (attribute: string) =>
  new Unprocessable([{ loc: ["body"], msg: `A name or id that long ${STORAGE_LIMIT_MSG} (key '${attribute}' over ${STORAGE_LIMITS.sortKeyBytes} bytes)`, type: "value_error" }]);

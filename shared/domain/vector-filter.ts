/**
 * THE compiler of the vector store's filter language (docs/vector-search.md, decision 0069), the way
 * observability/query.ts serves DuckDB and Athena from one tree: a filter (shared/schemas/vector-search.ts) is
 * checked, its negations are pushed down to the leaves (S3 Vectors has no `$not`), and the one normal tree is
 * emitted for LanceDB (an SQL `where`, every value a quoted literal: LanceDB binds no parameters) and for
 * S3 Vectors (its MongoDB-like metadata filter). Because both engines read the same normal tree, they agree on
 * what a filter means, including for chunks that lack the field:
 *
 *   - eq, in, gt, gte, lt, lte and exists match only chunks that have the field (with a value of that type);
 *   - ne and nin match chunks that lack the field too (as MongoDB's do);
 *   - not(x) matches what x does not, except that a range comparison's negation is "absent or the other way"
 *     (not gt 5 = lte 5 or absent): a non-number value under a range comparison matches neither.
 */
import {
  ATTRIBUTE_KEY_PATTERN,
  BUILTIN_FILTER_FIELDS,
  MAX_FILTER_DEPTH,
  MAX_FILTER_STRING,
  type Attributes,
  type BuiltinFilterField,
  type FilterScalar,
  type VectorFilter,
} from "../schemas/vector-search.js";
import { Unprocessable } from "./errors.js";

/** S3 Vectors' enhanced indexes take at most 100 filter constraints (leaf comparisons) in one query. */
export const MAX_FILTER_CONSTRAINTS = 100;

type Comparison = "eq" | "ne" | "gt" | "gte" | "lt" | "lte";

/** A filter with its negations pushed to the leaves: what both engines compile. */
export type NormalFilter =
  | { op: Comparison; field: string; value: FilterScalar }
  | { op: "in" | "nin"; field: string; values: FilterScalar[] }
  | { op: "exists" | "missing"; field: string }
  | { op: "and" | "or"; filters: NormalFilter[] };

const BUILTIN_TYPES: Record<BuiltinFilterField, "string" | "number"> = {
  document_id: "string",
  document_name: "string",
  mime_type: "string",
  created_at: "number",
  chunk_index: "number",
};
/** Built-in fields every chunk has: `exists` is always true of them, `missing` never. */
const ALWAYS_PRESENT = new Set<string>(["document_id", "created_at", "chunk_index"]);

const isBuiltin = (field: string): field is BuiltinFilterField => (BUILTIN_FILTER_FIELDS as readonly string[]).includes(field);
const attributeKey = (field: string): string => field.slice("attributes.".length);

/** The filter says something the store cannot answer: a 422 whose `loc` points into the filter. */
export const filterIssue = (path: (string | number)[], msg: string, root: (string | number)[] = ["body", "filter"]) =>
  new Unprocessable([{ loc: [...root, ...path], msg, type: "value_error" }]);

const typeOf = (value: FilterScalar) => typeof value as "string" | "number" | "boolean";

function checkValue(field: string, value: FilterScalar, path: (string | number)[], root: (string | number)[]): void {
  if (!isBuiltin(field)) return;
  if (typeOf(value) !== BUILTIN_TYPES[field]) throw filterIssue(path, `${field} holds ${BUILTIN_TYPES[field]}s: ${JSON.stringify(value)} is not one`, root);
}

/**
 * Checks a parsed filter against the fields' types and bounds and pushes its negations down. Throws a 422
 * (`loc` under `root`) for a filter no engine can answer.
 */
export function normalizeFilter(filter: VectorFilter, root: (string | number)[] = ["body", "filter"]): NormalFilter {
  const walk = (f: VectorFilter, negate: boolean, path: (string | number)[], depth: number): NormalFilter => {
    if (depth > MAX_FILTER_DEPTH) throw filterIssue(path, `the filter nests deeper than ${MAX_FILTER_DEPTH} levels`, root);
    switch (f.op) {
      case "and":
      case "or": {
        const filters = f.filters.map((g, i) => walk(g, negate, [...path, "filters", i], depth + 1));
        const op = (f.op === "and") !== negate ? "and" : "or";
        return filters.length === 1 ? filters[0]! : { op, filters };
      }
      case "not":
        return walk(f.filter, !negate, [...path, "filter"], depth + 1);
      case "exists":
        return { op: negate ? "missing" : "exists", field: f.field };
      case "in":
      case "nin":
        f.values.forEach((v, i) => checkValue(f.field, v, [...path, "values", i], root));
        return { op: (f.op === "in") !== negate ? "in" : "nin", field: f.field, values: [...f.values] };
      case "eq":
      case "ne":
        checkValue(f.field, f.value, [...path, "value"], root);
        return { op: (f.op === "eq") !== negate ? "eq" : "ne", field: f.field, value: f.value };
      default: {
        if (isBuiltin(f.field) && BUILTIN_TYPES[f.field] !== "number") throw filterIssue([...path, "op"], `${f.op} compares numbers and ${f.field} holds strings`, root);
        if (!negate) return { op: f.op, field: f.field, value: f.value };
        const flipped = ({ gt: "lte", gte: "lt", lt: "gte", lte: "gt" } as const)[f.op];
        const other: NormalFilter = { op: flipped, field: f.field, value: f.value };
        return ALWAYS_PRESENT.has(f.field) ? other : { op: "or", filters: [other, { op: "missing", field: f.field }] };
      }
    }
  };
  const normal = walk(filter, false, [], 1);
  const constraints = countS3Constraints(toS3Filter(normal));
  if (constraints > MAX_FILTER_CONSTRAINTS)
    throw filterIssue([], `the filter has ${constraints} conditions once its negations are spelled out; at most ${MAX_FILTER_CONSTRAINTS}`, root);
  return normal;
}

// ---------------------------------------------------------------------------------------------- LanceDB (SQL)

/** The LanceDB table's columns for a chunk's attributes: one key list and one value list per type, in step. */
export const LANCE_ATTRIBUTE_COLUMNS = {
  keys: "attr_keys",
  string: { keys: "attr_str_keys", values: "attr_str_values" },
  number: { keys: "attr_num_keys", values: "attr_num_values" },
  boolean: { keys: "attr_bool_keys", values: "attr_bool_values" },
} as const;

/**
 * A string as an SQL literal. LanceDB's parser (DataFusion's) reads `'…'` with `''` for a quote and no other
 * escape: a backslash, a NUL or a newline is just a character. The result is one token whatever the string.
 */
export const sqlString = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/** A finite number as an SQL literal (never NaN or Infinity: the schema refuses them). */
export function sqlNumber(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  const text = Object.is(value, -0) ? "0" : String(value);
  // String(1e21) is "1e+21": DataFusion reads exponents with or without the sign.
  if (!/^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/.test(text)) throw new Error(`unexpected number text: ${text}`);
  return text.startsWith("-") ? `(${text})` : text;
}

const sqlScalar = (value: FilterScalar): string => (typeof value === "string" ? sqlString(value) : typeof value === "number" ? sqlNumber(value) : value ? "TRUE" : "FALSE");

/** A built-in field's column (its name is one of ours, never the caller's). */
const column = (field: BuiltinFilterField) => `\`${field}\``;

/** An attribute's value of one type, NULL when the chunk has no such key of that type. */
function attributeSlot(key: string, type: "string" | "number" | "boolean"): string {
  if (!ATTRIBUTE_KEY_PATTERN.test(key)) throw new Error(`not an attribute key: ${key}`);
  const { keys, values } = LANCE_ATTRIBUTE_COLUMNS[type];
  return `array_element(${values}, CAST(array_position(${keys}, ${sqlString(key)}) AS BIGINT))`;
}

/** The field's value as the typed expression a comparison with `value` reads. */
const slot = (field: string, type: "string" | "number" | "boolean") => (isBuiltin(field) ? column(field) : attributeSlot(attributeKey(field), type));

function lanceMembership(field: string, values: FilterScalar[]): string {
  const byType = new Map<"string" | "number" | "boolean", FilterScalar[]>();
  for (const v of values) byType.set(typeOf(v), [...(byType.get(typeOf(v)) ?? []), v]);
  const parts = [...byType].map(([type, vs]) => `${slot(field, type)} IN (${vs.map(sqlScalar).join(", ")})`);
  return parts.length === 1 ? parts[0]! : `(${parts.join(" OR ")})`;
}

/** The normal filter as LanceDB's SQL `where` (a NULL comparison counts as false: `coalesce` keeps NOT exact). */
export function toLanceWhere(filter: NormalFilter): string {
  switch (filter.op) {
    case "and":
    case "or":
      return `(${filter.filters.map(toLanceWhere).join(filter.op === "and" ? " AND " : " OR ")})`;
    case "exists":
    case "missing": {
      const present = isBuiltin(filter.field)
        ? ALWAYS_PRESENT.has(filter.field)
          ? "TRUE"
          : `${column(filter.field)} IS NOT NULL`
        : `array_has(${LANCE_ATTRIBUTE_COLUMNS.keys}, ${sqlString(attributeKey(filter.field))})`;
      return filter.op === "exists" ? present : `(NOT ${present})`;
    }
    case "in":
      return `coalesce(${lanceMembership(filter.field, filter.values)}, FALSE)`;
    case "nin":
      return `(NOT coalesce(${lanceMembership(filter.field, filter.values)}, FALSE))`;
    case "ne":
      return `(NOT coalesce(${slot(filter.field, typeOf(filter.value))} = ${sqlScalar(filter.value)}, FALSE))`;
    default: {
      const op = { eq: "=", gt: ">", gte: ">=", lt: "<", lte: "<=" }[filter.op];
      return `coalesce(${slot(filter.field, typeOf(filter.value))} ${op} ${sqlScalar(filter.value)}, FALSE)`;
    }
  }
}

// ------------------------------------------------------------------------------------------------- S3 Vectors

/** A chunk's metadata key in S3 Vectors for a field: built-ins by name, attributes as `a_<key>`. */
export const s3MetadataKey = (field: string): string => (isBuiltin(field) ? field : `a_${attributeKey(field)}`);
/** The S3 Vectors metadata key of an attribute. */
export const s3AttributeKey = (key: string): string => `a_${key}`;

export type S3Filter = { [key: string]: unknown };

/**
 * The normal filter as S3 Vectors' metadata filter. Its operators: $eq $ne $gt $gte $lt $lte (numbers only)
 * $in $nin (non-empty arrays) $exists $and $or (non-empty arrays); no $not, hence the normal form. `ne` and `nin`
 * also match chunks without the field, spelled out with `$exists: false` so the meaning does not rest on how
 * S3 Vectors treats a missing key.
 */
export function toS3Filter(filter: NormalFilter): S3Filter {
  switch (filter.op) {
    case "and":
    case "or":
      return { [`$${filter.op}`]: filter.filters.map(toS3Filter) };
    case "exists":
      return ALWAYS_PRESENT.has(filter.field) ? { document_id: { $exists: true } } : { [s3MetadataKey(filter.field)]: { $exists: true } };
    case "missing":
      return { [s3MetadataKey(filter.field)]: { $exists: false } };
    case "in":
      return { [s3MetadataKey(filter.field)]: { $in: filter.values } };
    case "nin":
    case "ne": {
      const key = s3MetadataKey(filter.field);
      const test = { [key]: filter.op === "ne" ? { $ne: filter.value } : { $nin: (filter as { values: FilterScalar[] }).values } };
      return ALWAYS_PRESENT.has(filter.field) ? test : { $or: [test, { [key]: { $exists: false } }] };
    }
    default:
      return { [s3MetadataKey(filter.field)]: { [`$${filter.op}`]: filter.value } };
  }
}

/** The leaf comparisons of an S3 Vectors filter (what its quota counts). */
export function countS3Constraints(filter: S3Filter): number {
  let n = 0;
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" || key === "$or") n += (value as S3Filter[]).reduce((sum, f) => sum + countS3Constraints(f), 0);
    else n += 1;
  }
  return n;
}

// ---------------------------------------------------------------------------------------- chunk metadata limits

/** S3 Vectors' quotas per vector, kept by both engines so a library behaves the same locally and in the cloud. */
export const VECTOR_LIMITS = {
  /** Filterable metadata per vector. */
  filterableBytes: 2048,
  /** Filterable and non-filterable metadata per vector. */
  totalMetadataBytes: 40 * 1024,
  /** Metadata keys per vector. */
  metadataKeys: 50,
  /** Dimensions of a vector. */
  maxDimension: 4096,
  /** Results of one query. */
  maxTopK: 100,
} as const;

/** The metadata every chunk carries besides its attributes: document_id, chunk_index, created_at, document_name, mime_type, text. */
const BUILTIN_METADATA_KEYS = 6;

export interface ChunkMetadata {
  documentId: string;
  chunkIndex: number;
  text: string;
  documentName?: string | null;
  mimeType?: string | null;
  /** The document's creation, unix seconds. */
  createdAt: number;
  attributes?: Attributes;
}

const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

/** The filterable metadata's size as counted here: its JSON text (an upper bound of what S3 Vectors counts). */
export function filterableMetadataBytes(chunk: ChunkMetadata): number {
  const filterable: Record<string, unknown> = { document_id: chunk.documentId, chunk_index: chunk.chunkIndex, created_at: chunk.createdAt };
  if (chunk.documentName != null) filterable.document_name = chunk.documentName;
  if (chunk.mimeType != null) filterable.mime_type = chunk.mimeType;
  for (const [k, v] of Object.entries(chunk.attributes ?? {})) filterable[s3AttributeKey(k)] = v;
  return utf8Bytes(JSON.stringify(filterable));
}

/** Refuses a chunk one of the engines could not keep (the ingestion pipeline reports it as the document's failure). */
export function checkChunk(chunk: ChunkMetadata, vector: ArrayLike<number>, dimension: number, where = "chunk"): void {
  const fail = (msg: string) => {
    throw new Unprocessable([{ loc: [where, chunk.documentId, chunk.chunkIndex], msg, type: "value_error" }]);
  };
  if (!Number.isInteger(chunk.chunkIndex) || chunk.chunkIndex < 0) fail("chunk_index must be a whole number, 0 or more");
  if (!Number.isFinite(chunk.createdAt)) fail("created_at must be a finite number of unix seconds");
  if (vector.length !== dimension) fail(`the vector has ${vector.length} dimensions, the index ${dimension}`);
  for (let i = 0; i < vector.length; i++) if (!Number.isFinite(vector[i]!)) return fail(`the vector's value ${i} is not a finite number`);
  const attributes = Object.entries(chunk.attributes ?? {});
  if (attributes.length + BUILTIN_METADATA_KEYS > VECTOR_LIMITS.metadataKeys)
    fail(`a chunk carries at most ${VECTOR_LIMITS.metadataKeys - BUILTIN_METADATA_KEYS} attributes, not ${attributes.length}`);
  for (const [key, value] of attributes) {
    if (!ATTRIBUTE_KEY_PATTERN.test(key)) fail(`attribute key ${JSON.stringify(key)} is not 1 to 60 letters, digits, '_' or '-'`);
    if (typeof value === "string" && value.length > MAX_FILTER_STRING) fail(`attribute ${key} is longer than ${MAX_FILTER_STRING} characters`);
    if (typeof value === "number" && !Number.isFinite(value)) fail(`attribute ${key} is not a finite number`);
  }
  const filterable = filterableMetadataBytes(chunk);
  if (filterable > VECTOR_LIMITS.filterableBytes) fail(`the chunk's filterable metadata (name, type, attributes) is ${filterable} bytes, more than ${VECTOR_LIMITS.filterableBytes}`);
  const total = filterable + utf8Bytes(JSON.stringify({ text: chunk.text }));
  if (total > VECTOR_LIMITS.totalMetadataBytes) fail(`the chunk's metadata with its text is ${total} bytes, more than ${VECTOR_LIMITS.totalMetadataBytes}`);
}

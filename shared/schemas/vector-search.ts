/**
 * The vector store's filter language and chunk metadata (docs/vector-search.md, decision 0069): one small JSON tree
 * that the domain compiles for both engines, LanceDB's SQL `where` locally and S3 Vectors' metadata filter in the
 * cloud (shared/domain/vector-filter.ts). Scoping (workspace, libraries) is never part of a filter: it is an argument
 * of every call to the store.
 */
import * as z from "zod";

/** The fields every chunk carries, filterable by name. `created_at` is the document's unix seconds. */
export const BUILTIN_FILTER_FIELDS = ["document_id", "document_name", "mime_type", "created_at", "chunk_index"] as const;
export type BuiltinFilterField = (typeof BUILTIN_FILTER_FIELDS)[number];

/**
 * A document attribute's key. S3 Vectors keeps it as the metadata key `a_<key>` (no collision with the built-in
 * fields; 63 characters at most, the length S3 Vectors checks metadata keys at), and a key needs no quoting in
 * either engine: no dots (a path separator in S3 Vectors filters), no quotes.
 */
export const ATTRIBUTE_KEY_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,59}$/;
export const AttributeKey = z.string().regex(ATTRIBUTE_KEY_PATTERN, "an attribute key is 1 to 60 letters, digits, '_' or '-', not starting with '-'");

/** `document_name`, … or `attributes.<key>`. */
export const FilterField = z.union([
  z.enum(BUILTIN_FILTER_FIELDS),
  z.string().regex(/^attributes\.[A-Za-z0-9_][A-Za-z0-9_-]{0,59}$/, "a field is one of document_id, document_name, mime_type, created_at, chunk_index or attributes.<key>"),
]);
export type FilterField = z.infer<typeof FilterField>;

/** The longest string a filter or an attribute may hold (the filterable metadata of a chunk is 2 KB in all). */
export const MAX_FILTER_STRING = 1024;
export const FilterScalar = z.union([z.string().max(MAX_FILTER_STRING), z.number().finite(), z.boolean()]);
export type FilterScalar = z.infer<typeof FilterScalar>;

/** Nesting and size bounds: S3 Vectors' enhanced indexes take at most 100 filter constraints. */
export const MAX_FILTER_DEPTH = 8;
export const MAX_FILTER_LIST = 50;

export type VectorFilter =
  | { op: "eq" | "ne"; field: FilterField; value: FilterScalar }
  | { op: "gt" | "gte" | "lt" | "lte"; field: FilterField; value: number }
  | { op: "in" | "nin"; field: FilterField; values: FilterScalar[] }
  | { op: "exists"; field: FilterField }
  | { op: "and" | "or"; filters: VectorFilter[] }
  | { op: "not"; filter: VectorFilter };

export const VectorFilter: z.ZodType<VectorFilter> = z.lazy(() =>
  z.discriminatedUnion("op", [
    z.strictObject({ op: z.enum(["eq", "ne"]), field: FilterField, value: FilterScalar }),
    z.strictObject({ op: z.enum(["gt", "gte", "lt", "lte"]), field: FilterField, value: z.number().finite() }),
    z.strictObject({ op: z.enum(["in", "nin"]), field: FilterField, values: z.array(FilterScalar).min(1).max(MAX_FILTER_LIST) }),
    z.strictObject({ op: z.literal("exists"), field: FilterField }),
    z.strictObject({ op: z.enum(["and", "or"]), filters: z.array(VectorFilter).min(1).max(MAX_FILTER_LIST) }),
    z.strictObject({ op: z.literal("not"), filter: VectorFilter }),
  ]),
);

/** A document attribute's value as the store keeps it: one scalar per key. */
export const AttributeValue = FilterScalar;
export const Attributes = z.record(AttributeKey, AttributeValue);
export type Attributes = z.infer<typeof Attributes>;

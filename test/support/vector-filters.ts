/**
 * The vector filter language's meaning, written once as a plain evaluator over a chunk's metadata
 * (docs/vector-search.md, "Filters"), and fast-check arbitraries of filters and chunks: both engines'
 * compiled filters are held to this evaluator (test/unit/vectors/).
 */
import fc from "fast-check";
import type { ChunkMetadata } from "../../shared/domain/vector-filter.js";
import type { FilterScalar, VectorFilter } from "../../shared/schemas/vector-search.js";

/** Strings that try to leave a quoted SQL literal or a JSON string. */
export const HOSTILE_STRINGS = ["it's", "'", "''", "\\", "\\'", "a' OR '1'='1", "x'); DROP TABLE t; --", "\u0000", "line\nbreak", "`id`", '"', "é😀", "%_", "${x}"];

export const hostileString: fc.Arbitrary<string> = fc.oneof(fc.constantFrom(...HOSTILE_STRINGS), fc.string({ maxLength: 12 }), fc.string({ unit: "grapheme", maxLength: 6 }));

function fieldValue(chunk: ChunkMetadata, field: string): FilterScalar | undefined {
  switch (field) {
    case "document_id":
      return chunk.documentId;
    case "chunk_index":
      return chunk.chunkIndex;
    case "created_at":
      return chunk.createdAt;
    case "document_name":
      return chunk.documentName ?? undefined;
    case "mime_type":
      return chunk.mimeType ?? undefined;
    default:
      return chunk.attributes?.[field.slice("attributes.".length)];
  }
}

/** Whether the chunk passes the filter, by the language's rules (negate: under an odd number of `not`). */
export function matches(filter: VectorFilter, chunk: ChunkMetadata, negate = false): boolean {
  switch (filter.op) {
    case "and":
      return negate ? filter.filters.some((f) => matches(f, chunk, true)) : filter.filters.every((f) => matches(f, chunk));
    case "or":
      return negate ? filter.filters.every((f) => matches(f, chunk, true)) : filter.filters.some((f) => matches(f, chunk));
    case "not":
      return matches(filter.filter, chunk, !negate);
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const v = fieldValue(chunk, filter.field);
      const holds = (op: string, x: number) => (op === "gt" ? x > filter.value : op === "gte" ? x >= filter.value : op === "lt" ? x < filter.value : x <= filter.value);
      // A range comparison's negation: absent, or the other way (a non-number matches neither).
      if (negate) return v === undefined || (typeof v === "number" && !holds(filter.op, v));
      return typeof v === "number" && holds(filter.op, v);
    }
    default: {
      const v = fieldValue(chunk, filter.field);
      const plain =
        filter.op === "exists"
          ? v !== undefined
          : filter.op === "eq"
            ? v === filter.value
            : filter.op === "ne"
              ? v !== filter.value
              : filter.op === "in"
                ? filter.values.some((x) => x === v)
                : !(filter as { values: FilterScalar[] }).values.some((x) => x === v);
      return plain !== negate;
    }
  }
}

/** A small world of values so that random filters and random chunks meet often. */
const ATTRIBUTE_KEYS = ["author", "year", "draft", "team"];
const STRINGS = ["alpha", "beta", "it's", "\\", "a' OR '1'='1"];
const NUMBERS = [-1.5, 0, 1, 2, 2020, 2024];
export const scalar: fc.Arbitrary<FilterScalar> = fc.oneof(fc.constantFrom(...STRINGS), fc.constantFrom(...NUMBERS), fc.boolean());

const stringField = fc.constantFrom("document_name", "mime_type", "document_id");
const numberField = fc.constantFrom("created_at", "chunk_index");
const attributeField = fc.constantFrom(...ATTRIBUTE_KEYS.map((k) => `attributes.${k}`));

const leaf: fc.Arbitrary<VectorFilter> = fc.oneof(
  fc.record({ op: fc.constantFrom("eq" as const, "ne" as const), field: attributeField, value: scalar }),
  fc.record({ op: fc.constantFrom("eq" as const, "ne" as const), field: stringField, value: fc.constantFrom(...STRINGS, "doc-1", "text/plain") }),
  fc.record({ op: fc.constantFrom("eq" as const, "ne" as const), field: numberField, value: fc.constantFrom(...NUMBERS) }),
  fc.record({ op: fc.constantFrom("gt" as const, "gte" as const, "lt" as const, "lte" as const), field: fc.oneof(attributeField, numberField), value: fc.constantFrom(...NUMBERS) }),
  fc.record({ op: fc.constantFrom("in" as const, "nin" as const), field: attributeField, values: fc.array(scalar, { minLength: 1, maxLength: 4 }) }),
  fc.record({ op: fc.constantFrom("in" as const, "nin" as const), field: stringField, values: fc.array(fc.constantFrom(...STRINGS, "doc-1", "text/plain"), { minLength: 1, maxLength: 3 }) }),
  fc.record({ op: fc.constant("exists" as const), field: fc.oneof(attributeField, stringField, numberField) }),
);

export const vectorFilter: fc.Arbitrary<VectorFilter> = fc.letrec<{ filter: VectorFilter }>((tie) => ({
  filter: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.record({ op: fc.constantFrom("and" as const, "or" as const), filters: fc.array(tie("filter"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ op: fc.constant("not" as const), filter: tie("filter") }),
  ),
})).filter;

export const chunkMetadata: fc.Arbitrary<ChunkMetadata> = fc.record({
  documentId: fc.constantFrom("doc-1", "doc-2", "it's"),
  chunkIndex: fc.integer({ min: 0, max: 3 }),
  text: fc.string({ maxLength: 20 }),
  documentName: fc.option(fc.constantFrom(...STRINGS), { nil: null }),
  mimeType: fc.option(fc.constantFrom("text/plain", "application/pdf"), { nil: null }),
  createdAt: fc.constantFrom(...NUMBERS),
  attributes: fc.dictionary(fc.constantFrom(...ATTRIBUTE_KEYS), scalar, { maxKeys: 4 }),
});

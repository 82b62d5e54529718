import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MAX_FILTER_CONSTRAINTS,
  checkChunk,
  countS3Constraints,
  normalizeFilter,
  sqlNumber,
  sqlString,
  toLanceWhere,
  toS3Filter,
  type ChunkMetadata,
  type S3Filter,
} from "../../../shared/domain/vector-filter.js";
import { Unprocessable } from "../../../shared/domain/errors.js";
import { VectorFilter } from "../../../shared/schemas/vector-search.js";
import { chunkMetadata, hostileString, matches, vectorFilter } from "../../support/vector-filters.js";

const compile = (filter: unknown) => normalizeFilter(VectorFilter.parse(filter));

/** S3 Vectors' documented operators, evaluated on a chunk's metadata as the adapter writes it. */
function s3Metadata(chunk: ChunkMetadata): Record<string, unknown> {
  const m: Record<string, unknown> = { document_id: chunk.documentId, chunk_index: chunk.chunkIndex, created_at: chunk.createdAt };
  if (chunk.documentName != null) m.document_name = chunk.documentName;
  if (chunk.mimeType != null) m.mime_type = chunk.mimeType;
  for (const [k, v] of Object.entries(chunk.attributes ?? {})) m[`a_${k}`] = v;
  return m;
}

/**
 * A model of S3 Vectors' filter evaluation. The documentation does not say whether $ne/$nin match a vector without
 * the key: `missingMatchesNegatives` plays both readings, and the compiled filter must mean the same under each.
 */
function s3Matches(filter: S3Filter, m: Record<string, unknown>, missingMatchesNegatives: boolean): boolean {
  return Object.entries(filter).every(([key, cond]) => {
    if (key === "$and") return (cond as S3Filter[]).every((f) => s3Matches(f, m, missingMatchesNegatives));
    if (key === "$or") return (cond as S3Filter[]).some((f) => s3Matches(f, m, missingMatchesNegatives));
    const v = m[key];
    const [[op, arg]] = Object.entries(cond as Record<string, unknown>) as [[string, unknown]];
    const present = v !== undefined;
    switch (op) {
      case "$eq":
        return v === arg;
      case "$ne":
        return present ? v !== arg : missingMatchesNegatives;
      case "$in":
        return (arg as unknown[]).includes(v);
      case "$nin":
        return present ? !(arg as unknown[]).includes(v) : missingMatchesNegatives;
      case "$exists":
        return present === arg;
      case "$gt":
        return typeof v === "number" && v > (arg as number);
      case "$gte":
        return typeof v === "number" && v >= (arg as number);
      case "$lt":
        return typeof v === "number" && v < (arg as number);
      case "$lte":
        return typeof v === "number" && v <= (arg as number);
      default:
        throw new Error(`not an S3 Vectors operator: ${op}`);
    }
  });
}

const S3_OPERATORS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$and", "$or"]);
function operatorsOf(filter: unknown): string[] {
  if (Array.isArray(filter)) return filter.flatMap(operatorsOf);
  if (!filter || typeof filter !== "object") return [];
  return Object.entries(filter).flatMap(([k, v]) => [...(k.startsWith("$") ? [k] : []), ...operatorsOf(v)]);
}

describe("the filter schema", () => {
  it("takes the operators of the language and refuses others", () => {
    expect(VectorFilter.safeParse({ op: "eq", field: "mime_type", value: "application/pdf" }).success).toBe(true);
    expect(VectorFilter.safeParse({ op: "and", filters: [{ op: "exists", field: "attributes.author" }, { op: "not", filter: { op: "gt", field: "created_at", value: 5 } }] }).success).toBe(true);
    expect(VectorFilter.safeParse({ op: "regex", field: "mime_type", value: ".*" }).success).toBe(false);
    expect(VectorFilter.safeParse({ op: "eq", field: "mime_type", value: "x", extra: 1 }).success).toBe(false);
  });

  it("refuses a range comparison of a string, an empty list, a non-finite number and an unknown field", () => {
    expect(VectorFilter.safeParse({ op: "gt", field: "created_at", value: "2024" }).success).toBe(false);
    expect(VectorFilter.safeParse({ op: "in", field: "mime_type", values: [] }).success).toBe(false);
    expect(VectorFilter.safeParse({ op: "eq", field: "created_at", value: Number.NaN }).success).toBe(false);
    expect(VectorFilter.safeParse({ op: "eq", field: "text", value: "x" }).success).toBe(false);
    expect(VectorFilter.safeParse({ op: "eq", field: "attributes.a.b", value: "x" }).success).toBe(false);
    expect(VectorFilter.safeParse({ op: "eq", field: "attributes.it's", value: "x" }).success).toBe(false);
  });
});

describe("normalizeFilter", () => {
  it("pushes negations to the leaves, as S3 Vectors has no $not", () => {
    expect(compile({ op: "not", filter: { op: "and", filters: [{ op: "eq", field: "mime_type", value: "a" }, { op: "in", field: "attributes.k", values: [1, 2] }] } })).toStrictEqual({
      op: "or",
      filters: [
        { op: "ne", field: "mime_type", value: "a" },
        { op: "nin", field: "attributes.k", values: [1, 2] },
      ],
    });
    expect(compile({ op: "not", filter: { op: "not", filter: { op: "exists", field: "attributes.k" } } })).toStrictEqual({ op: "exists", field: "attributes.k" });
  });

  it("negates a range comparison as the other way or absent (always present fields: the other way)", () => {
    expect(compile({ op: "not", filter: { op: "gt", field: "attributes.year", value: 2020 } })).toStrictEqual({
      op: "or",
      filters: [
        { op: "lte", field: "attributes.year", value: 2020 },
        { op: "missing", field: "attributes.year" },
      ],
    });
    expect(compile({ op: "not", filter: { op: "gte", field: "created_at", value: 10 } })).toStrictEqual({ op: "lt", field: "created_at", value: 10 });
  });

  it("refuses a built-in field compared with a value of another type, as a 422 pointing into the filter", () => {
    const attempt = () => compile({ op: "and", filters: [{ op: "eq", field: "created_at", value: "yesterday" }] });
    expect(attempt).toThrow(Unprocessable);
    try {
      attempt();
    } catch (error) {
      expect((error as Unprocessable).detail[0]!.loc).toStrictEqual(["body", "filter", "filters", 0, "value"]);
    }
    expect(() => compile({ op: "lt", field: "document_name", value: 3 })).toThrow(/compares numbers and document_name holds strings/);
    // The tool's arguments put the filter elsewhere: the caller names the root of `loc`.
    try {
      normalizeFilter({ op: "in", field: "chunk_index", values: [1, "2"] }, ["tool", "filter"]);
      expect.unreachable();
    } catch (error) {
      expect((error as Unprocessable).detail[0]!.loc).toStrictEqual(["tool", "filter", "values", 1]);
    }
  });

  it("refuses a filter deeper than the bound", () => {
    let filter: unknown = { op: "exists", field: "attributes.k" };
    for (let i = 0; i < 9; i++) filter = { op: "not", filter };
    expect(() => compile(filter)).toThrow(/nests deeper than 8/);
  });

  it("refuses a filter that spells out to more than S3 Vectors' 100 constraints", () => {
    const ne = (i: number) => ({ op: "ne", field: `attributes.k${i}`, value: i });
    expect(() => compile({ op: "and", filters: Array.from({ length: 50 }, (_, i) => ne(i)) })).not.toThrow();
    expect(() => compile({ op: "and", filters: [{ op: "and", filters: Array.from({ length: 50 }, (_, i) => ne(i)) }, ne(50)] })).toThrow(
      new RegExp(`102 conditions.*at most ${MAX_FILTER_CONSTRAINTS}`),
    );
  });
});

describe("toS3Filter", () => {
  it("emits S3 Vectors' operators with attributes under a_<key>, spelling out absence for ne and nin", () => {
    expect(toS3Filter(compile({ op: "eq", field: "mime_type", value: "application/pdf" }))).toStrictEqual({ mime_type: { $eq: "application/pdf" } });
    expect(toS3Filter(compile({ op: "ne", field: "attributes.author", value: "x" }))).toStrictEqual({ $or: [{ a_author: { $ne: "x" } }, { a_author: { $exists: false } }] });
    expect(toS3Filter(compile({ op: "nin", field: "document_id", values: ["d1"] }))).toStrictEqual({ document_id: { $nin: ["d1"] } });
    expect(toS3Filter(compile({ op: "and", filters: [{ op: "gte", field: "created_at", value: 1 }, { op: "exists", field: "attributes.draft" }] }))).toStrictEqual({
      $and: [{ created_at: { $gte: 1 } }, { a_draft: { $exists: true } }],
    });
  });

  it("uses only the operators S3 Vectors supports, and counts constraints within the quota", () => {
    fc.assert(
      fc.property(vectorFilter, (filter) => {
        const s3 = toS3Filter(normalizeFilter(filter));
        for (const op of operatorsOf(s3)) expect(S3_OPERATORS.has(op), op).toBe(true);
        expect(countS3Constraints(s3)).toBeLessThanOrEqual(MAX_FILTER_CONSTRAINTS);
      }),
    );
  });

  it("means what the language means, whichever way S3 Vectors reads $ne of a missing key", () => {
    fc.assert(
      fc.property(vectorFilter, fc.array(chunkMetadata, { minLength: 1, maxLength: 8 }), fc.boolean(), (filter, chunks, missingMatches) => {
        const s3 = toS3Filter(normalizeFilter(filter));
        for (const chunk of chunks) expect(s3Matches(s3, s3Metadata(chunk), missingMatches), JSON.stringify({ filter, chunk })).toBe(matches(filter, chunk));
      }),
      { numRuns: 500 },
    );
  });

  it("carries hostile strings as plain JSON values, never as keys or operators", () => {
    fc.assert(
      fc.property(hostileString, (value) => {
        const s3 = toS3Filter(compile({ op: "eq", field: "attributes.k", value }));
        expect(s3).toStrictEqual({ a_k: { $eq: value } });
      }),
    );
  });
});

/** The SQL tokens of a where clause: quoted literals are one token each (`''` inside is a quote). */
function sqlTokens(sql: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < sql.length) {
    if (sql[i] === "'") {
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) throw new Error(`unterminated literal in ${sql}`);
        if (sql[j] === "'" && sql[j + 1] === "'") j += 2;
        else if (sql[j] === "'") break;
        else j++;
      }
      tokens.push(sql.slice(i, j + 1));
      i = j + 1;
    } else if (/\s/.test(sql[i]!)) i++;
    else {
      const m = /^(?:[A-Za-z_][A-Za-z0-9_]*|`[a-z_]+`|\(?-?\d+(?:\.\d+)?(?:e[+-]?\d+)?\)?|<=|>=|[(),=<>])/.exec(sql.slice(i));
      if (!m) throw new Error(`unexpected SQL at ${i}: ${sql.slice(i, i + 20)}`);
      tokens.push(m[0]);
      i += m[0].length;
    }
  }
  return tokens;
}

describe("toLanceWhere", () => {
  it("quotes a string as one literal, doubling quotes, whatever it holds", () => {
    fc.assert(
      fc.property(hostileString, (value) => {
        const literal = sqlString(value);
        expect(sqlTokens(literal)).toStrictEqual([literal]);
        expect(literal.slice(1, -1).replaceAll("''", "'")).toBe(value);
      }),
    );
  });

  it("keeps every value of a filter inside literals: the SQL's words are only the compiler's", () => {
    const words = new Set(["AND", "OR", "NOT", "IN", "IS", "NULL", "TRUE", "FALSE", "CAST", "AS", "BIGINT", "coalesce", "array_element", "array_position", "array_has"]);
    fc.assert(
      fc.property(vectorFilter, hostileString, (filter, hostile) => {
        const withHostile = JSON.parse(JSON.stringify(filter).replaceAll('"alpha"', JSON.stringify(hostile))) as typeof filter;
        for (const token of sqlTokens(toLanceWhere(normalizeFilter(withHostile)))) {
          if (/^[A-Za-z_]/.test(token)) expect(words.has(token) || /^attr_(?:keys|str_keys|str_values|num_keys|num_values|bool_keys|bool_values)$/.test(token), token).toBe(true);
        }
      }),
    );
  });

  it("writes numbers as SQL numbers and refuses what is not finite", () => {
    expect(sqlNumber(2024)).toBe("2024");
    expect(sqlNumber(-1.5)).toBe("(-1.5)");
    expect(sqlNumber(1e21)).toBe("1e+21");
    expect(sqlNumber(-0)).toBe("0");
    expect(() => sqlNumber(Number.POSITIVE_INFINITY)).toThrow();
  });

  it("reads an attribute from its typed key and value lists", () => {
    expect(toLanceWhere(compile({ op: "gt", field: "attributes.year", value: 2020 }))).toBe("coalesce(array_element(attr_num_values, CAST(array_position(attr_num_keys, 'year') AS BIGINT)) > 2020, FALSE)");
    expect(toLanceWhere(compile({ op: "exists", field: "document_name" }))).toBe("`document_name` IS NOT NULL");
  });
});

describe("checkChunk", () => {
  const chunk = (over: Partial<ChunkMetadata> = {}): ChunkMetadata => ({ documentId: "d", chunkIndex: 0, text: "t", createdAt: 1, ...over });

  it("keeps S3 Vectors' per-vector limits in both engines: filterable 2 KB, 40 KB in all, 50 keys", () => {
    expect(() => checkChunk(chunk(), [1, 0], 2)).not.toThrow();
    expect(() => checkChunk(chunk({ attributes: { a: "x".repeat(1000), b: "y".repeat(1000), c: "z".repeat(100) } }), [1], 1)).toThrow(/filterable metadata .* more than 2048/);
    expect(() => checkChunk(chunk({ text: "x".repeat(41 * 1024) }), [1], 1)).toThrow(/more than 40960/);
    expect(() => checkChunk(chunk({ attributes: Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`k${i}`, i])) }), [1], 1)).toThrow(/at most 44 attributes/);
  });

  it("refuses a vector of another dimension or with a value that is not finite", () => {
    expect(() => checkChunk(chunk(), [1, 2, 3], 2)).toThrow(/3 dimensions, the index 2/);
    expect(() => checkChunk(chunk(), [1, Number.NaN], 2)).toThrow(/value 1 is not a finite number/);
  });
});

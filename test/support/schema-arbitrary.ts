/**
 * fast-check arbitraries from a route's zod schemas (through their JSON Schema): values the schema takes,
 * and the ways a client or an attacker gets them wrong. The ring (test/fuzz/) sends both.
 */
import fc from "fast-check";
import * as z from "zod";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  pattern?: string;
  format?: string;
  enum?: Json[];
  const?: Json;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  default?: Json;
}

export const toJsonSchema = (schema: z.ZodType): JsonSchema => z.toJSONSchema(schema, { io: "input", unrepresentable: "any", cycles: "ref", reused: "inline" }) as JsonSchema;

/** Field names whose valid values the generator should draw from real ones (a catalog model, a fixture's id). */
export type Hints = Record<string, fc.Arbitrary<Json>>;

const MAX_DEPTH = 4;
const safeInt = (n: number | undefined, fallback: number) => (n === undefined || !Number.isFinite(n) ? fallback : n);

/** Values valid for `schema` (mostly: refinements zod adds beyond JSON Schema are filtered by the caller). */
export function valid(schema: JsonSchema, hints: Hints = {}, root: JsonSchema = schema, depth = 0): fc.Arbitrary<Json> {
  if (schema.$ref) {
    const name = schema.$ref.replace(/^#\/\$defs\//, "");
    const target = schema.$ref === "#" ? root : root.$defs?.[name];
    if (!target || depth >= MAX_DEPTH) return fc.constant(null);
    return valid(target, hints, root, depth + 1);
  }
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return fc.oneof(...union.map((s) => valid(s, hints, root, depth + 1)));
  if (schema.allOf?.length) return valid(Object.assign({}, ...schema.allOf), hints, root, depth);
  const type = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : undefined;
  if (type && type.length > 1) return fc.oneof(...type.map((t) => valid({ ...schema, type: t }, hints, root, depth)));
  switch (type?.[0]) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer": {
      const min = Math.ceil(safeInt(schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : schema.minimum, -1000));
      const max = Math.floor(safeInt(schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : schema.maximum, 1_000_000));
      return fc.oneof(fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) }), fc.constantFrom(min, max).filter((n) => Number.isSafeInteger(n)));
    }
    case "number": {
      const min = safeInt(schema.minimum ?? schema.exclusiveMinimum, -1e6);
      const max = safeInt(schema.maximum ?? schema.exclusiveMaximum, 1e6);
      return fc
        .double({ min, max, noNaN: true, noDefaultInfinity: true, minExcluded: schema.exclusiveMinimum !== undefined, maxExcluded: schema.exclusiveMaximum !== undefined })
        .map((n) => (Object.is(n, -0) ? 0 : n));
    }
    case "string":
      return validString(schema);
    case "array": {
      const item = schema.items ? valid(schema.items, hints, root, depth + 1) : json(2);
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 3, depth >= MAX_DEPTH ? minLength : 3));
      return fc.array(item, { minLength, maxLength });
    }
    case "object":
      return validObject(schema, hints, root, depth);
    default:
      return json(2);
  }
}

function validString(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, Math.max(minLength, 40));
  if (schema.format === "uuid") return fc.uuid({ version: 4 });
  if (schema.format === "date-time") return fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString());
  if (schema.format === "base64") return fc.uint8Array({ maxLength: 30 }).map((b) => Buffer.from(b).toString("base64"));
  if (schema.pattern) {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity));
  }
  return fc.string({ minLength, maxLength, unit: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789 _-.") }, { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }) }) });
}

function validObject(schema: JsonSchema, hints: Hints, root: JsonSchema, depth: number): fc.Arbitrary<Json> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const record: Record<string, fc.Arbitrary<Json>> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (depth >= MAX_DEPTH && !required.has(name)) continue;
    record[name] = hints[name] ? fc.oneof({ weight: 3, arbitrary: hints[name] }, { weight: 1, arbitrary: valid(property, hints, root, depth + 1) }) : valid(property, hints, root, depth + 1);
  }
  const known = fc.record(record, { requiredKeys: [...required].filter((name) => name in record) }) as fc.Arbitrary<Record<string, Json>>;
  const extra = schema.additionalProperties;
  if (!schema.properties && extra && typeof extra === "object") {
    return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), valid(extra, hints, root, depth + 1), { maxKeys: 3 });
  }
  if (!schema.properties && extra !== false) return depth >= MAX_DEPTH ? fc.constant({}) : fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), json(1), { maxKeys: 3 });
  return known;
}

/** Any JSON value, `depth` levels deep at most. */
export const json = (depth: number): fc.Arbitrary<Json> =>
  fc.jsonValue({ maxDepth: depth }).map((v) => JSON.parse(JSON.stringify(v)) as Json);

/** Strings a careless or hostile client sends: control characters, lone surrogates, RTL marks, NULs, shell and path tricks. */
export const hostileString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\u0000\u0001\u001f\u007f",
    "\ud800",
    "\udfff\ud800",
    "\u202eevil",
    "\ufeff",
    "../../../etc/passwd",
    "..%2f..%2f",
    "%00",
    "' OR '1'='1",
    "${jndi:ldap://x}",
    "<script>alert(1)</script>",
    "🧨".repeat(50),
    "ǅ̴̡͎̿",
    "null",
    "undefined",
    "NaN",
    "-1",
    "1e309",
    "0x10",
    "WS#other",
    "#COUNT#workspace",
  ),
);

/** Sizes around what DynamoDB (2048/1024-byte keys, 400 KB items), API Gateway (10 MB) and Lambda (6 MB) take. */
export const hugeLength = fc.constantFrom(1025, 2049, 70_000, 410_000, 1_200_000, 3_500_000);

/** A value nested `levels` deep, in objects and arrays (DynamoDB stops at 32). */
export const nested = (levels: number, leaf: Json = "x", kind: "object" | "array" | "mixed" = "mixed"): Json => {
  let value: Json = leaf;
  for (let i = 0; i < levels; i += 1) value = kind === "array" || (kind === "mixed" && i % 2) ? [value] : { a: value };
  return value;
};

/** A value of another JSON type than the schema wants. */
export function wrongTyped(schema: JsonSchema): fc.Arbitrary<Json> {
  const types = new Set((Array.isArray(schema.type) ? schema.type : [schema.type]).filter(Boolean) as string[]);
  for (const alternative of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    for (const t of Array.isArray(alternative.type) ? alternative.type : [alternative.type]) if (t) types.add(t);
  }
  const candidates: [string, fc.Arbitrary<Json>][] = [
    ["string", fc.string({ maxLength: 5 })],
    ["number", fc.double({ noNaN: true, noDefaultInfinity: true })],
    ["integer", fc.integer()],
    ["boolean", fc.boolean()],
    ["object", fc.constant({ unexpected: true })],
    ["array", fc.constant([1, "two", null])],
    ["null", fc.constant(null)],
  ];
  const others = candidates.filter(([t]) => !types.has(t) && !(t === "integer" && types.has("number")) && !(t === "number" && types.has("integer")));
  return others.length ? fc.oneof(...others.map(([, a]) => a)) : fc.constant({ unexpected: true });
}

/** A number outside the schema's range (or a non-integer for an integer). */
export function outOfRange(schema: JsonSchema): fc.Arbitrary<Json> | undefined {
  const options: Json[] = [];
  if (schema.minimum !== undefined) options.push(schema.minimum - 1);
  if (schema.exclusiveMinimum !== undefined) options.push(schema.exclusiveMinimum);
  if (schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER) options.push(schema.maximum + 1);
  if (schema.exclusiveMaximum !== undefined) options.push(schema.exclusiveMaximum);
  if (schema.type === "integer") options.push(1.5, 2 ** 53 + 2, -(2 ** 63));
  if (schema.type === "number") options.push(1e308 * 10 > 1e308 ? 1.7e308 : 0);
  if (schema.maxItems !== undefined && schema.maxItems < 20_000) options.push(Array.from({ length: schema.maxItems + 1 }, () => null));
  if (schema.maxLength !== undefined && schema.maxLength < 300_000) options.push("y".repeat(schema.maxLength + 1));
  if (schema.minLength) options.push("");
  return options.length ? fc.constantFrom(...options) : undefined;
}

/** The schema of an object's property, following `anyOf` alternatives and refs to the first object-shaped one. */
export function propertiesOf(schema: JsonSchema, root: JsonSchema): Record<string, JsonSchema> {
  const resolved = schema.$ref ? root.$defs?.[schema.$ref.replace(/^#\/\$defs\//, "")] ?? {} : schema;
  if (resolved.properties) return resolved.properties;
  for (const alternative of [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])]) {
    const found = propertiesOf(alternative, root);
    if (Object.keys(found).length) return found;
  }
  return {};
}

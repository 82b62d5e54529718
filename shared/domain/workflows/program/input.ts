import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsPlugin from "ajv-formats";
import { isRecord } from "./types.js";

/**
 * A workflow's input checked against its `input_schema`: Pydantic's `model_json_schema()`, i.e. JSON Schema
 * 2020-12 (reference/workflows.md §1.2). Issues come in FastAPI's 422 `detail` form, under `body.input`.
 */
export interface InputIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

// ajv-formats is CommonJS: its module object is the plugin, which also carries itself as `default`.
const addFormats = addFormatsPlugin.default;

/** Compiled validators by schema text: a warm Lambda compiles each workflow's schema once. Bounded, oldest out. */
const validators = new Map<string, ValidateFunction>();
const VALIDATORS_KEPT = 100;

function newAjv(): Ajv2020 {
  // strict off: Pydantic writes keywords ajv's strict mode does not know (`discriminator`, titles in odd places).
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv;
}

function validatorFor(schema: object): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = validators.get(key);
  if (cached) return cached;
  // One Ajv per schema: a tenant's `$id` must not collide with another workflow's in a shared instance.
  const validate = newAjv().compile(schema);
  if (validators.size >= VALIDATORS_KEPT) validators.delete(validators.keys().next().value!);
  validators.set(key, validate);
  return validate;
}

/** The check of one workflow's input: `[]` when the value is valid. Throws if the schema does not compile (see checkInputSchema). */
export function compileInputSchema(schema: object): (value: unknown) => InputIssue[] {
  const validate = validatorFor(schema);
  return (value) => (validate(value) ? [] : (validate.errors ?? []).map((error) => inputIssue(error, value)));
}

/** Why a schema cannot check inputs (not JSON Schema 2020-12, or an unresolvable `$ref`); undefined when it can. */
export function checkInputSchema(schema: unknown): string | undefined {
  if (!isRecord(schema)) return "a JSON Schema here is an object";
  const ajv = newAjv();
  if (!ajv.validateSchema(schema)) return ajv.errorsText(ajv.errors, { dataVar: "schema" });
  try {
    validatorFor(schema);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The schemas of a workflow definition that cannot check inputs, located under `at`. Mistral's spec calls
 * `input_schema` an array; its OpenAPI and SDK send an object (a JSON Schema), and only an object is accepted.
 */
export function definitionSchemaIssues(definition: unknown, at: readonly (string | number)[] = ["body", "definition"]): InputIssue[] {
  if (!isRecord(definition)) return [{ loc: [...at], msg: "Input should be a valid dictionary", type: "dict_type" }];
  const issues: InputIssue[] = [];
  const check = (schema: unknown, loc: (string | number)[], required: boolean) => {
    if (schema === undefined || schema === null) {
      if (required) issues.push({ loc, msg: "Field required", type: "missing" });
      return;
    }
    if (!isRecord(schema)) return issues.push({ loc, msg: "Input should be a valid dictionary (a JSON Schema object)", type: "dict_type" });
    const why = checkInputSchema(schema);
    if (why) issues.push({ loc, msg: `Not a valid JSON Schema (2020-12): ${why}`, type: "value_error" });
  };
  check(definition.input_schema, [...at, "input_schema"], true);
  check(definition.output_schema, [...at, "output_schema"], false);
  for (const kind of ["signals", "queries", "updates"]) {
    const list = definition[kind];
    if (!Array.isArray(list)) continue;
    list.forEach((handler, i) => {
      if (!isRecord(handler)) return;
      check(handler.input_schema, [...at, kind, i, "input_schema"], true);
      if (kind !== "signals") check(handler.output_schema, [...at, kind, i, "output_schema"], false);
    });
  }
  return issues;
}

/** FastAPI's vocabulary for the common keywords, so a 422 on an input reads like one from Mistral's API. */
function inputIssue(error: ErrorObject, value: unknown): InputIssue {
  const loc: (string | number)[] = ["body", "input", ...instanceLocation(error.instancePath, value)];
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return { loc: [...loc, String(params.missingProperty)], msg: "Field required", type: "missing" };
    case "additionalProperties":
    case "unevaluatedProperties": {
      const extra = params.additionalProperty ?? params.unevaluatedProperty;
      return { loc: [...loc, String(extra)], msg: "Extra inputs are not permitted", type: "extra_forbidden" };
    }
    case "type": {
      const type = String(params.type).split(",")[0]!;
      const noun = TYPE_NOUNS[type] ?? type;
      return { loc, msg: `Input should be a valid ${noun}`, type: `${noun === "dictionary" ? "dict" : noun === "list" ? "list" : type}_type` };
    }
    default:
      return { loc, msg: capitalized(error.message ?? "is invalid"), type: KEYWORD_TYPES[error.keyword] ?? (error.keyword === "format" ? `${String(params.format)}_parsing` : "value_error") };
  }
}

const TYPE_NOUNS: Record<string, string> = { object: "dictionary", array: "list", string: "string", integer: "integer", number: "number", boolean: "boolean", null: "null" };
const KEYWORD_TYPES: Record<string, string> = {
  enum: "enum",
  const: "literal_error",
  minLength: "string_too_short",
  maxLength: "string_too_long",
  pattern: "string_pattern_mismatch",
  minimum: "greater_than_equal",
  exclusiveMinimum: "greater_than",
  maximum: "less_than_equal",
  exclusiveMaximum: "less_than",
  multipleOf: "multiple_of",
  minItems: "too_short",
  maxItems: "too_long",
  minProperties: "too_short",
  maxProperties: "too_long",
};

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A JSON pointer as FastAPI's loc: array indices are numbers, keys strings. */
function instanceLocation(pointer: string, value: unknown): (string | number)[] {
  if (pointer === "") return [];
  const loc: (string | number)[] = [];
  let node = value;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node)) {
      loc.push(Number(key));
      node = node[Number(key)];
    } else {
      loc.push(key);
      node = isRecord(node) ? node[key] : undefined;
    }
  }
  return loc;
}

import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { ValidationIssue } from "../../domain/errors.js";

/**
 * JSON Schema 2020-12 checks of an execution's input (`definition.input_schema`) and result
 * (`output_schema`), with FastAPI-style issues. Compiled schemas are kept per schema text: a warm
 * function compiles each registration's schema once.
 *
 * Provisional: the program compiler (shared/domain/workflows/program, `compileInputSchema`) owns this
 * check once it lands; this module then delegates to it.
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false, validateSchema: false }));
const compiled = new Map<string, ValidateFunction | null>();

function validatorOf(schema: Record<string, unknown>): ValidateFunction | null {
  const key = JSON.stringify(schema);
  if (!compiled.has(key)) {
    let validate: ValidateFunction | null;
    try {
      validate = ajv.compile(schema);
    } catch {
      // A schema ajv cannot compile was accepted at registration: nothing is checked against it.
      validate = null;
    }
    if (compiled.size > 500) compiled.clear();
    compiled.set(key, validate);
  }
  return compiled.get(key)!;
}

/** What is wrong with `value` under `schema`, each issue at `loc` plus the failing path. */
export function schemaIssues(schema: Record<string, unknown> | null | undefined, value: unknown, loc: (string | number)[]): ValidationIssue[] {
  if (!schema || Object.keys(schema).length === 0) return [];
  const validate = validatorOf(schema);
  if (!validate || validate(value)) return [];
  return (validate.errors ?? []).map((error) => {
    const path = error.instancePath
      .split("/")
      .slice(1)
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
      .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    if (error.keyword === "required") {
      return { loc: [...loc, ...path, String((error.params as { missingProperty: string }).missingProperty)], msg: "Field required", type: "missing" };
    }
    if (error.keyword === "additionalProperties") {
      return { loc: [...loc, ...path, String((error.params as { additionalProperty: string }).additionalProperty)], msg: "Extra inputs are not permitted", type: "extra_forbidden" };
    }
    return { loc: [...loc, ...path], msg: error.message ?? "Invalid value", type: error.keyword === "type" ? `${String((error.params as { type: string }).type)}_type` : "value_error" };
  });
}

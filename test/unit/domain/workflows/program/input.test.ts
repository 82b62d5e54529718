import { describe, expect, it } from "vitest";
import { checkInputSchema, compileInputSchema, definitionSchemaIssues } from "../../../../../shared/domain/workflows/program/index.js";

/** What Pydantic's model_json_schema() gives for `run(self, report_type: str, include_details: bool = False)` (reference §1.2). */
const runInput = {
  title: "run_Input",
  type: "object",
  properties: {
    report_type: { title: "Report Type", type: "string" },
    include_details: { default: false, title: "Include Details", type: "boolean" },
    recipients: { type: "array", items: { type: "object", properties: { email: { type: "string", format: "email" } }, required: ["email"] } },
  },
  required: ["report_type"],
  additionalProperties: false,
};

describe("a workflow's input checked against its input_schema", () => {
  const check = compileInputSchema(runInput);

  it("accepts a valid input", () => {
    expect(check({ report_type: "daily", include_details: true })).toStrictEqual([]);
  });

  it("reports a missing field at its location, as FastAPI does", () => {
    expect(check({})).toStrictEqual([{ loc: ["body", "input", "report_type"], msg: "Field required", type: "missing" }]);
  });

  it("reports an extra field and a wrong type", () => {
    expect(check({ report_type: 1, extra: true })).toStrictEqual([
      { loc: ["body", "input", "extra"], msg: "Extra inputs are not permitted", type: "extra_forbidden" },
      { loc: ["body", "input", "report_type"], msg: "Input should be a valid string", type: "string_type" },
    ]);
  });

  it("locates an issue inside a list by index", () => {
    expect(check({ report_type: "d", recipients: [{ email: "a@example.com" }, { email: "nope" }, {}] })).toStrictEqual([
      { loc: ["body", "input", "recipients", 1, "email"], msg: 'Must match format "email"', type: "email_parsing" },
      { loc: ["body", "input", "recipients", 2, "email"], msg: "Field required", type: "missing" },
    ]);
  });

  it("reports an input that is not an object", () => {
    expect(check([])).toStrictEqual([{ loc: ["body", "input"], msg: "Input should be a valid dictionary", type: "dict_type" }]);
  });

  it("compiles each schema once", () => {
    expect(compileInputSchema({ ...runInput })({})).toStrictEqual(check({}));
  });

  it("keeps schemas with the same $id apart", () => {
    const first = compileInputSchema({ $id: "https://example.com/input.json", type: "string" });
    const second = compileInputSchema({ $id: "https://example.com/input.json", type: "number" });

    expect([first("a"), second(1)]).toStrictEqual([[], []]);
  });
});

describe("schemas checked at registration", () => {
  it("accepts Pydantic's schemas, $defs and all", () => {
    const withDefs = { type: "object", $defs: { Item: { type: "object", properties: { n: { type: "integer" } } } }, properties: { item: { $ref: "#/$defs/Item" } } };

    expect(checkInputSchema(runInput)).toBeUndefined();
    expect(checkInputSchema(withDefs)).toBeUndefined();
  });

  it("says why a schema cannot check inputs", () => {
    expect(checkInputSchema({ type: "strin" })).toMatch(/type/);
    expect(checkInputSchema({ properties: { a: { $ref: "#/$defs/Missing" } } })).toMatch(/Missing/);
    expect(checkInputSchema([])).toBe("a JSON Schema here is an object");
  });

  it("accepts a definition whose schemas are objects", () => {
    const definition = { input_schema: runInput, output_schema: null, signals: [{ name: "go", input_schema: { type: "object" } }], queries: [{ name: "q", input_schema: {}, output_schema: { type: "string" } }] };

    expect(definitionSchemaIssues(definition)).toStrictEqual([]);
  });

  it("refuses an input_schema that is an array, as the spec's text has it", () => {
    expect(definitionSchemaIssues({ input_schema: [] }, ["body", "definitions", 0])).toStrictEqual([
      { loc: ["body", "definitions", 0, "input_schema"], msg: "Input should be a valid dictionary (a JSON Schema object)", type: "dict_type" },
    ]);
  });

  it("names each schema of the definition that is missing or invalid", () => {
    const issues = definitionSchemaIssues({ signals: [{ name: "s" }], updates: [{ name: "u", input_schema: { type: 3 } }] });

    expect(issues.map((issue) => [issue.loc.join("."), issue.type])).toStrictEqual([
      ["body.definition.input_schema", "missing"],
      ["body.definition.signals.0.input_schema", "missing"],
      ["body.definition.updates.0.input_schema", "value_error"],
    ]);
  });
});

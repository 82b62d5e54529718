import { describe, expect, it } from "vitest";
import { ApiError, Unprocessable } from "../../../shared/domain/errors.js";
import {
  canonicalJson,
  checkDefinition,
  checkSelectors,
  compilePatterns,
  definitionHash,
  detect,
  detectionOutcome,
  isAfter,
  MAX_SCANNED_CHARS,
  moderationOutcome,
  sourceFilter,
  targetText,
  targetTexts,
} from "../../../shared/domain/observability/pipelines.js";
import { messages } from "../../support/telemetry-rows.js";

const detection = (regex: string) => ({ target_attributes: ["input_messages"], patterns: [{ name: "p", regex, category: "c", confidence: "high" }] });
const issuesOf = (what: () => unknown): string[] => {
  try {
    what();
  } catch (error) {
    if (error instanceof Unprocessable) return error.detail.map((d) => `${d.loc.join(".")}: ${d.msg}`);
    throw error;
  }
  throw new Error("no error");
};

describe("checkDefinition", () => {
  it("takes each kind's own definition, filling moderation's model", () => {
    expect(checkDefinition("judge", { model: "m", prompt: "p" })).toEqual({ model: "m", prompt: "p" });
    expect(checkDefinition("moderation", {})).toEqual({ model: "mistral-moderation-latest" });
    expect(checkDefinition("detection", detection("\\d+"))).toEqual(detection("\\d+"));
  });

  it("refuses a definition of another kind, naming the field and the kind's shape", () => {
    const issues = issuesOf(() => checkDefinition("detection", { model: "m", prompt: "p" }));
    expect(issues.join("\n")).toContain("body.definition.target_attributes");
    expect(issues.join("\n")).toContain("{target_attributes, patterns");
    expect(issuesOf(() => checkDefinition("moderation", { model: "m", prompt: "p" })).join("\n")).toContain("prompt");
  });

  it("refuses what RE2 does not run (backreferences, lookaround) at the pattern's regex", () => {
    expect(issuesOf(() => checkDefinition("detection", detection("(x)\\1")))[0]).toMatch(/^body\.definition\.patterns\.0\.regex: .*RE2/);
    expect(issuesOf(() => checkDefinition("detection", detection("(?<!a)b"))).length).toBe(1);
  });

  it("refuses export pipelines with 422 FEATURE_NOT_SUPPORTED: this deployment runs none", () => {
    try {
      checkDefinition("export", { destination: { protocol: "http/json", endpoint: "https://collector.example" } });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(422);
      expect((error as ApiError).message).toContain("does not run export pipelines");
    }
  });
});

describe("checkSelectors", () => {
  it("parses each filter in its source's catalogue", () => {
    expect(checkSelectors([{ source_kind: "span", filter: "status_code = 'Error'" }, { source_kind: "log", filter: "severity_text = 'ERROR'" }, { source_kind: "span", filter: "  " }])).toEqual([
      { source_kind: "span", filter: "status_code = 'Error'" },
      { source_kind: "log", filter: "severity_text = 'ERROR'" },
      { source_kind: "span", filter: null },
    ]);
  });

  it("refuses a log filter naming a span field, and any metric source", () => {
    expect(issuesOf(() => checkSelectors([{ source_kind: "log", filter: "request_model = 'x'" }]))[0]).toMatch(/^body\.selectors\.0\.filter: filter of a log selector at position 0: unknown field/);
    expect(issuesOf(() => checkSelectors([{ source_kind: "metric", filter: null }]))[0]).toMatch(/^body\.selectors\.0\.source_kind: .*stores no metrics/);
  });
});

describe("sourceFilter", () => {
  it("ORs the selectors of a source and always leaves out the spans of sweeps' own model calls", () => {
    const filter = sourceFilter([{ source_kind: "span", filter: "status_code = 'Error'" }, { source_kind: "span", filter: "request_model = 'm'" }], "span");
    expect(filter).toMatchObject({ kind: "and", items: [{ kind: "or", items: [{ kind: "condition" }, { kind: "condition" }] }, { kind: "not", item: { kind: "condition", op: "like", values: ["evaluation pipeline%"] } }] });
    expect(sourceFilter([{ source_kind: "span", filter: null }], "span")).toMatchObject({ kind: "not" });
    expect(sourceFilter([{ source_kind: "log", filter: null }, { source_kind: "log", filter: "body = 'x'" }], "log")).toBeUndefined();
  });
});

describe("detect", () => {
  it("reports each pattern found per target, never the matched text", () => {
    const patterns = compilePatterns({ target_attributes: [], patterns: [{ name: "email", regex: "\\w+@\\w+\\.com", category: "pii", confidence: "high" }, { name: "card", regex: "\\b\\d{16}\\b", category: "pci", confidence: "medium" }] });
    const found = detect(patterns, [{ target: "input_messages", text: "mail a@b.com" }, { target: "output_messages", text: "nothing" }]);
    expect(found).toEqual([{ name: "email", category: "pii", confidence: "high", target: "input_messages" }]);
    expect(detectionOutcome(found)).toEqual({ score_value: 1, score_label: "detected", explanation: "email (pii, high) in input_messages", metadata: { patterns: "email", categories: "pii" } });
    expect(detectionOutcome([])).toMatchObject({ score_value: 0, score_label: "clean" });
  });

  it("runs a pattern that backtracking engines take exponential time on, over a long text, in linear time", () => {
    const patterns = compilePatterns(detection("(a+)+$"));
    const started = performance.now();
    expect(detect(patterns, [{ target: "t", text: `${"a".repeat(MAX_SCANNED_CHARS - 1)}b` }])).toEqual([]);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe("targetText", () => {
  const span = {
    input_messages: messages("user", "hello", "there"),
    output_messages: messages("assistant", "hi"),
    span_attributes: { "app.user": "ada", "gen_ai.system": "mistral_ai" },
    request_model: "m",
    duration_ns: 5,
  };

  it("reads message columns as their text, GenAI names, map keys, plain columns and bare attribute keys", () => {
    expect(targetText("span", span, "input_messages")).toBe("user: hello\nthere");
    expect(targetText("span", span, "gen_ai.output.messages")).toBe("assistant: hi");
    expect(targetText("span", span, "span_attributes['app.user']")).toBe("ada");
    expect(targetText("span", span, "app.user")).toBe("ada");
    expect(targetText("span", span, "request_model")).toBe("m");
    expect(targetText("span", span, "duration_ns")).toBe("5");
    expect(targetText("span", span, "no.such.attribute")).toBe("");
    expect(targetText("log", { body: "line", log_attributes: { k: "v" } }, "k")).toBe("v");
  });

  it("cuts the targets' texts to MAX_SCANNED_CHARS together", () => {
    const big = { body: "x".repeat(MAX_SCANNED_CHARS - 10), log_attributes: { a: "y".repeat(100), b: "z" } };
    const texts = targetTexts("log", big, ["body", "a", "b"]);
    expect(texts.map((t) => t.text.length)).toEqual([MAX_SCANNED_CHARS - 10, 10]);
  });
});

describe("moderationOutcome", () => {
  it("scores the highest category and lists the flagged ones", () => {
    const outcome = moderationOutcome("mod", [
      { categories: { hate: false, pii: true }, categoryScores: { hate: 0.1, pii: 0.9 } },
      { categories: { hate: true, pii: false }, categoryScores: { hate: 0.7, pii: 0 } },
    ]);
    expect(outcome).toEqual({ score_value: 0.9, score_label: "flagged", explanation: "Flagged: hate, pii", metadata: { moderation_model: "mod", categories: "hate,pii" } });
  });
});

describe("definitionHash", () => {
  it("is the SHA-256 of the canonical JSON: the same for the same definition whatever its keys' order", () => {
    expect(canonicalJson({ b: [2, { d: 1, c: null }], a: "x" })).toBe('{"a":"x","b":[2,{"c":null,"d":1}]}');
    expect(definitionHash({ prompt: "p", model: "m" })).toBe(definitionHash({ model: "m", prompt: "p" }));
    expect(definitionHash({ model: "m", prompt: "p" })).toMatch(/^[0-9a-f]{64}$/);
    expect(definitionHash({ model: "m", prompt: "q" })).not.toBe(definitionHash({ model: "m", prompt: "p" }));
  });
});

describe("isAfter (the watermark moves forward only)", () => {
  it("orders by time, then by id", () => {
    const at = (time: string, id: string) => ({ time, id });
    expect(isAfter(at("2026-01-01T00:00:01Z", ""), at("2026-01-01T00:00:00Z", "z"))).toBe(true);
    expect(isAfter(at("2026-01-01T00:00:00Z", "b"), at("2026-01-01T00:00:00Z", "a"))).toBe(true);
    expect(isAfter(at("2026-01-01T00:00:00Z", "a"), at("2026-01-01T00:00:00Z", "a"))).toBe(false);
    expect(isAfter(at("2025-12-31T23:59:59Z", "z"), at("2026-01-01T00:00:00Z", ""))).toBe(false);
  });
});

import { REFUSED_FIELDS } from "./fields.js";
import type { TemplateProblem } from "./templates.js";
import { isRecord } from "./types.js";

/** Every JSONPath comparator of a Choice rule (the `…Path` forms compare with another path of the input). */
const COMPARATORS = [
  "StringEquals", "StringLessThan", "StringGreaterThan", "StringLessThanEquals", "StringGreaterThanEquals", "StringMatches",
  "NumericEquals", "NumericLessThan", "NumericGreaterThan", "NumericLessThanEquals", "NumericGreaterThanEquals",
  "BooleanEquals",
  "TimestampEquals", "TimestampLessThan", "TimestampGreaterThan", "TimestampLessThanEquals", "TimestampGreaterThanEquals",
  "IsNull", "IsPresent", "IsNumeric", "IsString", "IsBoolean", "IsTimestamp",
];
const PATH_COMPARATORS = COMPARATORS.filter((c) => !c.startsWith("Is") && c !== "StringMatches").map((c) => `${c}Path`);
const RULE_FIELDS = new Set(["Variable", "And", "Or", "Not", "Comment", ...COMPARATORS, ...PATH_COMPARATORS]);

/**
 * What is wrong with one Choice rule (the top-level ones carry `Next`; the ones inside And/Or/Not do not). Types
 * of comparator values are left to asl-validator, which reads the compiled document.
 */
export function choiceRuleProblems(rule: unknown, path: (string | number)[], topLevel: boolean): TemplateProblem[] {
  if (!isRecord(rule)) return [{ rule: "structure", why: "a Choice rule must be an object", path }];
  const problems: TemplateProblem[] = [];
  for (const key of Object.keys(rule)) {
    const refused = REFUSED_FIELDS[key];
    if (refused) problems.push({ rule: refused.rule, why: `${key} is not allowed: ${refused.why}`, path: [...path, key] });
    else if (!RULE_FIELDS.has(key) && !(topLevel && key === "Next")) problems.push({ rule: "unknown-field", why: `${key} is not a field of a Choice rule`, path: [...path, key] });
  }
  if (topLevel && typeof rule.Next !== "string") problems.push({ rule: "structure", why: "a Choice rule needs Next", path: [...path, "Next"] });
  for (const key of ["And", "Or"] as const) {
    const nested = rule[key];
    if (nested === undefined) continue;
    if (!Array.isArray(nested) || nested.length === 0) problems.push({ rule: "structure", why: `${key} must be a non-empty list of rules`, path: [...path, key] });
    else nested.forEach((inner, i) => problems.push(...choiceRuleProblems(inner, [...path, key, i], false)));
  }
  if (rule.Not !== undefined) problems.push(...choiceRuleProblems(rule.Not, [...path, "Not"], false));
  return problems;
}

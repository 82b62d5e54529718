import { isRecord } from "./types.js";

/**
 * Payload templates (Parameters, ResultSelector, ItemSelector): a key ending in `.$` takes a path (`$.doc`,
 * `$$.Execution.Id`) or an intrinsic (`States.Format('{}', $.name)`); everything else is a literal.
 */
export const INTRINSICS = [
  "Format", "StringToJson", "JsonToString", "Array", "ArrayPartition", "ArrayContains", "ArrayRange", "ArrayGetItem",
  "ArrayLength", "ArrayUnique", "Base64Encode", "Base64Decode", "Hash", "JsonMerge", "MathRandom", "MathAdd",
  "StringSplit", "UUID",
] as const;

export interface TemplateProblem {
  rule: string;
  why: string;
  path: (string | number)[];
}

export function templateProblems(template: unknown, path: (string | number)[]): TemplateProblem[] {
  if (Array.isArray(template)) return template.flatMap((item, i) => templateProblems(item, [...path, i]));
  if (!isRecord(template)) return [];
  return Object.entries(template).flatMap(([key, value]) => {
    const at = [...path, key];
    if (!key.endsWith(".$")) return templateProblems(value, at);
    if (typeof value !== "string") return [{ rule: "structure", why: `${key} must be a path or an intrinsic (a string)`, path: at }];
    return expressionProblems(value, at);
  });
}

function expressionProblems(expression: string, path: (string | number)[]): TemplateProblem[] {
  // The token is the platform's: a worker gets an opaque task id, never the Step Functions token.
  if (/\$\$\.Task\b/.test(outsideQuotes(expression))) return [{ rule: "task-token", why: "$$.Task (the task token) is the platform's", path }];
  if (expression.startsWith("$")) return [];
  if (!expression.startsWith("States.")) return [{ rule: "structure", why: `'${expression}' is neither a path ($…) nor an intrinsic (States.…)`, path }];
  const unknown = [...outsideQuotes(expression).matchAll(/States\.([A-Za-z0-9]+)\s*\(/g)]
    .map((match) => match[1]!)
    .filter((name) => !(INTRINSICS as readonly string[]).includes(name));
  return unknown.map((name) => ({ rule: "intrinsic", why: `States.${name} is not an intrinsic function (known: ${INTRINSICS.map((n) => `States.${n}`).join(", ")})`, path }));
}

/** The expression with its quoted string arguments blanked, so text inside them is never read as code. */
function outsideQuotes(expression: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < expression.length; i++) {
    const c = expression[i]!;
    if (quoted && c === "\\") {
      out += "  ";
      i++;
    } else if (c === "'") {
      quoted = !quoted;
      out += c;
    } else out += quoted ? " " : c;
  }
  return out;
}

/**
 * The template rewritten so that its paths read from `base` (a reference path such as `$.doc`) instead of
 * from `$`: what InputPath would have done. Context paths (`$$.…`) and quoted text are left alone.
 */
export function rebaseTemplate(template: unknown, base: string): unknown {
  if (Array.isArray(template)) return template.map((item) => rebaseTemplate(item, base));
  if (!isRecord(template)) return template;
  return Object.fromEntries(
    Object.entries(template).map(([key, value]) => [key, key.endsWith(".$") && typeof value === "string" ? rebaseExpression(value, base) : rebaseTemplate(value, base)]),
  );
}

export function rebaseExpression(expression: string, base: string): string {
  const blanked = outsideQuotes(expression);
  let out = "";
  for (let i = 0; i < expression.length; i++) {
    if (blanked[i] === "$" && blanked[i + 1] === "$") {
      out += "$$";
      i++;
    } else out += blanked[i] === "$" ? base : expression[i];
  }
  return out;
}

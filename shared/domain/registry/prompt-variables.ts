import type { PromptDefinition } from "../../schemas/prompt.js";
import { Unprocessable } from "../errors.js";

/** A placeholder: a variable name in double braces, spaces inside the braces allowed (`{{ name }}`). */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

/** The variable names a template uses, each once, in order of first use. */
export function placeholdersOf(content: string): string[] {
  return [...new Set([...content.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/**
 * The definition as stored: `variables` derived from the placeholders when not given; when given,
 * they must name exactly the placeholders (none missing, none unused, none twice).
 */
export function withVariables(definition: PromptDefinition): Required<PromptDefinition> {
  const used = placeholdersOf(definition.content);
  if (!definition.variables) return { content: definition.content, variables: used.map((name) => ({ name })) };
  const declared = definition.variables.map((v) => v.name);
  const problems: string[] = [];
  const twice = declared.filter((name, i) => declared.indexOf(name) !== i);
  if (twice.length) problems.push(`declared more than once: ${[...new Set(twice)].join(", ")}`);
  const undeclared = used.filter((name) => !declared.includes(name));
  if (undeclared.length) problems.push(`used in content but not declared: ${undeclared.join(", ")}`);
  const unused = declared.filter((name) => !used.includes(name));
  if (unused.length) problems.push(`declared but not used in content: ${[...new Set(unused)].join(", ")}`);
  if (problems.length) {
    throw new Unprocessable([
      { loc: ["body", "definition", "variables"], msg: `Variables must match the {{placeholders}} of the content; ${problems.join("; ")}`, type: "value_error" },
    ]);
  }
  return { content: definition.content, variables: declared.map((name) => ({ name })) };
}

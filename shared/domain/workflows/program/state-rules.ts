import { choiceRuleProblems } from "./choice-rules.js";
import { CATCHER_FIELDS, COMMON_FIELDS, REFUSED_FIELDS, RETRIER_FIELDS, STATE_FIELDS, isStateType } from "./fields.js";
import { programIssue } from "./issues.js";
import { BUILTIN_PARAMETERS, parseResource } from "./resources.js";
import { templateProblems, type TemplateProblem } from "./templates.js";
import { isRecord, type JsonObject, type ProgramIssue } from "./types.js";

export interface StateContext {
  name: string;
  path: (string | number)[];
  /** A state of the program's own graph (not inside a Parallel branch or a Map). */
  topLevel: boolean;
  /** The activities the registering deployment declares; unset: any well-formed name. */
  activities?: readonly string[] | undefined;
}

/** Everything wrong with one state on its own: its fields, Resource, templates, retriers, catchers and Choice rules. */
export function stateIssues(state: unknown, context: StateContext): ProgramIssue[] {
  const { name, path } = context;
  if (!isRecord(state)) return [programIssue(name, `State ${name}`, "structure", "a state must be an object", path)];
  if (!isStateType(state.Type)) {
    const why = `Type ${JSON.stringify(state.Type)} is not one of Pass, Task, Choice, Wait, Succeed, Fail, Parallel, Map`;
    return [programIssue(name, `State ${name}`, "structure", why, [...path, "Type"])];
  }
  const type = state.Type;
  const subject = `${type} ${name}`;
  const say = (problem: TemplateProblem, hint?: string) => programIssue(name, subject, problem.rule, problem.why, problem.path, hint);
  const allowed = new Set([...COMMON_FIELDS, ...STATE_FIELDS[type]]);
  const problems: TemplateProblem[] = [...fieldProblems(state, allowed, path, `a ${type} state`)];

  if (state.QueryLanguage !== undefined && state.QueryLanguage !== "JSONPath") {
    problems.push({ rule: "jsonata", why: `QueryLanguage ${JSON.stringify(state.QueryLanguage)} is not allowed: programs are JSONPath only`, path: [...path, "QueryLanguage"] });
  }
  if (!["Choice", "Succeed", "Fail"].includes(type)) problems.push(...transitionProblems(state, path));
  for (const field of ["Parameters", "ResultSelector", "ItemSelector"]) {
    if (state[field] === undefined) continue;
    if (!isRecord(state[field])) problems.push({ rule: "structure", why: `${field} must be an object`, path: [...path, field] });
    else problems.push(...templateProblems(state[field], [...path, field]));
  }
  problems.push(...listProblems(state.Retry, [...path, "Retry"], RETRIER_FIELDS, "retrier"));
  problems.push(...listProblems(state.Catch, [...path, "Catch"], CATCHER_FIELDS, "catcher"));
  if (type === "Choice") problems.push(...choiceProblems(state, path));
  if (type === "Map") problems.push(...mapProblems(state, path));
  if (type === "Parallel" && (!Array.isArray(state.Branches) || state.Branches.length === 0)) {
    problems.push({ rule: "structure", why: "Branches must be a non-empty list of graphs", path: [...path, "Branches"] });
  }

  const issues = problems.map((problem) => say(problem));
  if (type === "Task") issues.push(...taskIssues(state, context, subject));
  return issues;
}

function fieldProblems(object: JsonObject, allowed: Set<string>, path: (string | number)[], what: string): TemplateProblem[] {
  return Object.keys(object).flatMap((key) => {
    const refused = REFUSED_FIELDS[key];
    if (refused) return [{ rule: refused.rule, why: `${key} is not allowed: ${refused.why}`, path: [...path, key] }];
    return allowed.has(key) ? [] : [{ rule: "unknown-field", why: `${key} is not a field of ${what} in a program`, path: [...path, key] }];
  });
}

function transitionProblems(state: JsonObject, path: (string | number)[]): TemplateProblem[] {
  const hasNext = state.Next !== undefined;
  const hasEnd = state.End !== undefined;
  if (hasNext && hasEnd) return [{ rule: "structure", why: "a state has either Next or End, not both", path: [...path, "End"] }];
  if (hasEnd && state.End !== true) return [{ rule: "structure", why: "End must be true", path: [...path, "End"] }];
  if (hasNext && typeof state.Next !== "string") return [{ rule: "structure", why: "Next must be a state name", path: [...path, "Next"] }];
  if (!hasNext && !hasEnd) return [{ rule: "structure", why: "needs Next or End", path }];
  return [];
}

function listProblems(list: unknown, path: (string | number)[], fields: readonly string[], what: "retrier" | "catcher"): TemplateProblem[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) return [{ rule: "structure", why: `${path.at(-1)} must be a list`, path }];
  const allowed = new Set(fields);
  return list.flatMap((entry, i) => {
    const at = [...path, i];
    if (!isRecord(entry)) return [{ rule: "structure", why: `a ${what} must be an object`, path: at }];
    const problems = fieldProblems(entry, allowed, at, `a ${what}`);
    const errors = entry.ErrorEquals;
    if (!Array.isArray(errors) || errors.length === 0 || !errors.every((e) => typeof e === "string")) {
      problems.push({ rule: "structure", why: "ErrorEquals must be a non-empty list of error names", path: [...at, "ErrorEquals"] });
    } else if (errors.includes("States.ALL") && (errors.length > 1 || i !== list.length - 1)) {
      // Step Functions refuses States.ALL unless it is alone and in the last entry.
      problems.push({ rule: "structure", why: `States.ALL must be alone in ErrorEquals and in the last ${what}`, path: [...at, "ErrorEquals"] });
    }
    if (what === "catcher" && typeof entry.Next !== "string") problems.push({ rule: "structure", why: "a catcher needs Next", path: [...at, "Next"] });
    return problems;
  });
}

function choiceProblems(state: JsonObject, path: (string | number)[]): TemplateProblem[] {
  const choices = state.Choices;
  if (!Array.isArray(choices) || choices.length === 0) return [{ rule: "structure", why: "Choices must be a non-empty list of rules", path: [...path, "Choices"] }];
  const problems = choices.flatMap((rule, i) => choiceRuleProblems(rule, [...path, "Choices", i], true));
  if (state.Default !== undefined && typeof state.Default !== "string") problems.push({ rule: "structure", why: "Default must be a state name", path: [...path, "Default"] });
  return problems;
}

function mapProblems(state: JsonObject, path: (string | number)[]): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  if ((state.ItemProcessor === undefined) === (state.Iterator === undefined)) {
    problems.push({ rule: "structure", why: "a Map has exactly one of ItemProcessor and Iterator", path });
  }
  if (state.ItemSelector !== undefined && state.Parameters !== undefined) {
    problems.push({ rule: "structure", why: "a Map has at most one of ItemSelector and Parameters", path: [...path, "Parameters"] });
  }
  const processor = state.ItemProcessor;
  if (isRecord(processor)) {
    const config = processor.ProcessorConfig;
    const at = [...path, "ItemProcessor", "ProcessorConfig"];
    if (config !== undefined && !isRecord(config)) problems.push({ rule: "structure", why: "ProcessorConfig must be an object", path: at });
    if (isRecord(config)) {
      if (config.Mode === "DISTRIBUTED" || config.ExecutionType !== undefined) {
        problems.push({ rule: "distributed-map", why: "Distributed Map is not allowed: a Map runs inline", path: at });
      } else {
        if (config.Mode !== undefined && config.Mode !== "INLINE") problems.push({ rule: "structure", why: "ProcessorConfig.Mode must be INLINE", path: [...at, "Mode"] });
        problems.push(...fieldProblems(config, new Set(["Mode"]), at, "a ProcessorConfig"));
      }
    }
  }
  return problems;
}

function taskIssues(state: JsonObject, context: StateContext, subject: string): ProgramIssue[] {
  const { name, path } = context;
  const at = [...path, "Resource"];
  const resource = parseResource(state.Resource);
  if ("rule" in resource) {
    const hint = resource.rule === "structure" ? undefined : "use activity:<name> or platform:<builtin>";
    return [programIssue(name, subject, resource.rule, resource.why, at, hint)];
  }
  const issues: ProgramIssue[] = [];
  if (resource.kind === "activity" && context.activities && !context.activities.includes(resource.name)) {
    issues.push(programIssue(name, subject, "unknown-activity", `activity ${resource.name} is not among the deployment's activities`, at, `declare it, or use one of: ${context.activities.join(", ") || "(none)"}`));
  }
  if (resource.kind === "platform") {
    const { requires, means } = BUILTIN_PARAMETERS[resource.builtin];
    const parameters = isRecord(state.Parameters) ? state.Parameters : undefined;
    const has = (key: string) => parameters !== undefined && (key in parameters || `${key}.$` in parameters);
    for (const group of requires) {
      if (group.some(has)) continue;
      const why = `platform:${resource.builtin} needs ${group.map((k) => `'${k}'`).join(" or ")} in its Parameters (a literal or a .$ path)`;
      issues.push(programIssue(name, subject, "builtin-parameters", why, [...path, "Parameters"], `platform:${resource.builtin} is ${means}`));
    }
  }
  if (context.topLevel) issues.push(...inputPathIssues(state, context, subject));
  return issues;
}

/**
 * A top-level Task's checkpoint is its raw input, so the compiler folds its InputPath into its Parameters'
 * paths; that needs a plain reference path (no filter, wildcard or slice, which select lists) and not null.
 */
function inputPathIssues(state: JsonObject, { name, path }: StateContext, subject: string): ProgramIssue[] {
  const inputPath = state.InputPath;
  if (inputPath === undefined || (typeof inputPath === "string" && isReferencePath(inputPath))) return [];
  const why = inputPath === null ? "InputPath null is not allowed on a top-level Task" : `InputPath ${JSON.stringify(inputPath)} must be a plain reference path on a top-level Task`;
  return [programIssue(name, subject, "input-path", why, [...path, "InputPath"], "use $.field or $['field'][0], or literals in Parameters")];
}

export function isReferencePath(path: string): boolean {
  return /^\$(?:\.[A-Za-z_][A-Za-z0-9_-]*|\['(?:[^'\\]|\\.)*'\]|\[\d+\])*$/.test(path);
}

import { GRAPH_FIELDS, ITEM_PROCESSOR_FIELDS, PROGRAM_FIELDS, REFUSED_FIELDS } from "./fields.js";
import { programIssue } from "./issues.js";
import { stateIssues } from "./state-rules.js";
import { isRecord, type JsonObject, type ProgramIssue } from "./types.js";

/** State names starting `__` are the compiler's (the `__Resume` prelude). */
export const RESERVED_PREFIX = "__";
/** Step Functions' limit on a state name. */
export const STATE_NAME_MAX = 80;
/** A top-level name must leave room for its `__Resume_<name>` entry state. */
export const TOP_LEVEL_NAME_MAX = STATE_NAME_MAX - "__Resume_".length;

type Kind = "program" | "branch" | "processor";
const FIELDS: Record<Kind, readonly string[]> = { program: PROGRAM_FIELDS, branch: GRAPH_FIELDS, processor: ITEM_PROCESSOR_FIELDS };

/**
 * Everything wrong with a graph of states (the program, a Parallel branch, a Map's processor) and the graphs
 * inside it: its fields, StartAt, every transition naming a state of this graph, every state reachable, and
 * each state's own rules.
 */
export function graphIssues(graph: unknown, path: (string | number)[], kind: Kind, activities: readonly string[] | undefined): ProgramIssue[] {
  const where = kind === "program" ? "Program" : `Graph at ${path.join(".")}`;
  const issue = (rule: string, why: string, at: (string | number)[], hint?: string) => programIssue(null, where, rule, why, at, hint);
  if (!isRecord(graph)) return [issue("structure", "must be an object {StartAt, States}", path)];

  const issues: ProgramIssue[] = [];
  const allowed = new Set(FIELDS[kind]);
  for (const key of Object.keys(graph)) {
    const refused = REFUSED_FIELDS[key];
    if (refused) issues.push(issue(refused.rule, `${key} is not allowed: ${refused.why}`, [...path, key]));
    else if (!allowed.has(key)) issues.push(issue("unknown-field", `${key} is not a field here`, [...path, key], kind === "program" && key === "TimeoutSeconds" ? "the workflow's execution_timeout bounds a run" : undefined));
  }
  if (kind === "program" && graph.QueryLanguage !== undefined && graph.QueryLanguage !== "JSONPath") {
    issues.push(issue("jsonata", `QueryLanguage ${JSON.stringify(graph.QueryLanguage)} is not allowed: programs are JSONPath only`, [...path, "QueryLanguage"]));
  }
  const states = graph.States;
  if (!isRecord(states) || Object.keys(states).length === 0) return [...issues, issue("structure", "States must be an object with at least one state", [...path, "States"])];
  const names = new Set(Object.keys(states));
  if (typeof graph.StartAt !== "string" || !names.has(graph.StartAt)) {
    issues.push(issue("structure", `StartAt ${JSON.stringify(graph.StartAt)} does not name a state of this graph`, [...path, "StartAt"]));
  }

  for (const [name, state] of Object.entries(states)) {
    const at = [...path, "States", name];
    const nameIssue = stateNameIssue(name, at, kind === "program");
    if (nameIssue) issues.push(nameIssue);
    issues.push(...stateIssues(state, { name, path: at, topLevel: kind === "program", activities }));
    if (!isRecord(state)) continue;
    for (const [target, targetPath] of transitions(state, at)) {
      if (!names.has(target)) issues.push(programIssue(name, `${String(state.Type)} ${name}`, "structure", `${targetPath.at(-1)} ${JSON.stringify(target)} does not name a state of this graph`, targetPath));
    }
    issues.push(...nestedGraphIssues(state, at, activities));
  }
  if (issues.length === 0) issues.push(...unreachable(graph.StartAt as string, states, path));
  return issues;
}

function stateNameIssue(name: string, path: (string | number)[], topLevel: boolean): ProgramIssue | undefined {
  if (name.startsWith(RESERVED_PREFIX)) return programIssue(name, `State ${name}`, "reserved-name", `names starting with ${RESERVED_PREFIX} are the platform's`, path);
  const max = topLevel ? TOP_LEVEL_NAME_MAX : STATE_NAME_MAX;
  if (name.length === 0 || name.length > max) return programIssue(name, `State ${name.slice(0, 40)}`, "state-name", `a ${topLevel ? "top-level " : ""}state name has 1 to ${max} characters`, path);
  return undefined;
}

/** Each state name a state can move to, with where it is written. */
function transitions(state: JsonObject, path: (string | number)[]): [string, (string | number)[]][] {
  const found: [string, (string | number)[]][] = [];
  if (typeof state.Next === "string") found.push([state.Next, [...path, "Next"]]);
  if (typeof state.Default === "string") found.push([state.Default, [...path, "Default"]]);
  for (const field of ["Choices", "Catch"]) {
    const list = state[field];
    if (!Array.isArray(list)) continue;
    list.forEach((entry, i) => {
      if (isRecord(entry) && typeof entry.Next === "string") found.push([entry.Next, [...path, field, i, "Next"]]);
    });
  }
  return found;
}

function nestedGraphIssues(state: JsonObject, path: (string | number)[], activities: readonly string[] | undefined): ProgramIssue[] {
  if (state.Type === "Parallel" && Array.isArray(state.Branches)) {
    return state.Branches.flatMap((branch, i) => graphIssues(branch, [...path, "Branches", i], "branch", activities));
  }
  if (state.Type === "Map") {
    if (state.ItemProcessor !== undefined) return graphIssues(state.ItemProcessor, [...path, "ItemProcessor"], "processor", activities);
    if (state.Iterator !== undefined) return graphIssues(state.Iterator, [...path, "Iterator"], "branch", activities);
  }
  return [];
}

function unreachable(startAt: string, states: JsonObject, path: (string | number)[]): ProgramIssue[] {
  const seen = new Set([startAt]);
  const queue = [startAt];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    for (const [target] of transitions(states[name] as JsonObject, [])) {
      if (seen.has(target)) continue;
      seen.add(target);
      queue.push(target);
    }
  }
  return Object.entries(states)
    .filter(([name]) => !seen.has(name))
    .map(([name, state]) => programIssue(name, `${String((state as JsonObject).Type)} ${name}`, "structure", `is not reachable from StartAt ${startAt}`, [...path, "States", name]));
}

/** State names used more than once anywhere in the program: Step Functions wants them unique across all graphs. */
export function duplicateNameIssues(program: JsonObject): ProgramIssue[] {
  const seen = new Map<string, (string | number)[]>();
  const issues: ProgramIssue[] = [];
  const visit = (graph: unknown, path: (string | number)[]) => {
    if (!isRecord(graph) || !isRecord(graph.States)) return;
    for (const [name, state] of Object.entries(graph.States)) {
      const at = [...path, "States", name];
      const first = seen.get(name);
      if (first) issues.push(programIssue(name, `State ${name}`, "structure", `the name is already used at ${first.join(".")}: state names are unique across the program`, at));
      else seen.set(name, at);
      if (!isRecord(state)) continue;
      if (Array.isArray(state.Branches)) state.Branches.forEach((branch, i) => visit(branch, [...at, "Branches", i]));
      if (state.ItemProcessor !== undefined) visit(state.ItemProcessor, [...at, "ItemProcessor"]);
      if (state.Iterator !== undefined) visit(state.Iterator, [...at, "Iterator"]);
    }
  };
  visit(program, []);
  return issues;
}

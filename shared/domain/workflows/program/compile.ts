import { DISPATCH_RESOURCE, DISPATCH_RETRY } from "./dispatch.js";
import { canonicalJson, sha256Hex } from "./hash.js";
import { PROGRAM_RESUME_STATE, resumePrelude } from "./resume.js";
import { rebaseTemplate } from "./templates.js";
import type { JsonObject, Program, ProgramGraph, ProgramState } from "./types.js";

/** Stands for the dispatcher's ARN in the hashed document, so the hash is the same in every account and region. */
export const DISPATCHER_PLACEHOLDER = "arn:aws:lambda:us-east-1:000000000000:function:workflow-dispatcher";

export interface CompiledProgram {
  /** The Step Functions definition to deploy. */
  definition: JsonObject;
  /** Hex SHA-256 of the canonical JSON of the definition with the placeholder for the dispatcher ARN. */
  hash: string;
}

/**
 * The deployable document of a program that validateProgram accepted: every Task becomes the dispatcher
 * invoked with a task token, and a `__Resume` prelude lets an input re-enter any top-level state.
 */
export function compileProgram(program: Program, options: { dispatcherArn: string }): CompiledProgram {
  // A copy: the definition shares nothing with the program, whoever later changes either.
  const source = structuredClone(program);
  const hashed = compileDocument(source, DISPATCHER_PLACEHOLDER);
  const definition = compileDocument(structuredClone(source), options.dispatcherArn);
  return { definition, hash: sha256Hex(canonicalJson(hashed)) };
}

function compileDocument(program: Program, dispatcherArn: string): JsonObject {
  const { StartAt, States, ...rest } = program;
  const states = compileStates(States, dispatcherArn, true);
  return { ...rest, StartAt: PROGRAM_RESUME_STATE, States: { ...resumePrelude(StartAt, Object.keys(States)), ...states } };
}

function compileGraph(graph: ProgramGraph, dispatcherArn: string): JsonObject {
  return { ...graph, States: compileStates(graph.States, dispatcherArn, false) };
}

function compileStates(states: Record<string, ProgramState>, dispatcherArn: string, topLevel: boolean): Record<string, JsonObject> {
  return Object.fromEntries(Object.entries(states).map(([name, state]) => [name, compileState(name, state, dispatcherArn, topLevel)]));
}

function compileState(name: string, state: ProgramState, dispatcherArn: string, topLevel: boolean): JsonObject {
  switch (state.Type) {
    case "Task":
      return compileTask(name, state, dispatcherArn, topLevel);
    case "Parallel":
      return { ...state, Branches: (state.Branches as ProgramGraph[]).map((branch) => compileGraph(branch, dispatcherArn)) };
    case "Map":
      if (state.ItemProcessor !== undefined) return { ...state, ItemProcessor: compileGraph(state.ItemProcessor as ProgramGraph, dispatcherArn) };
      return { ...state, Iterator: compileGraph(state.Iterator as ProgramGraph, dispatcherArn) };
    default:
      return { ...state };
  }
}

/**
 * A Task as a dispatcher call. State name and resource are literals (nothing reads `$$.State`); the tenant's
 * Parameters nest under `input`. A top-level Task also sends its raw input as `checkpoint`, so its InputPath
 * is folded into the input's paths (validateProgram allows only reference paths there).
 */
function compileTask(name: string, state: ProgramState, dispatcherArn: string, topLevel: boolean): JsonObject {
  const { Type, Resource, Parameters, InputPath, Retry, Comment, ...rest } = state;
  const folded = topLevel && typeof InputPath === "string" && InputPath !== "$" ? InputPath : undefined;
  const input =
    Parameters === undefined ? { "input.$": folded ?? "$" } : { input: folded === undefined ? Parameters : rebaseTemplate(Parameters, folded) };
  const payload = {
    "token.$": "$$.Task.Token",
    "execution.$": "$$.Execution.Id",
    state: name,
    resource: Resource,
    ...input,
    ...(topLevel ? { "checkpoint.$": "$" } : {}),
  };
  return {
    Type,
    ...(Comment === undefined ? {} : { Comment }),
    Resource: DISPATCH_RESOURCE,
    Parameters: { FunctionName: dispatcherArn, Payload: payload },
    ...(InputPath === undefined || folded !== undefined ? {} : { InputPath }),
    Retry: [structuredClone(DISPATCH_RETRY), ...((Retry as unknown[] | undefined) ?? [])],
    ...rest,
  };
}

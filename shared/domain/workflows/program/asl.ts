import { createHash } from "node:crypto";
import aslValidator from "asl-validator";
import { TtlCache } from "../../process-cache.js";
import { DISPATCH_RESOURCE } from "./dispatch.js";
import { programIssue } from "./issues.js";
import { RESERVED_PREFIX } from "./graph-rules.js";
import { isRecord, type JsonObject, type ProgramIssue } from "./types.js";

/**
 * asl-validator's findings on a compiled document, as issues located in the tenant's program: it reads what
 * Step Functions will read (paths, retrier fields, Wait durations) where our own rules stop at the shape.
 */
export function aslIssues(definition: JsonObject): ProgramIssue[] {
  const key = createHash("sha256").update(JSON.stringify(definition)).digest("base64");
  if (accepted.get(key)) return [];
  // The validator writes QueryLanguage into every state it reads.
  const result = aslValidator(structuredClone(definition), { checkPaths: true, checkArn: true });
  if (result.isValid) {
    accepted.set(key, true);
    return [];
  }
  return result.errors.map((error) => {
    const compiledPath = error.schemaError ? pointerSegments(error.schemaError.instancePath) : [];
    const { path, state, type } = programLocation(definition, compiledPath);
    const named = state ?? /^State (.+) is not reachable$/.exec(error.Message)?.[1] ?? null;
    const subject = named === null ? "Program" : `${type ?? "State"} ${named}`;
    // The message locates the compiled document; say the program's place instead.
    const message = error.schemaError?.instancePath ? error.Message.replace(error.schemaError.instancePath, `/${path.join("/")}`) : error.Message;
    return programIssue(named, subject, "asl", `${error["Error code"]}: ${message}`, path);
  });
}

/**
 * Documents the validator accepted, by their text's hash, so that the same program registered again (by each of a
 * deployment's workers, in the same process) is not validated again: asl-validator compiles its JSON Schemas
 * anew on every call (~0.2–0.3 s of CPU). Refusals are not kept; acceptance does not expire, and past ACCEPTED_KEPT
 * the oldest entries go first.
 */
const ACCEPTED_KEPT = 1_000;
const accepted = new TtlCache<true>(Number.POSITIVE_INFINITY, undefined, ACCEPTED_KEPT);

function pointerSegments(pointer: string): string[] {
  return pointer === "" ? [] : pointer.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/**
 * Where a place in the compiled document is in the program: a Task's `Parameters.Payload.input` is its
 * Parameters and its first retrier is the compiler's; places in the `__Resume` prelude belong to no state.
 */
function programLocation(definition: JsonObject, compiledPath: string[]): { path: (string | number)[]; state: string | null; type: string | null } {
  const path: (string | number)[] = [];
  let state: string | null = null;
  let type: string | null = null;
  let node: unknown = definition;
  for (let i = 0; i < compiledPath.length; i++) {
    const segment = compiledPath[i]!;
    const parent = node;
    node = Array.isArray(parent) ? parent[Number(segment)] : isRecord(parent) ? parent[segment] : undefined;
    if (Array.isArray(parent)) {
      const compilersRetrier = path.at(-1) === "Retry" && isCompiledTask(compiledStateAt(definition, path));
      path.push(Number(segment) - (compilersRetrier ? 1 : 0));
      continue;
    }
    path.push(segment);
    if (path.at(-2) === "States" && isRecord(node)) {
      if (segment.startsWith(RESERVED_PREFIX)) return { path: [], state: null, type: null };
      state = segment;
      type = typeof node.Type === "string" ? node.Type : null;
    }
    if (segment === "Parameters" && isCompiledTask(parent) && compiledPath[i + 1] === "Payload") {
      if (compiledPath[i + 2] !== "input") break;
      node = (node as JsonObject)["Payload"];
      node = isRecord(node) ? node["input"] : undefined;
      i += 2;
    }
  }
  return { path, state, type };
}

function compiledStateAt(definition: JsonObject, path: (string | number)[]): unknown {
  return path.slice(0, -1).reduce<unknown>((node, key) => (Array.isArray(node) ? node[key as number] : isRecord(node) ? node[key] : undefined), definition);
}

function isCompiledTask(node: unknown): boolean {
  return isRecord(node) && node.Type === "Task" && node.Resource === DISPATCH_RESOURCE;
}

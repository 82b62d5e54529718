import type { ValidationIssue } from "../errors.js";
import type { WorkflowDefinition } from "./records.js";

/**
 * Signals, updates and queries (docs/workflows.md, "Signals, updates and queries"): what an execution's
 * inbox holds and the pure rules around it. Delivery itself is shared/services/workflows/inbox.ts.
 */

export type InboxKind = "signal" | "update";

/**
 * PENDING until a waiting Task takes it; DELIVERED to a run (an update then waits for `complete_update`);
 * COMPLETED (updates: result or error recorded); EXPIRED (an update nobody took before its caller's deadline).
 */
export type InboxStatus = "PENDING" | "DELIVERED" | "COMPLETED" | "EXPIRED";

export interface InboxMessage {
  workspace: string;
  executionId: string;
  /** The inbox sequence: 1, 2, 3, … per execution, no gaps. */
  seq: number;
  kind: InboxKind;
  /** A signal's id, or the update's `update_id`. */
  id: string;
  name: string;
  input: unknown;
  status: InboxStatus;
  /** Epoch ms it was accepted, and the execution's latest run then. */
  receivedAtMs: number;
  runId: string;
  deliveredRunId?: string | null;
  deliveredAtMs?: number | null;
  /** The hash of the token it was handed to (never the token). */
  deliveredToken?: string | null;
  result?: unknown;
  error?: { message: string; type?: string } | null;
  completedAtMs?: number | null;
}

/** A Task waiting on the inbox: `platform:await_signal` (a name) or `platform:await_update` (a name or any). */
export interface InboxWaiter {
  workspace: string;
  executionId: string;
  runId: string;
  state: string;
  kind: InboxKind;
  name: string | null;
  token: string;
  atMs: number;
}

/** A top-level state the run entered with its input: a reset point of its history. */
export interface RunStep {
  workspace: string;
  runId: string;
  id: string;
  state: string;
  input: unknown;
  atMs: number;
}

/** The built-in queries every execution answers (reference/workflows.md §2.3-A). */
export const BUILTIN_QUERIES = ["__status", "__state"] as const;

export type Handlers = "signals" | "queries" | "updates";

/** The handler `name` declares under `kind` in the definition, or undefined. */
export function declaredHandler(definition: WorkflowDefinition, kind: Handlers, name: string) {
  return (definition[kind] ?? []).find((handler) => handler.name === name);
}

/** The 422 for a name the definition does not declare. */
export function undeclaredIssue(definition: WorkflowDefinition, kind: Handlers, name: string): ValidationIssue {
  const known = (definition[kind] ?? []).map((handler) => handler.name);
  const builtins = kind === "queries" ? [...BUILTIN_QUERIES] : [];
  const all = [...known, ...builtins];
  const noun = kind.slice(0, -1).replace(/ie$/, "y");
  return {
    loc: ["body", "name"],
    msg: `The workflow declares no ${noun} '${name}'${all.length ? ` (declared: ${all.join(", ")})` : ""}`,
    type: "value_error",
  };
}

/**
 * The `input` of a signal, query or update body: an object as is, absent or null as `{}`, or Mistral's
 * `NetworkEncodedInput` (`{b64payload, encoding_options, empty}`): base64 JSON, decoded when it carries no
 * encoding option (offloaded, encrypted and compressed payloads need the client's codec: refused).
 */
export function decodeInput(input: unknown): { value: Record<string, unknown> } | { issue: ValidationIssue } {
  if (input === undefined || input === null) return { value: {} };
  if (typeof input !== "object" || Array.isArray(input)) return { issue: { loc: ["body", "input"], msg: "Input should be a valid dictionary", type: "dict_type" } };
  const record = input as Record<string, unknown>;
  if (typeof record.b64payload !== "string") return { value: record };
  if (record.empty === true) return { value: {} };
  const options = Array.isArray(record.encoding_options) ? record.encoding_options : [];
  if (options.length) {
    return { issue: { loc: ["body", "input", "encoding_options"], msg: `Encoded payloads (${options.join(", ")}) are not supported: send the input as JSON`, type: "value_error" } };
  }
  try {
    const decoded: unknown = JSON.parse(Buffer.from(record.b64payload, "base64").toString("utf8"));
    if (typeof decoded !== "object" || decoded === null || Array.isArray(decoded)) throw new Error("not an object");
    return { value: decoded as Record<string, unknown> };
  } catch {
    return { issue: { loc: ["body", "input", "b64payload"], msg: "The payload is not base64 of a JSON object", type: "value_error" } };
  }
}

/**
 * Reads a JSONPath reference path (`$`, `$.a.b`, `$.items[0]`, `$['a b']`) from `document`; undefined when
 * it names nothing. Queries' projections use it over the run's published state.
 */
export function readPath(document: unknown, path: string): unknown {
  const steps = parsePath(path);
  if (!steps) return undefined;
  let at: unknown = document;
  for (const step of steps) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string | number, unknown>)[step];
  }
  return at;
}

/** The steps of a reference path, or undefined when it is not one. */
export function parsePath(path: string): (string | number)[] | undefined {
  if (!path.startsWith("$")) return undefined;
  const steps: (string | number)[] = [];
  const pattern = /\.([A-Za-z_][\w-]*)|\[(\d+)\]|\['([^']*)'\]/y;
  pattern.lastIndex = 1;
  while (pattern.lastIndex < path.length) {
    const at = pattern.lastIndex;
    const match = pattern.exec(path);
    if (!match || match.index !== at) return undefined;
    steps.push(match[1] ?? (match[2] !== undefined ? Number(match[2]) : match[3]!));
  }
  return steps;
}

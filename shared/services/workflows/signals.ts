import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import { PayloadTooLarge, Unprocessable } from "../../domain/errors.js";
import { decodeInput, declaredHandler, undeclaredIssue, type Handlers, type InboxMessage } from "../../domain/workflows/inbox.js";
import type { RegistrationRecord, RunRecord } from "../../domain/workflows/records.js";
import { isClosed } from "../../domain/workflows/statuses.js";
import { inboxStore } from "../../store/workflows/inbox.js";
import { workflowRegistry } from "../../store/workflows/registry.js";
import { latestRun } from "./executions.js";
import { schemaIssues } from "./executions-schema.js";
import { deliver } from "./inbox.js";
import { ExecutionNotRunning } from "./workflows.js";

/**
 * Signals (docs/workflows.md, "Signals, updates and queries"): accepted into the execution's inbox with
 * the next inbox sequence, delivered once, in that sequence, to the program's `platform:await_signal`.
 */

/** A signal's or an update's input becomes a Task's output: at most Step Functions' 256 KiB. */
export const MAX_MESSAGE_BYTES = 256 * 1024;

export interface HandlerCall {
  run: RunRecord;
  registration: RegistrationRecord;
  input: Record<string, unknown>;
}

/**
 * The latest run of the execution, open (409 WF_1102 otherwise), with the handler `name` declared under
 * `kind` by its registration's definition (422 otherwise) and `input` valid for the handler's input_schema.
 * `builtins` are names every workflow answers (queries' `__status`, `__state`).
 */
export async function handlerCall(caller: Pick<Caller, "workspace">, executionId: string, kind: Handlers, name: string, rawInput: unknown, builtins: readonly string[] = []): Promise<HandlerCall> {
  const run = await latestRun(caller, executionId);
  if (isClosed(run.status)) throw new ExecutionNotRunning(executionId, run.status);
  const registration = await workflowRegistry.getRegistration(caller.workspace, run.registrationId);
  if (!registration) throw new Error(`The registration ${run.registrationId} of run ${run.runId} is gone`);
  const decoded = decodeInput(rawInput);
  if ("issue" in decoded) throw new Unprocessable([decoded.issue]);
  if (builtins.includes(name)) return { run, registration, input: decoded.value };
  const handler = declaredHandler(registration.definition, kind, name);
  if (!handler) throw new Unprocessable([undeclaredIssue(registration.definition, kind, name)]);
  const issues = schemaIssues(handler.input_schema, decoded.value);
  if (issues.length) throw new Unprocessable(issues);
  const bytes = Buffer.byteLength(JSON.stringify(decoded.value));
  if (bytes > MAX_MESSAGE_BYTES) throw new PayloadTooLarge(`The input is ${bytes} bytes; a ${kind.slice(0, -1)} takes at most ${MAX_MESSAGE_BYTES}`, "input_too_large");
  return { run, registration, input: decoded.value };
}

/** POST …/signals: 202 once the signal is in the inbox (the program takes it when it waits for it). */
export async function signal(caller: Pick<Caller, "workspace">, executionId: string, body: { name: string; input?: unknown }): Promise<{ seq: number }> {
  const { run, input } = await handlerCall(caller, executionId, "signals", body.name, body.input);
  const message = await accept(run, "signal", randomUUID(), body.name, input);
  return { seq: message.seq };
}

/** Appends a message to the run's execution's inbox (the next inbox sequence) and delivers what can be delivered. */
export async function accept(run: RunRecord, kind: InboxMessage["kind"], id: string, name: string, input: Record<string, unknown>): Promise<InboxMessage> {
  const message = await inboxStore.append({ workspace: run.workspace, executionId: run.executionId, kind, id, name, input, status: "PENDING", receivedAtMs: Date.now(), runId: run.runId });
  await deliver(run.workspace, run.executionId);
  return message;
}

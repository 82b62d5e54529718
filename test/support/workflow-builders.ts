/**
 * Workflows without a worker: records (`aWorkflow`, `aRegistration`, `aRun`), and `seedRegistration` /
 * `seedRun` / `seedEvents`, which write them through the stores (DynamoDB Local in integration tests, the
 * fake tables in handler tests), so a test needs neither the register route nor a running engine.
 */
import { randomUUID } from "node:crypto";
import type { RunningApi } from "../../infra/local/server.js";
import { eventOf, jsonPayload, type WorkflowEventType } from "../../shared/domain/workflows/events.js";
import type { DeploymentRecord, RegistrationRecord, RunRecord, WorkflowDefinition, WorkflowRecord } from "../../shared/domain/workflows/records.js";
import { isClosed } from "../../shared/domain/workflows/statuses.js";
import { eventStore } from "../../shared/store/workflows/events.js";
import { inputHashOf, type StoredTask } from "../../shared/store/workflows/tasks.js";
import { workflowRegistry } from "../../shared/store/workflows/registry.js";
import { runStore } from "../../shared/store/workflows/runs.js";
import { filesClient, type ApiReply, type Query } from "./files-client.js";
import type { TestTenant } from "./tenant.js";

export const T0 = "2026-01-01T00:00:00.000Z";

export function aWorkflow(overrides: Partial<WorkflowRecord> = {}): WorkflowRecord {
  const name = overrides.name ?? `wf-${randomUUID().slice(0, 8)}`;
  return {
    id: randomUUID(),
    workspace: randomUUID(),
    organization: randomUUID(),
    name,
    displayName: name.toUpperCase(),
    description: null,
    tags: [],
    availableInChatAssistant: false,
    archived: false,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

export const aDefinition = (overrides: Partial<WorkflowDefinition> = {}): WorkflowDefinition => ({
  input_schema: { type: "object", properties: { name: { type: "string" } } },
  output_schema: null,
  signals: [],
  queries: [],
  updates: [],
  enforce_determinism: false,
  on_behalf_of: false,
  execution_timeout: null,
  ...overrides,
});

/** A Pass-only program: what a registration carries when a test does not run it. */
export const PASS_PROGRAM = { StartAt: "Done", States: { Done: { Type: "Pass", End: true } } };

export function aRegistration(workflow: Pick<WorkflowRecord, "id" | "name" | "workspace">, overrides: Partial<RegistrationRecord> = {}): RegistrationRecord {
  const hash = randomUUID().replace(/-/g, "");
  return {
    id: randomUUID(),
    workspace: workflow.workspace,
    workflowId: workflow.id,
    workflowName: workflow.name,
    deploymentName: "default",
    definition: aDefinition(),
    program: PASS_PROGRAM,
    programHash: hash,
    versionArn: `arn:aws:states:us-east-1:000000000000:stateMachine:wf-${workflow.id}:1`,
    activities: [],
    compatibleWithChatAssistant: false,
    createdAt: T0,
    ...overrides,
  };
}

export function aRun(overrides: Partial<RunRecord> = {}): RunRecord {
  const runId = overrides.runId ?? randomUUID();
  const executionId = overrides.executionId ?? `exec-${randomUUID().slice(0, 8)}`;
  return {
    runId,
    workspace: randomUUID(),
    executionId,
    rootExecutionId: executionId,
    parentExecutionId: null,
    workflowId: randomUUID(),
    workflowName: "wf",
    registrationId: randomUUID(),
    deploymentName: "default",
    userId: null,
    status: "RUNNING",
    input: {},
    result: null,
    failure: null,
    startTime: T0,
    endTime: null,
    executionArn: `arn:aws:states:us-east-1:000000000000:execution:wf-x:${runId}`,
    intent: null,
    cancelRequested: false,
    checkpoint: null,
    attempt: 1,
    scheduleId: null,
    continuedRunId: null,
    firstExecutionRunId: runId,
    ...overrides,
  };
}

export interface Seeded {
  workflow: WorkflowRecord;
  registration: RegistrationRecord;
}

/** A workflow with one registration (and its deployment, and its version) written through the stores. */
export async function seedRegistration(
  workspace: string,
  options: { workflow?: Partial<WorkflowRecord>; registration?: Partial<RegistrationRecord>; organization?: string } = {},
): Promise<Seeded> {
  const workflow = await workflowRegistry.ensureWorkflow(aWorkflow({ workspace, organization: options.organization ?? randomUUID(), ...options.workflow }));
  const registration = aRegistration(workflow, options.registration);
  await workflowRegistry.ensureDeployment({ id: randomUUID(), workspace, name: registration.deploymentName, createdAt: T0, updatedAt: T0, stopped: false });
  await workflowRegistry.putVersion(workflow.id, registration.programHash, registration.versionArn);
  const { registration: stored } = await workflowRegistry.ensureRegistration(registration);
  return { workflow, registration: stored };
}

/**
 * A workflow whose program is compiled and published to the engine (locally the Step Functions stand-in,
 * with the backends' dispatcher), registered through the stores: executions of it really run.
 */
export async function seedPublished(
  workspace: string,
  program: Record<string, unknown>,
  options: { workflow?: Partial<WorkflowRecord>; registration?: Partial<RegistrationRecord>; organization?: string } = {},
): Promise<Seeded> {
  const { compileProgram, validateProgram } = await import("../../shared/domain/workflows/program/index.js");
  const { dispatcherArn, publishProgram } = await import("../../shared/engine/workflow-machines.js");
  const issues = validateProgram(program);
  if (issues.length) throw new Error(`seedPublished: the program is refused: ${JSON.stringify(issues)}`);
  const workflow = await workflowRegistry.ensureWorkflow(aWorkflow({ workspace, organization: options.organization ?? randomUUID(), ...options.workflow }));
  const compiled = compileProgram(program as never, { dispatcherArn: dispatcherArn() });
  const versionArn = (await workflowRegistry.getVersion(workflow.id, compiled.hash)) ?? (await publishProgram(workflow.id, compiled.definition, compiled.hash));
  return seedRegistration(workspace, { ...options, workflow, registration: { program, programHash: compiled.hash, versionArn, ...options.registration } });
}

/** A worker of `deployment` that beat `agoMs` ago (within the liveness window unless told otherwise). */
export async function seedWorker(workspace: string, deployment: string, agoMs = 0, workflows: string[] = []): Promise<void> {
  await workflowRegistry.heartbeat({ workspace, deploymentName: deployment, name: `worker-${randomUUID().slice(0, 8)}`, lastHeartbeatMs: Date.now() - agoMs, workflows, principal: "test" });
}

/** A run (and its execution) as the stores keep it; a closed one gets an end time a second after its start. */
export async function seedRun(workspace: string, overrides: Partial<RunRecord> = {}, of?: Seeded): Promise<RunRecord> {
  const base = aRun({
    workspace,
    ...(of ? { workflowId: of.workflow.id, workflowName: of.workflow.name, registrationId: of.registration.id, deploymentName: of.registration.deploymentName } : {}),
    ...overrides,
  });
  const run = isClosed(base.status) && !base.endTime ? { ...base, endTime: new Date(Date.parse(base.startTime) + 1000).toISOString() } : base;
  if (!(await runStore.start(run, null))) throw new Error(`seedRun: execution ${run.executionId} is running`);
  return run;
}

/** Events of `run`, appended in order; returns their sequence numbers. */
export async function seedEvents(run: RunRecord, types: WorkflowEventType[], atMs = Date.parse(run.startTime)): Promise<number[]> {
  const seqs: number[] = [];
  for (const [i, type] of types.entries()) {
    const attributes = type === "WORKFLOW_EXECUTION_STARTED"
      ? { task_id: run.runId, workflow_name: run.workflowName, display_name: null, input: jsonPayload(run.input), attempt: 1 }
      : type === "WORKFLOW_EXECUTION_COMPLETED"
        ? { task_id: run.runId, result: jsonPayload(run.result), attempt: 1 }
        : type.startsWith("ACTIVITY_")
          ? { task_id: `task-${i}`, activity_name: "summarize", input: jsonPayload({ i }), result: jsonPayload({ i }), attempt: 1, failure: { message: "x" } }
          : { task_id: run.runId, failure: { message: "failed" }, reason: null, attempt: 1 };
    seqs.push(await eventStore.append(run.workspace, eventOf(run, type, attributes, { id: randomUUID(), nowMs: atMs + i })));
  }
  return seqs;
}

/** The workflow routes of one running server as one tenant sees them, over plain HTTP. */
export function workflowsClient(api: Pick<RunningApi, "url">, tenant: Pick<TestTenant, "key">) {
  const { request } = filesClient(api, tenant);
  const enc = encodeURIComponent;
  return {
    request,
    list: (query: Query = {}): Promise<ApiReply> => request("GET", "/v1/workflows", { query }),
    registrations: (query: Query = {}): Promise<ApiReply> => request("GET", "/v1/workflows/registrations", { query }),
    get: (id: string): Promise<ApiReply> => request("GET", `/v1/workflows/${enc(id)}`),
    update: (id: string, body: unknown): Promise<ApiReply> => request("PUT", `/v1/workflows/${enc(id)}`, { json: body }),
    metrics: (name: string, query: Query = {}): Promise<ApiReply> => request("GET", `/v1/workflows/${enc(name)}/metrics`, { query }),
    execute: (id: string, body: unknown = {}): Promise<ApiReply> => request("POST", `/v1/workflows/${enc(id)}/execute`, { json: body }),
    executeRegistration: (id: string, body: unknown = {}): Promise<ApiReply> => request("POST", `/v1/workflows/registrations/${enc(id)}/execute`, { json: body }),
    execution: (id: string, query: Query = {}): Promise<ApiReply> => request("GET", `/v1/workflows/executions/${enc(id)}`, { query }),
    terminate: (id: string): Promise<ApiReply> => request("POST", `/v1/workflows/executions/${enc(id)}/terminate`),
    cancel: (id: string): Promise<ApiReply> => request("POST", `/v1/workflows/executions/${enc(id)}/cancel`),
    batchTerminate: (ids: unknown): Promise<ApiReply> => request("POST", "/v1/workflows/executions/terminate", { json: { execution_ids: ids } }),
    batchCancel: (ids: unknown): Promise<ApiReply> => request("POST", "/v1/workflows/executions/cancel", { json: { execution_ids: ids } }),
    runs: (query: Query = {}): Promise<ApiReply> => request("GET", "/v1/workflows/runs", { query }),
    run: (id: string): Promise<ApiReply> => request("GET", `/v1/workflows/runs/${enc(id)}`),
    events: (query: Query = {}): Promise<ApiReply> => request("GET", "/v1/workflows/events/list", { query }),
    stream: (query: Query = {}, headers: Record<string, string> = {}): Promise<ApiReply> => request("GET", "/v1/workflows/events/stream", { query, headers }),
    signal: (id: string, name: string, input?: unknown): Promise<ApiReply> => request("POST", `/v1/workflows/executions/${enc(id)}/signals`, { json: { name, input } }),
    query: (id: string, name: string, input?: unknown): Promise<ApiReply> => request("POST", `/v1/workflows/executions/${enc(id)}/queries`, { json: { name, input } }),
    updateExecution: (id: string, name: string, input?: unknown): Promise<ApiReply> => request("POST", `/v1/workflows/executions/${enc(id)}/updates`, { json: { name, input } }),
    history: (id: string, query: Query = {}): Promise<ApiReply> => request("GET", `/v1/workflows/executions/${enc(id)}/history`, { query }),
    runHistory: (id: string, query: Query = {}): Promise<ApiReply> => request("GET", `/v1/workflows/runs/${enc(id)}/history`, { query }),
    reset: (id: string, body: unknown): Promise<ApiReply> => request("POST", `/v1/workflows/executions/${enc(id)}/reset`, { json: body }),
  };
}

/** The frames of an SSE body: each frame's fields (`id`, `event`, `data` parsed), comments left out. */
export function sseFrames(body: string): { id?: string; event?: string; data?: any }[] {
  return body
    .split("\n\n")
    .filter((frame) => frame.trim() && !frame.startsWith(":"))
    .map((frame) => {
      const fields: { id?: string; event?: string; data?: any } = {};
      for (const line of frame.split("\n")) {
        const at = line.indexOf(": ");
        const [name, value] = [line.slice(0, at), line.slice(at + 2)];
        if (name === "data") fields.data = JSON.parse(value);
        else if (name === "id" || name === "event") fields[name] = value;
      }
      return fields;
    });
}

/** A PENDING activity task of `run`. */
export function aTask(run: Pick<RunRecord, "workspace" | "runId" | "executionId" | "rootExecutionId" | "workflowName" | "deploymentName">, overrides: Partial<StoredTask> = {}): StoredTask {
  const input = overrides.input ?? { text: "hello" };
  const createdAtMs = overrides.createdAtMs ?? Date.now();
  return {
    taskId: randomUUID(),
    workspace: run.workspace,
    runId: run.runId,
    executionId: run.executionId,
    rootExecutionId: run.rootExecutionId,
    workflowName: run.workflowName,
    deploymentName: run.deploymentName,
    state: "Summarize",
    activity: "summarize",
    input,
    inputHash: inputHashOf(input),
    status: "PENDING",
    token: `token-${randomUUID()}`,
    attempt: 1,
    heartbeatSeconds: 30,
    workerName: null,
    createdAt: new Date(createdAtMs).toISOString(),
    createdAtMs,
    claimedAtMs: null,
    lastHeartbeatMs: null,
    ...overrides,
  };
}

export function aDeployment(overrides: Partial<DeploymentRecord> = {}): DeploymentRecord {
  const now = new Date().toISOString();
  return { id: randomUUID(), workspace: randomUUID(), name: "pool", createdAt: now, updatedAt: now, stopped: false, ...overrides };
}

/** The example's one-activity program (an activity with a heartbeat): what a worker-side test dispatches. */
export const ACTIVITY_PROGRAM = { StartAt: "Summarize", States: { Summarize: { Type: "Task", Resource: "activity:summarize", HeartbeatSeconds: 30, End: true } } };

/** Counts `n` up and continues as new while it is below 3: an execution started at 0 makes three runs (continue-as-new twice). */
export const COUNTER_PROGRAM = {
  StartAt: "Count",
  States: {
    Count: { Type: "Pass", Parameters: { "n.$": "States.MathAdd($.n, 1)" }, Next: "More?" },
    "More?": { Type: "Choice", Choices: [{ Variable: "$.n", NumericLessThan: 3, Next: "Again" }], Default: "Done" },
    Again: { Type: "Task", Resource: "platform:continue_as_new", End: true },
    Done: { Type: "Pass", End: true },
  },
};

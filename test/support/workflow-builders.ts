import { randomUUID } from "node:crypto";
import type { DeploymentRecord, RegistrationRecord, RunRecord, WorkflowRecord } from "../../shared/domain/workflows/records.js";
import { inputHashOf, type StoredTask } from "../../shared/store/workflows/tasks.js";

/**
 * Workflow records for tests: runs, activity tasks, workflows, deployments, registrations. Tests store
 * them through the stores themselves (against the fake tables with writes, or DynamoDB Local), so key
 * shapes live in one place.
 */

export function aRun(overrides: Partial<RunRecord> = {}): RunRecord {
  const runId = overrides.runId ?? randomUUID();
  const executionId = overrides.executionId ?? `exec-${runId.slice(0, 8)}`;
  return {
    runId,
    workspace: randomUUID(),
    executionId,
    rootExecutionId: executionId,
    parentExecutionId: null,
    workflowId: randomUUID(),
    workflowName: "summarize",
    registrationId: randomUUID(),
    deploymentName: "pool",
    userId: randomUUID(),
    status: "RUNNING",
    input: { text: "hello" },
    result: null,
    failure: null,
    startTime: new Date().toISOString(),
    endTime: null,
    executionArn: `arn:aws:states:us-east-1:000000000000:execution:wf-test:${runId}`,
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

export function aWorkflow(overrides: Partial<WorkflowRecord> = {}): WorkflowRecord {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    workspace: randomUUID(),
    organization: randomUUID(),
    name: "summarize",
    displayName: "summarize",
    description: null,
    tags: [],
    availableInChatAssistant: false,
    archived: false,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

export function aRegistration(overrides: Partial<RegistrationRecord> = {}): RegistrationRecord {
  return {
    id: randomUUID(),
    workspace: randomUUID(),
    workflowId: randomUUID(),
    workflowName: "summarize",
    deploymentName: "pool",
    definition: { input_schema: { type: "object" } },
    program: { StartAt: "Summarize", States: { Summarize: { Type: "Task", Resource: "activity:summarize", HeartbeatSeconds: 30, End: true } } },
    programHash: "hash",
    versionArn: "arn:aws:states:us-east-1:000000000000:stateMachine:wf-test:1",
    activities: ["summarize"],
    compatibleWithChatAssistant: false,
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}

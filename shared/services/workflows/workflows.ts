import type { Caller } from "../../domain/caller.js";
import { ApiError } from "../../domain/errors.js";
import { isDeploymentActive } from "../../domain/workflows/liveness.js";
import type { RegistrationRecord, WorkflowDefinition, WorkflowRecord } from "../../domain/workflows/records.js";
import type { WorkflowStatus } from "../../domain/workflows/statuses.js";
import type { RegistrationListQuery, RegistrationOut, WorkflowListQuery, WorkflowOut, WorkflowUpdateRequest } from "../../schemas/workflows.js";
import { encodeCursor, readCursor } from "../../store/cursor.js";
import { workflowRegistry } from "../../store/workflows/registry.js";
import { logger } from "../../observability/logger.js";
import { recordAudit } from "../audit/record.js";
import * as z from "zod";

/**
 * Workflows and their registrations as the API shows them (docs/workflows.md): lists, get, update, which
 * deployments are active (a worker heartbeat within the liveness window), and which registration an
 * execution runs on. Errors are the workflow family's (`{detail, code}`).
 */

export class WorkflowNotFound extends ApiError {
  constructor(what: string, id: string) {
    super(404, "not_found_error", `${what} '${id}' not found`, "workflow_not_found", null, { familyCodes: { workflow: "WF_1100" } });
  }
}

export class ExecutionNotRunning extends ApiError {
  constructor(id: string, status: WorkflowStatus) {
    super(409, "conflict_error", `Workflow execution '${id}' is not running (status ${status})`, "workflow_not_running", null, {
      familyCodes: { workflow: "WF_1102" },
      extra: { status },
    });
  }
}

export class ExecutionAlreadyStarted extends ApiError {
  constructor(id: string) {
    super(409, "conflict_error", `Workflow execution '${id}' is already running; its id may be used again once it has closed`, "workflow_already_started", null, {
      familyCodes: { workflow: "WF_1101" },
    });
  }
}

/** Two active deployments serve the workflow and the request named neither (reference/workflows.md §1.1). */
export class AmbiguousWorkflow extends ApiError {
  constructor(name: string, deployments: string[]) {
    super(409, "conflict_error", `Workflow '${name}' is served by ${deployments.length} active deployments; name one with deployment_name`, "ambiguous_workflow", null, {
      familyCodes: { workflow: "AMBIGUOUS_WORKFLOW" },
      extra: { deployments },
    });
  }
}

/**
 * An archived workflow starts no new execution (execute, a pinned registration, a schedule, a child): 409 until
 * it is unarchived (decision 63). Runs already going on are left alone.
 */
export class WorkflowArchived extends ApiError {
  constructor(name: string) {
    super(409, "conflict_error", `Workflow '${name}' is archived: unarchive it (PUT /v1/workflows/${name}/unarchive) to start executions of it`, "workflow_archived", null, {
      familyCodes: { workflow: "WORKFLOW_ARCHIVED" },
    });
  }
}

export function assertNotArchived(workflow: Pick<WorkflowRecord, "name" | "archived">): void {
  if (workflow.archived) throw new WorkflowArchived(workflow.name);
}

/** The definition as the API echoes it: the SDK refuses `execution_timeout: null` (a number when present). */
export function toDefinitionOut(definition: WorkflowDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = { ...definition };
  if (out.execution_timeout === null || out.execution_timeout === undefined) delete out.execution_timeout;
  return out;
}

export function toWorkflowOut(workflow: WorkflowRecord): WorkflowOut {
  return {
    id: workflow.id,
    name: workflow.name,
    display_name: workflow.displayName,
    type: "code",
    description: workflow.description ?? null,
    customer_id: workflow.organization,
    workspace_id: workflow.workspace,
    shared_namespace: null,
    available_in_chat_assistant: workflow.availableInChatAssistant,
    is_technical: false,
    archived: workflow.archived,
    tags: workflow.tags ?? [],
  };
}

export function toWorkflowBasicOut(workflow: WorkflowRecord) {
  return {
    id: workflow.id,
    name: workflow.name,
    display_name: workflow.displayName,
    description: workflow.description ?? null,
    metadata: { shared_namespace: null },
    archived: workflow.archived,
    tags: workflow.tags ?? [],
  };
}

export function toRegistrationOut(registration: RegistrationRecord, workflow: WorkflowRecord | null): RegistrationOut {
  return {
    id: registration.id,
    deployment_id: null,
    task_queue: registration.deploymentName,
    definition: toDefinitionOut(registration.definition) as RegistrationOut["definition"],
    workflow_id: registration.workflowId,
    workflow: workflow ? toWorkflowOut(workflow) : null,
    deployment_name: registration.deploymentName,
    compatible_with_chat_assistant: registration.compatibleWithChatAssistant ?? false,
  };
}

/** Which of a workspace's deployments are active now, each read once per request. */
export function livenessOf(workspace: string, nowMs = Date.now()) {
  const known = new Map<string, Promise<boolean>>();
  return (deployment: string): Promise<boolean> => {
    if (!known.has(deployment)) known.set(deployment, workflowRegistry.listWorkers(workspace, deployment).then((workers) => isDeploymentActive(workers, nowMs)));
    return known.get(deployment)!;
  };
}

const byNewest = (a: RegistrationRecord, b: RegistrationRecord) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id);

/** Each workflow's registrations, newest first. */
async function registrationsByWorkflow(workspace: string): Promise<Map<string, RegistrationRecord[]>> {
  const grouped = new Map<string, RegistrationRecord[]>();
  for (const registration of (await workflowRegistry.listRegistrations(workspace)).toSorted(byNewest)) {
    grouped.set(registration.workflowId, [...(grouped.get(registration.workflowId) ?? []), registration]);
  }
  return grouped;
}

/** Whether any deployment the workflow is registered in is active. */
async function anyActive(registrations: readonly RegistrationRecord[], active: (deployment: string) => Promise<boolean>): Promise<boolean> {
  for (const deployment of new Set(registrations.map((r) => r.deploymentName))) if (await active(deployment)) return true;
  return false;
}

export async function findWorkflow(caller: Pick<Caller, "workspace">, identifier: string): Promise<WorkflowRecord> {
  const workflow = await workflowRegistry.findWorkflow(caller.workspace, identifier);
  if (!workflow) throw new WorkflowNotFound("Workflow", identifier);
  return workflow;
}

/** GET /v1/workflows: filters the index cannot express are applied as the pages are read. */
export async function list(caller: Pick<Caller, "workspace">, query: WorkflowListQuery): Promise<{ workflows: WorkflowRecord[]; nextCursor: string | null }> {
  const needsDeployments = Boolean(query.deployment_name?.length || query.deployment_status || query.active_only);
  const registrations = needsDeployments ? await registrationsByWorkflow(caller.workspace) : new Map<string, RegistrationRecord[]>();
  const active = livenessOf(caller.workspace);
  const activeWorkflows = new Set<string>();
  if (query.deployment_status || query.active_only) {
    for (const [workflowId, regs] of registrations) if (await anyActive(regs, active)) activeWorkflows.add(workflowId);
  }
  const search = query.search?.toLowerCase();
  const keep = (w: WorkflowRecord): boolean => {
    // Archived workflows are left out unless asked for (`archived=true` lists only them; issue 29, decision 63).
    if (Boolean(w.archived) !== (query.archived ?? false)) return false;
    if (query.available_in_chat_assistant !== undefined && w.availableInChatAssistant !== query.available_in_chat_assistant) return false;
    if (query.tags?.length && !query.tags.every((tag) => (w.tags ?? []).includes(tag))) return false;
    if (search && !w.name.toLowerCase().includes(search) && !w.displayName.toLowerCase().includes(search) && !(w.description ?? "").toLowerCase().includes(search)) return false;
    if (query.deployment_name?.length && !(registrations.get(w.id) ?? []).some((r) => query.deployment_name!.includes(r.deploymentName))) return false;
    if ((query.deployment_status === "active" || query.active_only) && !activeWorkflows.has(w.id)) return false;
    if (query.deployment_status === "inactive" && activeWorkflows.has(w.id)) return false;
    return true;
  };
  const page = await workflowRegistry.listWorkflows(caller.workspace, {
    order: query.order,
    sortBy: query.sort_by === "display_name" ? "display_name" : "created",
    limit: query.limit,
    after: query.cursor,
    keep,
    cursorParam: "cursor",
  });
  return { workflows: page.items, nextCursor: page.last ?? null };
}

/** GET /v1/workflows/{workflow_identifier}, with `active` from its deployments' liveness. */
export async function get(caller: Pick<Caller, "workspace">, identifier: string): Promise<{ workflow: WorkflowRecord; active: boolean }> {
  const workflow = await findWorkflow(caller, identifier);
  const registrations = (await registrationsByWorkflow(caller.workspace)).get(workflow.id) ?? [];
  return { workflow, active: await anyActive(registrations, livenessOf(caller.workspace)) };
}

/**
 * PUT /v1/workflows/{workflow_identifier}: fields left out, or null, stay as they are (a null description
 * clears it, since that is the only null a description can mean).
 */
export async function update(caller: Pick<Caller, "workspace">, identifier: string, request: WorkflowUpdateRequest): Promise<WorkflowRecord> {
  const workflow = await findWorkflow(caller, identifier);
  const updated = await workflowRegistry.updateWorkflow(caller.workspace, workflow.id, {
    displayName: request.display_name ?? undefined,
    description: request.description === undefined ? undefined : request.description,
    availableInChatAssistant: request.available_in_chat_assistant ?? undefined,
    tags: request.tags ?? undefined,
    updatedAt: new Date().toISOString(),
  });
  if (!updated) throw new WorkflowNotFound("Workflow", identifier);
  return updated;
}

const registrationCursor = z.strictObject({ c: z.string().max(64), id: z.string().max(64) });

/** GET /v1/workflows/registrations: newest first, filtered, paged by the last registration's (created, id). */
export async function listRegistrations(
  caller: Pick<Caller, "workspace">,
  query: RegistrationListQuery,
): Promise<{ registrations: { registration: RegistrationRecord; workflow: WorkflowRecord | null }[]; nextCursor: string | null }> {
  const after = query.cursor === undefined ? undefined : readCursor(query.cursor, registrationCursor, "cursor");
  const all = (await workflowRegistry.listRegistrations(caller.workspace)).toSorted(byNewest);
  const workflows = new Map<string, Promise<WorkflowRecord | undefined>>();
  const workflowOf = (id: string) => {
    if (!workflows.has(id)) workflows.set(id, workflowRegistry.getWorkflow(caller.workspace, id));
    return workflows.get(id)!;
  };
  const active = livenessOf(caller.workspace);
  const search = query.workflow_search?.toLowerCase();
  const needsWorkflow = query.with_workflow || search !== undefined || query.archived !== undefined || query.available_in_chat_assistant !== undefined;
  const out: { registration: RegistrationRecord; workflow: WorkflowRecord | null }[] = [];
  let started = after === undefined;
  let more = false;
  for (const registration of all) {
    if (!started) {
      started = byNewest(registration, { createdAt: after!.c, id: after!.id } as RegistrationRecord) > 0;
      if (!started) continue;
    }
    if (query.workflow_id && registration.workflowId !== query.workflow_id) continue;
    if (query.task_queue && registration.deploymentName !== query.task_queue) continue;
    const workflow = needsWorkflow ? ((await workflowOf(registration.workflowId)) ?? null) : null;
    if (search && !(workflow && (workflow.name.toLowerCase().includes(search) || workflow.displayName.toLowerCase().includes(search)))) continue;
    if (query.archived !== undefined && workflow?.archived !== query.archived) continue;
    if (query.available_in_chat_assistant !== undefined && workflow?.availableInChatAssistant !== query.available_in_chat_assistant) continue;
    if (query.active_only && !(await active(registration.deploymentName))) continue;
    if (out.length === query.limit) {
      more = true;
      break;
    }
    out.push({ registration, workflow: query.with_workflow ? workflow : null });
  }
  const last = out.at(-1)?.registration;
  return { registrations: out, nextCursor: more && last ? encodeCursor({ c: last.createdAt, id: last.id }) : null };
}

/**
 * The registration an execution of `workflow` runs on: the named deployment's newest (404 when it has
 * none); else, among the deployments with a live worker, the only one's (409 AMBIGUOUS_WORKFLOW when two or
 * more are); with none live, the newest registration (its tasks wait in the queue for a worker).
 */
export async function routeExecution(caller: Pick<Caller, "workspace">, workflow: WorkflowRecord, deploymentName: string | null): Promise<RegistrationRecord> {
  // A deleted deployment's registrations stay for the runs that use them, but no new execution goes there.
  const existing = new Set((await workflowRegistry.listDeployments(caller.workspace)).map((d) => d.name));
  const registrations = ((await registrationsByWorkflow(caller.workspace)).get(workflow.id) ?? []).filter((r) => existing.has(r.deploymentName));
  if (!registrations.length) throw new WorkflowNotFound("Registration of workflow", workflow.name);
  if (deploymentName) {
    const named = registrations.find((r) => r.deploymentName === deploymentName);
    if (!named) throw new WorkflowNotFound(`Registration of workflow '${workflow.name}' in deployment`, deploymentName);
    return named;
  }
  const active = livenessOf(caller.workspace);
  const deployments = [...new Set(registrations.map((r) => r.deploymentName))];
  const live: string[] = [];
  for (const deployment of deployments) if (await active(deployment)) live.push(deployment);
  if (live.length > 1) throw new AmbiguousWorkflow(workflow.name, live.toSorted());
  if (live.length === 1) return registrations.find((r) => r.deploymentName === live[0])!;
  return registrations[0]!;
}

/** GET /v1/workflows/registrations/{workflow_registration_id}: with `active` from its deployment's liveness. */
export async function getRegistrationDetail(
  caller: Pick<Caller, "workspace">,
  id: string,
  withWorkflow: boolean,
): Promise<RegistrationOut & { active: boolean }> {
  const { registration, workflow } = await getRegistration(caller, id);
  return { ...toRegistrationOut(registration, withWorkflow ? workflow : null), active: await livenessOf(caller.workspace)(registration.deploymentName) };
}

export async function getRegistration(caller: Pick<Caller, "workspace">, id: string): Promise<{ registration: RegistrationRecord; workflow: WorkflowRecord }> {
  const registration = await workflowRegistry.getRegistration(caller.workspace, id);
  const workflow = registration && (await workflowRegistry.getWorkflow(caller.workspace, registration.workflowId));
  if (!registration || !workflow) throw new WorkflowNotFound("Workflow registration", id);
  return { registration, workflow };
}

/** One workflow's archive flag set, or why not (an unknown id, a storage failure). */
type ArchiveOutcome = { ok: true; workflow: WorkflowRecord; before: boolean } | { ok: false; workflowId: string; workflow: WorkflowRecord | null; message: string };

async function setArchivedOne(caller: Pick<Caller, "workspace">, identifier: string, archived: boolean, nowIso: string, byIdOnly = false): Promise<ArchiveOutcome> {
  // The bulk routes take ids only: a workflow whose name looks like a UUID is not found by it there.
  const workflow = byIdOnly ? await workflowRegistry.getWorkflow(caller.workspace, identifier) : await workflowRegistry.findWorkflow(caller.workspace, identifier);
  if (!workflow) return { ok: false, workflowId: identifier, workflow: null, message: `Workflow '${identifier}' not found` };
  // Already so: nothing to write (the audit event still says it was asked, before equal to after).
  if (workflow.archived === archived) return { ok: true, workflow, before: archived };
  const updated = await workflowRegistry.updateWorkflow(caller.workspace, workflow.id, { archived, updatedAt: nowIso });
  if (!updated) return { ok: false, workflowId: identifier, workflow: null, message: `Workflow '${identifier}' not found` };
  return { ok: true, workflow: updated, before: workflow.archived };
}

async function auditArchive(caller: Pick<Caller, "workspace" | "organization">, archived: boolean, changed: Extract<ArchiveOutcome, { ok: true }>[]): Promise<void> {
  if (!changed.length) return;
  await recordAudit({
    organization: caller.organization,
    workspace: caller.workspace,
    operation: archived ? "workflow.archive" : "workflow.unarchive",
    targets: changed.map((c) => ({ type: "workflow", id: c.workflow.id })),
    before: { workflows: changed.map((c) => ({ id: c.workflow.id, name: c.workflow.name, archived: c.before })) },
    after: { workflows: changed.map((c) => ({ id: c.workflow.id, name: c.workflow.name, archived })) },
  });
}

/**
 * PUT /v1/workflows/{workflow_identifier}/archive and …/unarchive: sets the flag (by id or name; 404 WF_1100 for an
 * unknown one). Archiving twice is no error. An archived workflow starts no new execution and is left out of the
 * lists that ask `archived=false`; its runs, registrations and schedules stay.
 */
export async function setArchived(caller: Pick<Caller, "workspace" | "organization">, identifier: string, archived: boolean): Promise<WorkflowRecord> {
  const outcome = await setArchivedOne(caller, identifier, archived, new Date().toISOString());
  if (!outcome.ok) throw new WorkflowNotFound("Workflow", identifier);
  await auditArchive(caller, archived, [outcome]);
  return outcome.workflow;
}

/** How many ids a bulk call sets at once. */
const BULK_CONCURRENCY = 10;

/**
 * PUT /v1/workflows/archive and /v1/workflows/unarchive: each id on its own (10 at a time), never failing as a
 * whole: `done` the workflows now (un)archived, already so included; `errored` each id that is not, with why (an
 * unknown id; "An error occurred" for a failure that is not the client's). One audit event names them all.
 */
export async function bulkSetArchived(
  caller: Pick<Caller, "workspace" | "organization">,
  ids: readonly string[],
  archived: boolean,
): Promise<{ done: WorkflowRecord[]; errored: { workflowId: string; workflow: WorkflowRecord | null; message: string }[] }> {
  const unique = [...new Set(ids)];
  const nowIso = new Date().toISOString();
  const outcomes: ArchiveOutcome[] = new Array(unique.length);
  for (let i = 0; i < unique.length; i += BULK_CONCURRENCY) {
    await Promise.all(
      unique.slice(i, i + BULK_CONCURRENCY).map(async (id, j) => {
        try {
          outcomes[i + j] = await setArchivedOne(caller, id, archived, nowIso, true);
        } catch (error) {
          logger.error("bulk archive of a workflow failed", { error: error as Error, workflowId: id });
          outcomes[i + j] = { ok: false, workflowId: id, workflow: null, message: "An error occurred" };
        }
      }),
    );
  }
  const changed = outcomes.filter((o): o is Extract<ArchiveOutcome, { ok: true }> => o.ok);
  await auditArchive(caller, archived, changed);
  return {
    done: changed.map((o) => o.workflow),
    errored: outcomes.filter((o): o is Extract<ArchiveOutcome, { ok: false }> => !o.ok).map(({ workflowId, workflow, message }) => ({ workflowId, workflow, message })),
  };
}

/** OA:WorkflowBulkError. */
export const toBulkErrorOut = (e: { workflowId: string; workflow: WorkflowRecord | null; message: string }) => ({
  workflow_id: e.workflowId,
  workflow: e.workflow ? toWorkflowOut(e.workflow) : null,
  message: e.message,
});

import { randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import { ApiError, Forbidden } from "../../domain/errors.js";
import { isDeploymentActive } from "../../domain/workflows/liveness.js";
import { compileProgram, definitionSchemaIssues, ProgramRefused, validateProgram, type CompiledProgram, type Program } from "../../domain/workflows/program/index.js";
import { canonicalJson, sha256Hex } from "../../domain/workflows/program/hash.js";
import type { DeploymentRecord, RegistrationRecord, WorkflowDefinition } from "../../domain/workflows/records.js";
import { mayRegisterWorkflow, registrantOf } from "../../domain/workflows/ownership.js";
import { dispatcherArn, publishProgram } from "../../engine/workflow-machines.js";
import { logger } from "../../observability/logger.js";
import type { RegisterOut, RegisterRequest, WorkflowSpec } from "../../schemas/workers.js";
import { workflowRegistry } from "../../store/workflows/registry.js";
import { assertMayRegister, ensureRegisteredDeployment } from "./deployments.js";
import { principalOf } from "./workers.js";
import { RESERVED_WORKFLOW_NAMES } from "../../domain/workflows/reserved-names.js";

/**
 * `POST /v1/workflows/register` (docs/workflows.md, "Workers"): a worker registers its deployment's
 * workflows, about every 10 s, which is also its heartbeat. Everything is checked before anything is
 * written (a refused registration changes nothing); registering the same thing again changes nothing and
 * publishes nothing (Step Functions allows about one machine change per second per account).
 */

/** Registration failures that are not the client's: WF_1104 (Workflow Registration Failed), detail hidden. */
class RegistrationFailed extends ApiError {
  constructor() {
    super(500, "server_error", "Workflow registration failed", "registration_failed", null, { familyCodes: { workflow: "WF_1104" } });
  }
}

/** The activities a program's Tasks name (`activity:<name>`), in every nested graph. */
export function activitiesOf(program: unknown): string[] {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== "object" || value === null) return;
    const record = value as Record<string, unknown>;
    if (record.Type === "Task" && typeof record.Resource === "string" && record.Resource.startsWith("activity:")) found.add(record.Resource.slice("activity:".length));
    for (const [key, child] of Object.entries(record)) if (key !== "Parameters" && key !== "Result" && key !== "ResultSelector") visit(child);
  };
  visit(program);
  return [...found].sort();
}


interface Checked {
  spec: WorkflowSpec;
  compiled: CompiledProgram;
  /** Identifies what a registration holds: program, definition and declared activities. */
  registrationHash: string;
}

const definitionOf = (spec: WorkflowSpec): WorkflowDefinition => spec.definition as WorkflowDefinition;

/**
 * Each definition's schemas and program, every refusal named under `definitions[i]`. A program whose
 * compiled hash was published for that workflow already passed the rules: only its activities are checked
 * again (the full check costs about 0.3 s, and workers register every 10 s).
 */
async function checked(workspace: string, request: RegisterRequest): Promise<Checked[]> {
  const issues: { loc: (string | number)[]; msg: string; type: string }[] = [];
  const out: Checked[] = [];
  const names = new Set<string>();
  for (const [i, spec] of request.definitions.entries()) {
    const at = ["body", "definitions", i];
    if (names.has(spec.name)) issues.push({ loc: [...at, "name"], msg: `Workflow '${spec.name}' is defined twice in this registration`, type: "value_error" });
    if (RESERVED_WORKFLOW_NAMES.has(spec.name) && !(await workflowRegistry.findWorkflow(workspace, spec.name))) {
      issues.push({
        loc: [...at, "name"],
        msg: `'${spec.name}' cannot name a workflow: /v1/workflows/${spec.name} is the path of other routes, so the workflow could not be reached by name; choose another name`,
        type: "value_error",
      });
    }
    names.add(spec.name);
    issues.push(...definitionSchemaIssues(spec.definition, [...at, "definition"]));
    let compiled: CompiledProgram | undefined;
    try {
      compiled = compileProgram(spec.program as unknown as Program, { dispatcherArn: dispatcherArn() });
    } catch {
      compiled = undefined;
    }
    const known = compiled ? await publishedBefore(workspace, spec.name, compiled.hash) : false;
    const undeclared = spec.activities ? activitiesOf(spec.program).filter((name) => !spec.activities!.includes(name)) : [];
    if (!known || undeclared.length || !compiled) {
      const programIssues = validateProgram(spec.program, { activities: spec.activities });
      issues.push(...programIssues.map((issue) => ({ loc: [...at, "program", ...issue.path], msg: issue.message, type: `program.${issue.rule}` })));
      if (programIssues.length) continue;
      compiled ??= compileProgram(spec.program as unknown as Program, { dispatcherArn: dispatcherArn() });
    }
    const registrationHash = sha256Hex(canonicalJson({ program: compiled.hash, definition: spec.definition, activities: spec.activities ? [...spec.activities].sort() : null }));
    out.push({ spec, compiled, registrationHash });
  }
  if (issues.length) throw new ProgramRefused(issues);
  return out;
}

async function publishedBefore(workspace: string, name: string, hash: string): Promise<boolean> {
  const workflow = await workflowRegistry.findWorkflow(workspace, name);
  return workflow?.name === name ? (await workflowRegistry.getVersion(workflow.id, hash)) !== undefined : false;
}

export async function register(caller: Caller, request: RegisterRequest): Promise<RegisterOut> {
  // Who may register comes before what they sent: a hardened deployment takes only its principals,
  // and a workflow someone else registered only its owner or a serving deployment's principals.
  const deployment = await assertMayRegister(caller, request.deployment_name);
  const existing = await assertMayRegisterWorkflows(caller, request.deployment_name, deployment, request.definitions.map((d) => d.name));
  const definitions = await checked(caller.workspace, request);
  await assertOnBehalfAllowed(caller, request.deployment_name, deployment, definitions);
  const worker = request.worker_name ?? caller.keyId;
  let registrations: RegistrationRecord[];
  try {
    registrations = await written(caller, request.deployment_name, definitions, existing);
    await workflowRegistry.heartbeat({
      workspace: caller.workspace,
      deploymentName: request.deployment_name,
      name: worker,
      lastHeartbeatMs: Date.now(),
      workflows: registrations.map((r) => r.workflowName),
      principal: principalOf(caller),
    });
  } catch (error) {
    if (error instanceof ApiError) throw error;
    logger.error("workflow registration failed", { error: error as Error, deployment: request.deployment_name });
    throw new RegistrationFailed();
  }
  const warnings = await conflicts(caller.workspace, request.deployment_name, registrations.map((r) => r.workflowName));
  const ids = registrations.map((r) => r.id);
  return { workflow_registration_ids: ids, workflow_version_ids: ids, has_conflicts: warnings.length > 0, warnings };
}

/**
 * An on-behalf-of workflow (`definition.on_behalf_of`) runs tied to a user's identity: only a hardened
 * deployment may serve it (decision 0023). Refused with 422 WF_1104 naming each such definition; the
 * deployment record is still made, as Mistral pre-creates it (reference/workflows.md §1.1), so an admin can
 * harden it and the worker's next register goes through.
 */
async function assertOnBehalfAllowed(caller: Caller, deploymentName: string, deployment: { principals?: string[] } | undefined, definitions: Checked[]): Promise<void> {
  // A deployment this register makes is hardened (decision 0042).
  if (!deployment || (deployment.principals ?? []).length) return;
  const issues = definitions.flatMap(({ spec }, i) =>
    definitionOf(spec)?.on_behalf_of === true
      ? [{ loc: ["body", "definitions", i, "definition", "on_behalf_of"], msg: `An on-behalf-of workflow needs a hardened deployment; '${deploymentName}' has no authorized principals`, type: "value_error" }]
      : [],
  );
  if (!issues.length) return;
  throw new ProgramRefused(issues);
}

/** 403 `workflow_owned`: a workflow someone else registered (decision 0042). */
class WorkflowOwned extends Forbidden {
  constructor(name: string) {
    super(
      `Workflow '${name}' was registered by another principal: only its owner, or an authorized principal of a hardened deployment that already serves it, may register it`,
      "workflow_owned",
    );
  }
}

/**
 * Registering a workflow that exists (a new program or definition for it, or the same again) needs its owner
 * or an authorized principal of this deployment when the deployment already serves it (decision 0042):
 * otherwise a contributor could put their program under an admin's workflow name, and the admin's next run
 * of it would run theirs. Checked for every definition before anything is written.
 */
async function assertMayRegisterWorkflows(caller: Caller, deploymentName: string, deployment: DeploymentRecord | undefined, names: string[]): Promise<Set<string>> {
  let served: Set<string> | undefined;
  const existing = new Set<string>();
  for (const name of names) {
    const workflow = await workflowRegistry.findWorkflow(caller.workspace, name);
    if (!workflow || workflow.name !== name) continue;
    existing.add(name);
    served ??= new Set((await workflowRegistry.listRegistrations(caller.workspace)).filter((r) => r.deploymentName === deploymentName).map((r) => r.workflowId));
    const target = deployment ? { principals: deployment.principals, servesWorkflow: served.has(workflow.id) } : undefined;
    if (!mayRegisterWorkflow(caller, workflow, target)) throw new WorkflowOwned(name);
  }
  return existing;
}

async function written(caller: Caller, deploymentName: string, definitions: Checked[], checkedExisting: Set<string>): Promise<RegistrationRecord[]> {
  const now = new Date().toISOString();
  await ensureRegisteredDeployment(caller, deploymentName);
  const registrant = registrantOf(caller);
  const out: RegistrationRecord[] = [];
  for (const { spec, compiled, registrationHash } of definitions) {
    const workflow = await workflowRegistry.ensureWorkflow({
      id: randomUUID(),
      workspace: caller.workspace,
      organization: caller.organization,
      name: spec.name,
      displayName: spec.display_name ?? spec.name,
      description: spec.description ?? null,
      tags: [],
      availableInChatAssistant: false,
      archived: false,
      createdAt: now,
      updatedAt: now,
      owner: registrant,
    });
    // Another principal made this name between the check and now: theirs, unchecked for this caller.
    if (!checkedExisting.has(workflow.name) && workflow.owner && workflow.owner.principal !== caller.principal) throw new WorkflowOwned(workflow.name);
    // A workflow from before owners were recorded is owned by whoever passed the check above first (a serving deployment's principal).
    if (!workflow.owner) await workflowRegistry.claimWorkflowOwner(caller.workspace, workflow.id, registrant);
    // One published version per program: the same program registered again publishes nothing.
    let versionArn = await workflowRegistry.getVersion(workflow.id, compiled.hash);
    if (!versionArn) {
      versionArn = await publishProgram(workflow.id, compiled.definition, compiled.hash);
      await workflowRegistry.putVersion(workflow.id, compiled.hash, versionArn);
    }
    const { registration, created } = await workflowRegistry.ensureRegistration({
      id: randomUUID(),
      workspace: caller.workspace,
      workflowId: workflow.id,
      workflowName: workflow.name,
      deploymentName,
      definition: definitionOf(spec),
      program: spec.program,
      // The registration's identity: the same program with another definition (an input schema changed) is another registration.
      programHash: registrationHash,
      versionArn,
      activities: spec.activities ? [...spec.activities].sort() : activitiesOf(spec.program),
      compatibleWithChatAssistant: false,
      createdAt: now,
      registeredBy: registrant,
    });
    // A registration from before registrants were recorded gets one when registered again: its connector steps can run from then on.
    if (!created && !registration.registeredBy) await workflowRegistry.setRegistrant(caller.workspace, registration.id, registrant);
    out.push(registration);
  }
  return out;
}

/** Another active deployment registered the same workflow: executions without a deployment name become ambiguous. */
async function conflicts(workspace: string, deploymentName: string, names: string[]): Promise<string[]> {
  const wanted = new Set(names);
  const others = new Map<string, Set<string>>();
  for (const registration of await workflowRegistry.listRegistrations(workspace)) {
    if (registration.deploymentName === deploymentName || !wanted.has(registration.workflowName)) continue;
    if (!others.has(registration.deploymentName)) others.set(registration.deploymentName, new Set());
    others.get(registration.deploymentName)!.add(registration.workflowName);
  }
  const warnings: string[] = [];
  const now = Date.now();
  for (const [other, workflows] of [...others].sort(([a], [b]) => a.localeCompare(b))) {
    if (!isDeploymentActive(await workflowRegistry.listWorkers(workspace, other), now)) continue;
    for (const name of [...workflows].sort()) {
      warnings.push(`Workflow '${name}' is also registered by the active deployment '${other}': executions of it must name a deployment_name`);
    }
  }
  return warnings;
}

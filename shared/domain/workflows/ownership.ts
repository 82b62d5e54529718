import type { Caller } from "../caller.js";
import type { DeploymentRecord, Registrant, RunRecord, WorkflowRecord } from "./records.js";

/**
 * Who may register what, and whose rights a program runs with (decision 0042). Pure rules; the
 * registration service reads the records and applies them before anything is written.
 */

/** The principal a deployment's authorized set names for a caller: the service account, or the key. */
export const deploymentPrincipalOf = (caller: Pick<Caller, "principalType" | "principal" | "keyId">) =>
  caller.principalType === "service_account" ? caller.principal : caller.keyId;

/** What a registration records of the caller who sent it. */
export const registrantOf = (caller: Pick<Caller, "principal" | "principalType" | "keyId">): Registrant => ({
  principal: caller.principal,
  principalType: caller.principalType,
  keyId: caller.keyId,
});

/**
 * A deployment record written before deployments were hardened by default: no authorized principals and
 * never opened on purpose. The next register adopts it (`adoptedPrincipals`).
 */
export const isLegacyOpen = (deployment: Pick<DeploymentRecord, "principals" | "openedAt">) =>
  (deployment.principals ?? []).length === 0 && !deployment.openedAt;

/**
 * The authorized set a legacy deployment gets on its first register since: the principals of the workers
 * it has on record (they served it already), or, when none is on record, the registering caller (who
 * could register into it anyway). `undefined` when the caller is not among the known workers: it is then
 * refused like any stranger to a hardened deployment.
 */
export function adoptedPrincipals(knownWorkerPrincipals: string[], caller: Pick<Caller, "principalType" | "principal" | "keyId">): string[] | undefined {
  const me = deploymentPrincipalOf(caller);
  const known = [...new Set(knownWorkerPrincipals.filter(Boolean))].sort();
  if (known.length === 0) return [me];
  return known.includes(me) ? known : undefined;
}

/**
 * Whether `caller` may register `workflow` (an existing one) into `deployment`: its owner may, and so may an
 * authorized principal of a hardened deployment that already serves the workflow (the owner or an admin
 * entrusted it to that pool). Nobody else: a new program under someone else's name would run with their
 * name's history, its executions routed to it, its results read by the same people.
 * A workflow made before owners were recorded has none: only a serving deployment's principals may.
 */
export function mayRegisterWorkflow(
  caller: Pick<Caller, "principalType" | "principal" | "keyId">,
  workflow: Pick<WorkflowRecord, "owner">,
  deployment: { principals?: string[]; servesWorkflow: boolean } | undefined,
): boolean {
  if (workflow.owner && workflow.owner.principal === caller.principal && workflow.owner.principalType === caller.principalType) return true;
  const principals = deployment?.principals ?? [];
  return deployment?.servesWorkflow === true && principals.includes(deploymentPrincipalOf(caller));
}

/** A run's registrant on the wire (the execution's `registered_by` extension, the STARTED event's attribute); null for a program registered before registrants were recorded. */
export const registeredByOut = (run: Pick<RunRecord, "registeredBy" | "registrationId">) =>
  run.registeredBy ? { principal_id: run.registeredBy.principal, principal_type: run.registeredBy.principalType, registration_id: run.registrationId } : null;

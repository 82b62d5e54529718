/**
 * The spec's connector state table, as one pure function: who may move a connector between private,
 * workspace-shared and organization-shared, and what it becomes (docs/connectors.md, decision 30).
 */
import type { Caller } from "../caller.js";
import { Conflict, Forbidden } from "../errors.js";
import { permits } from "../identity/permissions.js";
import type { ConnectorRecord, ConnectorVisibility, ConsumerScope } from "./records.js";

export type SharingMove = "share-workspace" | "unshare-workspace" | "share-organization" | "unshare-organization";

interface Rule {
  from: ConnectorVisibility;
  to: ConnectorVisibility;
  /** The caller must be the connector's creator (workspace moves). */
  creatorOnly: boolean;
  permission: "connectors:share-workspace" | "connectors:share-organization";
  /** The spec's permission name, for the refusal. */
  spec: string;
}

const RULES: Record<SharingMove, Rule> = {
  "share-workspace": { from: "private", to: "shared_workspace", creatorOnly: true, permission: "connectors:share-workspace", spec: "ShareConnectorToWorkspace" },
  "unshare-workspace": { from: "shared_workspace", to: "private", creatorOnly: true, permission: "connectors:share-workspace", spec: "ShareConnectorToWorkspace" },
  "share-organization": { from: "private", to: "shared_org", creatorOnly: false, permission: "connectors:share-organization", spec: "ShareConnectorToOrg" },
  "unshare-organization": { from: "shared_org", to: "private", creatorOnly: false, permission: "connectors:share-organization", spec: "ShareConnectorToOrg" },
};

export interface SharingOutcome {
  to: ConnectorVisibility;
  /** Nothing changes: the connector is already where the move takes it (a repeated share). */
  unchanged: boolean;
  /** Unsharing removes every connection but the creator's own. */
  removesConnections: boolean;
  message: string;
}

/** Checks the move against the state table; throws 403 (permission, creator) or 409 (a move the table does not have). */
export function sharingMove(move: SharingMove, connector: Pick<ConnectorRecord, "visibility" | "creatorId" | "name">, caller: Pick<Caller, "roles" | "admin" | "principal">): SharingOutcome {
  const rule = RULES[move];
  if (!permits(caller, rule.permission)) throw new Forbidden(`Sharing connectors this way needs the ${rule.spec} permission (${rule.permission})`, "missing_permission");
  if (rule.creatorOnly && connector.creatorId !== caller.principal) throw new Forbidden(`Only the connector's creator may ${move === "share-workspace" ? "share it to" : "unshare it from"} the workspace`, "not_connector_creator");
  const sharing = move.startsWith("share-");
  if (sharing && connector.visibility === rule.to) return { to: rule.to, unchanged: true, removesConnections: false, message: `Connector '${connector.name}' is already ${describe(rule.to)}` };
  if (connector.visibility !== rule.from) {
    throw new Conflict(`Connector '${connector.name}' is ${describe(connector.visibility)}; only a ${describe(rule.from)} connector can be ${sharing ? "shared" : "unshared"} this way`, "invalid_connector_visibility");
  }
  return { to: rule.to, unchanged: false, removesConnections: !sharing, message: sharing ? `Connector '${connector.name}' is now ${describe(rule.to)}` : `Connector '${connector.name}' is now private to its creator` };
}

function describe(visibility: ConnectorVisibility): string {
  return visibility === "private" ? "private" : visibility === "shared_workspace" ? "shared with the workspace" : "shared with the organization";
}

/** Creating a connector already shared needs the permission its sharing would. */
export function mayCreateWith(visibility: ConnectorVisibility, caller: Pick<Caller, "roles" | "admin">): void {
  if (visibility === "shared_workspace" && !permits(caller, "connectors:share-workspace")) throw new Forbidden("Creating a workspace-shared connector needs the ShareConnectorToWorkspace permission", "missing_permission");
  if (visibility === "shared_org" && !permits(caller, "connectors:share-organization")) throw new Forbidden("Creating an organization-shared connector needs the ShareConnectorToOrg permission", "missing_permission");
}

/**
 * Enabling a connector, or storing credentials, for a consumer: anyone who sees the connector may do so
 * for themselves; for the workspace it takes ShareConnectorToWorkspace, for the organization ShareConnectorToOrg.
 */
export function mayActOnBehalfOf(scope: ConsumerScope, caller: Pick<Caller, "roles" | "admin">): void {
  if (scope === "workspace" && !permits(caller, "connectors:share-workspace")) throw new Forbidden("Acting for the whole workspace needs the ShareConnectorToWorkspace permission", "missing_permission");
  if (scope === "organization" && !permits(caller, "connectors:share-organization")) throw new Forbidden("Acting for the whole organization needs the ShareConnectorToOrg permission", "missing_permission");
}

/** Changing or deleting a connector: its creator, or whoever may manage the scope it is shared with. */
export function mayChange(connector: Pick<ConnectorRecord, "visibility" | "creatorId">, caller: Pick<Caller, "roles" | "admin" | "principal">): void {
  if (connector.creatorId === caller.principal) return;
  if (connector.visibility === "shared_workspace" && permits(caller, "connectors:share-workspace")) return;
  if (connector.visibility === "shared_org" && permits(caller, "connectors:share-organization")) return;
  throw new Forbidden("Only the connector's creator, or an admin of the scope it is shared with, may change it", "not_connector_creator");
}

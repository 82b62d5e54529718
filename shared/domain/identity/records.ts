import type { GuardrailConfig } from "../../schemas/guardrails.js";
import type { OrganizationRoleName, WorkspaceRoleName } from "./roles.js";

export interface Organization {
  id: string;
  name: string;
  createdAt: string;
}

export interface Workspace {
  id: string;
  organization: string;
  name: string;
  isDefault: boolean;
  createdAt: string;
  description?: string | null;
  icon?: string | null;
  updatedAt?: string;
  /** Set when the workspace is archived (DELETE): its keys stop working, its data is kept. */
  archivedAt?: string | null;
  spendLimit?: SpendLimit | null;
  /** Whether model-call spans keep message content (docs/decisions/0039); unset follows the deployment's default. */
  telemetryContentCapture?: boolean | null;
  /** Model answers are kept this long and identical calls answered from them; unset or null: off. */
  responseCacheTtlSeconds?: number | null;
  /** The guardrails a chat call runs when it names none (docs/routing.md, "Guardrails"); unset or null: none. */
  defaultGuardrails?: GuardrailConfig[] | null;
  /** Kept exact by the membership writes (one transaction each). */
  membersCount?: number;
}

/** A person of the organization, created by the operator (`npm run users`); holds keys of their own. */
export interface UserRecord {
  id: string;
  organization: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  /** Roles across the organization (organization_admin, billing_manager, member). */
  organizationRoles: OrganizationRoleName[];
  createdAt: string;
}

/** A user's place in a workspace, with the roles it holds there. */
export interface MembershipRecord {
  organization: string;
  workspace: string;
  user: string;
  roles: WorkspaceRoleName[];
  addedAt: string;
  updatedAt: string;
}

/** A non-person principal of one workspace, holding API keys and roles; deleting it is soft. */
export interface ServiceAccountRecord {
  id: string;
  organization: string;
  workspace: string;
  name: string;
  description: string | null;
  roles: WorkspaceRoleName[];
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

/** A workspace's monthly spend limit: a value in a currency, or explicitly none. */
export interface SpendLimit {
  value: number | null;
  currency: string | null;
  noMonthlyLimit: boolean;
  /** Alert (an event, a flag in the usage answers) once the month's spend reaches this; never refuses a call. */
  softValue?: number | null;
}

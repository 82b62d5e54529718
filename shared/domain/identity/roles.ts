/**
 * The roles of the OpenAPI, with their codes and static UUIDs. The OpenAPI lists the workspace roles'
 * names and their static UUIDs as two enums without saying which is which; we pair them in the order
 * both lists give (docs/permissions.md), and accept every spelling: the name, `A`/`M`, the UUID.
 */
export interface RoleDefinition {
  /** The name clients send in `role_names` and see in listings. */
  name: string;
  /** Its static UUID (the OpenAPI's StaticWorkspaceRoles / StaticOrganizationRoles). */
  uuid: string;
  /** The legacy one-letter code (`A`, `M`, `B`), where the role has one. */
  code?: string;
  description: string;
  scope: "workspace" | "organization";
}

export const WORKSPACE_ROLES = [
  { name: "billing", uuid: "d7ea77c5-9260-41d0-ab26-52b5add3ee56", description: "Reads the workspace's usage and spend.", scope: "workspace" },
  { name: "user", uuid: "48436751-ee56-44bd-8a2d-712233977821", code: "M", description: "Uses the platform: reads everything, calls models, uploads files, runs batch jobs.", scope: "workspace" },
  { name: "contributor", uuid: "375cd0db-3bbe-4b79-80f3-954ccf04f3d1", description: "A user who also creates and changes agents, prompts, skills and models.", scope: "workspace" },
  { name: "dev", uuid: "578584f1-4319-4c88-9948-38a5184483b6", description: "As a user, for developer tooling.", scope: "workspace" },
  { name: "dev_contributor", uuid: "d79b3027-4eb2-4521-8722-825acfee7d8b", description: "As a contributor, for developer tooling.", scope: "workspace" },
  { name: "mistral_code_user", uuid: "252a0825-40b9-4b98-be80-7658956f13e9", description: "Calls models (code completion) and reads the model list; nothing else.", scope: "workspace" },
  { name: "cloud_user", uuid: "17aa61c5-1c61-477e-a40a-e52c8ccd74b9", description: "As a user.", scope: "workspace" },
  { name: "workspace_contributor", uuid: "b23cd6e0-91cd-4a8a-9869-b30366bf3966", description: "As a contributor.", scope: "workspace" },
  { name: "workspace_admin", uuid: "731eb2be-a74f-4070-b797-35bf7009e553", code: "A", description: "Everything in the workspace, including its service accounts and their roles.", scope: "workspace" },
  { name: "observability_viewer", uuid: "ff86d432-7f27-47f8-b02f-b5c102ef6a55", description: "Reads traces, spans, logs and evaluations; nothing else.", scope: "workspace" },
  { name: "workflow_executor", uuid: "0f9acbf6-93b5-42c7-a227-fc7652755f65", description: "Reads workflows and starts, signals and stops their executions.", scope: "workspace" },
] as const satisfies readonly RoleDefinition[];

export const ORGANIZATION_ROLES = [
  { name: "member", uuid: "0d48f530-095c-43fe-8aea-6673bcacabe6", code: "M", description: "Belongs to the organization; what it may do is its workspace roles'.", scope: "organization" },
  { name: "billing_manager", uuid: "c955f4e1-9477-43f0-8349-6fbc629fccc9", code: "B", description: "Reads usage and spend in every workspace of the organization.", scope: "organization" },
  { name: "organization_admin", uuid: "7bde5959-d676-47d2-b779-35b64323d278", code: "A", description: "Everything in every workspace of the organization, and its workspaces themselves.", scope: "organization" },
] as const satisfies readonly RoleDefinition[];

export type WorkspaceRoleName = (typeof WORKSPACE_ROLES)[number]["name"];
export type OrganizationRoleName = (typeof ORGANIZATION_ROLES)[number]["name"];
export type RoleName = WorkspaceRoleName | OrganizationRoleName;

export const WORKSPACE_ROLE_NAMES = WORKSPACE_ROLES.map((r) => r.name) as [WorkspaceRoleName, ...WorkspaceRoleName[]];

/** The workspace role any of its spellings names (`workspace_admin`, `A`, its UUID), or undefined. */
export function workspaceRole(value: string): WorkspaceRoleName | undefined {
  return (WORKSPACE_ROLES as readonly RoleDefinition[]).find((r) => r.name === value || r.uuid === value || r.code === value)?.name as WorkspaceRoleName | undefined;
}

/** The organization role any of its spellings names (`organization_admin`, `A`, its UUID), or undefined. */
export function organizationRole(value: string): OrganizationRoleName | undefined {
  return (ORGANIZATION_ROLES as readonly RoleDefinition[]).find((r) => r.name === value || r.uuid === value || r.code === value)?.name as OrganizationRoleName | undefined;
}

/** How a workspace role appears in `raw_roles`: `A` and `M` for the two with codes, the UUID otherwise. */
export function rawWorkspaceRole(name: WorkspaceRoleName): string {
  const role: RoleDefinition = WORKSPACE_ROLES.find((r) => r.name === name)!;
  return role.code ?? role.uuid;
}

export const roleUuid = (name: RoleName): string => ([...WORKSPACE_ROLES, ...ORGANIZATION_ROLES] as readonly RoleDefinition[]).find((r) => r.name === name)!.uuid;

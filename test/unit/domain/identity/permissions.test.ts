import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { routes } from "../../../../functions/routes.js";
import { permissionPage } from "../../../../scripts/permission-page.js";
import { PERMISSIONS, permits, ROLE_PERMISSIONS } from "../../../../shared/domain/identity/permissions.js";
import { ORGANIZATION_ROLES, organizationRole, rawWorkspaceRole, WORKSPACE_ROLES, workspaceRole } from "../../../../shared/domain/identity/roles.js";
import { routeKey } from "../../../../shared/http/policy.js";

describe("roles", () => {
  it("are named by their name, their code or their static UUID", () => {
    expect(workspaceRole("workspace_admin")).toBe("workspace_admin");
    expect(workspaceRole("A")).toBe("workspace_admin");
    expect(workspaceRole("M")).toBe("user");
    expect(workspaceRole("ff86d432-7f27-47f8-b02f-b5c102ef6a55")).toBe("observability_viewer");
    expect(workspaceRole("organization_admin")).toBeUndefined();
    expect(organizationRole("7bde5959-d676-47d2-b779-35b64323d278")).toBe("organization_admin");
    expect(organizationRole("B")).toBe("billing_manager");
  });

  it("have one UUID each, the OpenAPI's static ones", () => {
    const uuids = [...WORKSPACE_ROLES, ...ORGANIZATION_ROLES].map((r) => r.uuid);
    expect(new Set(uuids).size).toBe(uuids.length);
    expect(WORKSPACE_ROLES).toHaveLength(11);
  });

  it("show as A, M or their UUID in raw_roles", () => {
    expect(rawWorkspaceRole("workspace_admin")).toBe("A");
    expect(rawWorkspaceRole("user")).toBe("M");
    expect(rawWorkspaceRole("workflow_executor")).toBe("0f9acbf6-93b5-42c7-a227-fc7652755f65");
  });
});

describe("permits", () => {
  it("grants what any of the caller's roles allows, and nothing else", () => {
    expect(permits({ roles: ["observability_viewer"], admin: false }, "observability:read")).toBe(true);
    expect(permits({ roles: ["observability_viewer"], admin: false }, "files:read")).toBe(false);
    expect(permits({ roles: ["billing", "workflow_executor"], admin: false }, "workflows:execute")).toBe(true);
    expect(permits({ roles: ["no_such_role"], admin: false }, "files:read")).toBe(false);
    expect(permits({ roles: [], admin: false }, "files:read")).toBe(false);
  });

  it("lets an admin key and an organization admin do everything", () => {
    for (const permission of PERMISSIONS) {
      expect(permits({ roles: [], admin: true }, permission)).toBe(true);
      expect(permits({ roles: ["organization_admin"], admin: false }, permission)).toBe(true);
    }
  });

  it("gives workspace_admin everything of the workspace and nothing of the organization", () => {
    expect(ROLE_PERMISSIONS.workspace_admin).toContain("service-accounts:manage");
    expect(ROLE_PERMISSIONS.workspace_admin).not.toContain("workspaces:admin");
  });
});

describe("docs/permissions.md", () => {
  it("is the page the tables write (run `npm run permissions` after changing them)", () => {
    const page = permissionPage(routes.map((row) => ({ key: routeKey(row), permission: row.permission, auth: row.auth })));
    expect(readFileSync(new URL("../../../../docs/permissions.md", import.meta.url), "utf8")).toBe(page);
  });
});

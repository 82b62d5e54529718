import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { allows, levelOf } from "../../../../shared/domain/libraries/access.js";
import { checkShareTarget } from "../../../../shared/domain/libraries/sharing.js";
import { ApiError } from "../../../../shared/domain/errors.js";
import { aCaller } from "../../../support/builders.js";

const caller = aCaller();
const access = (entityType: "User" | "Workspace" | "Org", entityId: string, role: "Viewer" | "Editor" | "Owner") => ({ entityType, entityId, role });

describe("a caller's level on a library", () => {
  it("is the highest role among the accesses naming its principal, its workspace or its organization", () => {
    expect(levelOf([access("Org", caller.organization, "Viewer"), access("Workspace", caller.workspace, "Editor")], caller)).toBe("Editor");
    expect(levelOf([access("User", caller.principal, "Owner"), access("Org", caller.organization, "Viewer")], caller)).toBe("Owner");
  });

  it("is null when no access names the caller: the library does not exist for it", () => {
    expect(levelOf([access("Workspace", randomUUID(), "Owner"), access("User", randomUUID(), "Editor"), access("Org", randomUUID(), "Viewer")], caller)).toBeNull();
  });

  it("lets a Viewer read, an Editor edit, and only the Owner share and delete", () => {
    expect([allows("Viewer", "read"), allows("Viewer", "edit")]).toEqual([true, false]);
    expect([allows("Editor", "edit"), allows("Editor", "share"), allows("Editor", "delete")]).toEqual([true, false, false]);
    expect([allows("Owner", "share"), allows("Owner", "delete")]).toEqual([true, true]);
  });
});

describe("checkShareTarget", () => {
  const library = { organization: caller.organization, ownerType: "Workspace" as const, ownerId: caller.workspace };
  const refusal = (fn: () => void) => {
    try {
      fn();
    } catch (error) {
      return error instanceof ApiError ? { status: error.status, code: error.code } : error;
    }
    return undefined;
  };

  it("accepts a user or another workspace of the organization", () => {
    expect(refusal(() => checkShareTarget({ type: "User", id: randomUUID() }, library, caller))).toBeUndefined();
    expect(refusal(() => checkShareTarget({ type: "Workspace", id: randomUUID() }, library, caller))).toBeUndefined();
  });

  it("refuses another organization, by share_with_uuid or by org_id", () => {
    const admin = aCaller({ roles: ["organization_admin"] });
    expect(refusal(() => checkShareTarget({ type: "Org", id: randomUUID() }, library, admin))).toEqual({ status: 400, code: "library_share_outside_organization" });
    expect(refusal(() => checkShareTarget({ type: "User", id: randomUUID(), orgId: randomUUID() }, library, caller))).toEqual({ status: 400, code: "library_share_outside_organization" });
  });

  it("refuses the owner's own access, whatever the case of its id", () => {
    expect(refusal(() => checkShareTarget({ type: "Workspace", id: caller.workspace.toUpperCase() }, library, caller))).toEqual({ status: 400, code: "library_owner_access" });
  });

  it("shares with the organization only for libraries:share-organization", () => {
    expect(refusal(() => checkShareTarget({ type: "Org", id: caller.organization }, library, aCaller({ roles: ["workspace_admin"] })))).toMatchObject({ status: 403 });
    expect(refusal(() => checkShareTarget({ type: "Org", id: caller.organization }, library, aCaller({ roles: ["organization_admin"] })))).toBeUndefined();
  });
});

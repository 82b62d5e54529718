/**
 * Who may give or take away an access to a library, and to whom (docs/libraries.md, decision 68). Pure: the
 * service has already found the library and checked that the caller owns it.
 */
import type { Caller } from "../caller.js";
import { BadRequest, Forbidden } from "../errors.js";
import { permits } from "../identity/permissions.js";
import { ownerEntity, sameEntity, type Entity, type LibraryRecord } from "./access.js";

/**
 * Checks the entity an access change names: within the caller's organization (a library is never shared outside
 * it), not the owner (whose access is the library's own and never changes), and the organization only with the
 * organization's share permission. Throws 400 or 403; the service then checks that a user or workspace exists.
 */
export function checkShareTarget(target: Entity & { orgId?: string | null }, library: Pick<LibraryRecord, "organization" | "ownerType" | "ownerId">, caller: Pick<Caller, "roles" | "admin">): void {
  if (target.orgId && target.orgId.toLowerCase() !== library.organization) {
    throw new BadRequest("A library cannot be shared outside of its organization", "library_share_outside_organization", "org_id");
  }
  if (target.type === "Org" && target.id.toLowerCase() !== library.organization) {
    throw new BadRequest("A library cannot be shared outside of its organization", "library_share_outside_organization", "share_with_uuid");
  }
  if (sameEntity({ type: target.type, id: target.id.toLowerCase() }, ownerEntity(library))) {
    throw new BadRequest("The owner's access to its library cannot be changed or removed", "library_owner_access", "share_with_uuid");
  }
  if (target.type === "Org" && !permits(caller, "libraries:share-organization")) {
    throw new Forbidden("Sharing a library with the whole organization takes the libraries:share-organization permission (organization admins)", "permission_denied");
  }
}

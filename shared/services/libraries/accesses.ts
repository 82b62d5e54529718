/**
 * A library's accesses (beta `libraries.accesses`): list, share (create or change a level), unshare
 * (docs/libraries.md, decision 68). Only the owner changes them; every change is an audit event.
 */
import type { Caller } from "../../domain/caller.js";
import { ApiError, BadRequest, Conflict } from "../../domain/errors.js";
import { MAX_ACCESSES, sameEntity, type AccessRecord, type Entity, type LibraryRecord } from "../../domain/libraries/access.js";
import { checkShareTarget } from "../../domain/libraries/sharing.js";
import type { ListSharingOut, SharingDelete, SharingOut, SharingRequest } from "../../schemas/library.js";
import { identityStore } from "../../store/identity.js";
import { librariesStore } from "../../store/libraries/index.js";
import { tenancyStore } from "../../store/tenancy.js";
import { recordAudit } from "../audit/record.js";
import { reach } from "./libraries.js";

/** Attempts at a change that concurrent ones keep beating (every access change also writes the head's counters). */
const ATTEMPTS = 10;
/** A random pause before trying again, growing with the attempt, so racing writers spread out. */
const backoff = (attempt: number) => (attempt ? new Promise((r) => setTimeout(r, Math.random() * 10 * 2 ** Math.min(attempt, 5))) : undefined);

class EntityNotFound extends ApiError {
  constructor(entity: Entity) {
    super(404, "not_found_error", `No ${entity.type === "User" ? "user or service account" : "workspace"} with id '${entity.id}' exists in this organization`, `${entity.type.toLowerCase()}_not_found`, "share_with_uuid");
  }
}

class AccessNotFound extends ApiError {
  constructor(library: string, entity: Entity) {
    super(404, "not_found_error", `Library '${library}' is not shared with ${entity.type} '${entity.id}'`, "library_access_not_found", "share_with_uuid");
  }
}

export async function list(caller: Caller, id: string): Promise<ListSharingOut> {
  const { accesses } = await reach(caller, id, "read");
  const order = (a: AccessRecord) => (a.role === "Owner" ? "0" : `1${a.createdAt}`);
  return { data: [...accesses].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0)).map(sharingOut) };
}

/**
 * The entity exists in the caller's organization: a workspace, the organization itself, or for `User` a user, a
 * service account or the principal of one of the organization's keys.
 */
async function checkExists(organization: string, entity: Entity): Promise<void> {
  if (entity.type === "Org") return;
  const found =
    entity.type === "Workspace"
      ? await tenancyStore.getWorkspace(organization, entity.id)
      : (await Promise.all([identityStore.getUser(organization, entity.id), identityStore.getServiceAccount(organization, entity.id), tenancyStore.getPrincipal(organization, entity.id)])).find(Boolean);
  if (!found) throw new EntityNotFound(entity);
}

const targetOf = (body: { share_with_type: Entity["type"]; share_with_uuid: string }): Entity => ({ type: body.share_with_type, id: body.share_with_uuid.toLowerCase() });

export async function share(caller: Caller, id: string, body: SharingRequest): Promise<SharingOut> {
  const target = targetOf(body);
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    await backoff(attempt);
    const { library, accesses } = await reach(caller, id, "share");
    checkShareTarget({ ...target, orgId: body.org_id }, library, caller);
    await checkExists(library.organization, target);
    const seen = accesses.find((a) => sameEntity({ type: a.entityType, id: a.entityId }, target));
    const now = new Date().toISOString();
    const access: AccessRecord = { libraryId: library.id, organization: library.organization, entityType: target.type, entityId: target.id, role: body.level, createdAt: seen?.createdAt ?? now, updatedAt: now };
    const event = { organization: library.organization, workspace: caller.workspace, operation: "library.share", targets: targets(library, target), before: { role: seen?.role ?? null }, after: { role: body.level } } as const;
    // A repeated share changes nothing; it is recorded all the same: the owner asked for it.
    if (seen?.role === body.level) {
      await recordAudit(event);
      return sharingOut(seen);
    }
    if (!seen && accesses.length >= MAX_ACCESSES) throw new BadRequest(`A library may be shared with at most ${MAX_ACCESSES - 1} users, workspaces and organizations`, "library_access_limit", "share_with_uuid");
    if (await librariesStore.putAccess(library, access, seen)) {
      await recordAudit(event);
      return sharingOut(access);
    }
  }
  throw new Conflict("The library's accesses changed while it was being shared; try again", "library_changed");
}

export async function unshare(caller: Caller, id: string, body: SharingDelete): Promise<SharingOut> {
  const target = targetOf(body);
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    await backoff(attempt);
    const { library, accesses } = await reach(caller, id, "share");
    checkShareTarget({ ...target, orgId: body.org_id }, library, caller);
    const seen = accesses.find((a) => sameEntity({ type: a.entityType, id: a.entityId }, target));
    if (!seen) throw new AccessNotFound(library.id, target);
    if (await librariesStore.deleteAccess(library, seen, new Date().toISOString())) {
      await recordAudit({ organization: library.organization, workspace: caller.workspace, operation: "library.unshare", targets: targets(library, target), before: { role: seen.role }, after: null });
      return sharingOut(seen);
    }
  }
  throw new Conflict("The library's accesses changed while it was being unshared; try again", "library_changed");
}

/** The audit log's targets of an access change: the library and whom the access names. */
const targets = (library: Pick<LibraryRecord, "id">, entity: Entity) => [
  { type: "library", id: library.id },
  { type: entity.type === "User" ? "principal" : entity.type === "Workspace" ? "workspace" : "organization", id: entity.id },
];

export const sharingOut = (access: AccessRecord): SharingOut => ({
  library_id: access.libraryId,
  user_id: access.entityType === "User" ? access.entityId : null,
  org_id: access.organization,
  role: access.role,
  share_with_type: access.entityType,
  share_with_uuid: access.entityId,
});

/**
 * Libraries (beta): create, list, get, update, delete (docs/libraries.md, decision 68). A library belongs to an
 * organization and is owned by a principal (`User`) or a workspace (`Workspace`); a caller sees it when one of its
 * accesses names the caller's principal, workspace or organization, and any other id answers 404. What a caller may
 * do follows its level (shared/domain/libraries/access.ts): Viewer reads, Editor changes, Owner shares and deletes.
 */
import { randomUUID } from "node:crypto";
import * as z from "zod";
import type { Caller } from "../../domain/caller.js";
import { ApiError, Forbidden } from "../../domain/errors.js";
import { allows, entitiesOf, highest, levelOf, neededFor, ownerEntity, type AccessRecord, type AccessRole, type LibraryAction, type LibraryRecord } from "../../domain/libraries/access.js";
import type { CreateLibraryRequest, LibraryOut, ListLibrariesOut, ListLibrariesQuery, UpdateLibraryRequest } from "../../schemas/library.js";
import { encodeCursor, readCursor } from "../../store/cursor.js";
import { createdKeyOf, librariesStore, type GranteeEntry } from "../../store/libraries/index.js";
import { forgetLibrary } from "./cleanup.js";

export class LibraryNotFound extends ApiError {
  constructor(id: string) {
    super(404, "not_found_error", `No library with id '${id}' exists that this key may see`, "library_not_found");
  }
}

/** A library the caller may see, with its accesses and the caller's level on it. */
export interface VisibleLibrary {
  library: LibraryRecord;
  accesses: AccessRecord[];
  level: AccessRole;
}

/**
 * The library an id names if the caller may see it (404 otherwise, as for an unknown id), and may do `action` on
 * it (403 naming the level it lacks: the caller already sees the library, so the refusal reveals nothing).
 */
export async function reach(caller: Caller, id: string, action: LibraryAction): Promise<VisibleLibrary> {
  const libraryId = id.toLowerCase();
  const [library, accesses] = await Promise.all([librariesStore.get(caller.organization, libraryId), librariesStore.accesses(caller.organization, libraryId)]);
  const level = library ? levelOf(accesses, caller) : null;
  if (!library || !level) throw new LibraryNotFound(id);
  if (!allows(level, action)) throw new Forbidden(`Your access to library '${libraryId}' is ${level}; this takes ${neededFor(action)}`, "library_access_denied");
  return { library, accesses, level };
}

export async function create(caller: Caller, body: CreateLibraryRequest): Promise<LibraryOut> {
  const now = new Date().toISOString();
  const ownerType = body.owner_type ?? "Workspace";
  const library: LibraryRecord = {
    id: randomUUID(),
    organization: caller.organization,
    workspace: caller.workspace,
    name: body.name,
    description: body.description ?? null,
    chunkSize: body.chunk_size ?? null,
    ownerType,
    ownerId: ownerType === "User" ? caller.principal : caller.workspace,
    creatorId: caller.principal,
    nbDocuments: 0,
    totalSize: 0,
    userShares: 0,
    workspaceShares: 0,
    orgRole: null,
    createdAt: now,
    updatedAt: now,
  };
  const owner = ownerEntity(library);
  await librariesStore.create(library, { libraryId: library.id, organization: library.organization, entityType: owner.type, entityId: owner.id, role: "Owner", createdAt: now, updatedAt: now });
  return toOut(library);
}

export async function get(caller: Caller, id: string): Promise<LibraryOut> {
  return toOut((await reach(caller, id, "read")).library);
}

export async function update(caller: Caller, id: string, body: UpdateLibraryRequest): Promise<LibraryOut> {
  const { library } = await reach(caller, id, "edit");
  const fields = { name: body.name, description: body.description === undefined ? undefined : body.description };
  const updated = await librariesStore.update(library.organization, library.id, fields, new Date().toISOString());
  if (!updated) throw new LibraryNotFound(id);
  return toOut(updated);
}

/**
 * Deletes the head first (the library is gone for every reader at once), then purges its partition and grantee
 * entries, its documents' objects and its index (decision 68, 71).
 */
export async function remove(caller: Caller, id: string): Promise<LibraryOut> {
  const { library } = await reach(caller, id, "delete");
  if (!(await librariesStore.deleteHead(library.organization, library.id))) throw new LibraryNotFound(id);
  await forgetLibrary(library, await librariesStore.purge(library.organization, library.id));
  return toOut(library);
}

const Position = z.strictObject({ k: z.string().regex(/^\d{15}#[0-9a-f-]{36}$/) });

/** Grantee entries read per partition per round. */
const ROUND = 100;

/**
 * The libraries the caller may see, newest first: the grantee partitions of its principal, its workspace and its
 * organization read together on `byCreated` and merged by `createdKey` (a library reached through several is shown
 * once). A round takes, from every partition, only entries no unread entry of another partition can precede; the
 * search and owner filters may drop some, so a page can take several rounds. `page` (deprecated) skips pages.
 */
export async function list(caller: Caller, query: ListLibrariesQuery): Promise<ListLibrariesOut> {
  const from = query.page_token !== undefined ? readCursor(query.page_token, Position, "page_token").k : undefined;
  const skip = query.page_token !== undefined ? 0 : query.page * query.page_size;
  const want = skip + query.page_size;
  const search = query.search?.trim().toLowerCase() || undefined;
  const entities = entitiesOf(caller);
  const shown: { library: LibraryRecord; createdKey: string }[] = [];
  let before = from;
  for (;;) {
    const reads = await Promise.all(entities.map((entity) => librariesStore.granted(caller.organization, entity, before, ROUND)));
    // Entries at or after the oldest last entry of a partition with more to read are complete in this round.
    const bounds = reads.filter((r) => r.more).map((r) => r.entries.at(-1)!.createdKey);
    const boundary = bounds.length ? bounds.reduce((a, b) => (a > b ? a : b)) : undefined;
    const byLibrary = new Map<string, { createdKey: string; roles: AccessRole[] }>();
    for (const entry of reads.flatMap((r) => r.entries) as GranteeEntry[]) {
      if (boundary !== undefined && entry.createdKey < boundary) continue;
      const seen = byLibrary.get(entry.libraryId) ?? { createdKey: entry.createdKey, roles: [] };
      seen.roles.push(entry.role);
      byLibrary.set(entry.libraryId, seen);
    }
    const candidates = [...byLibrary.entries()].filter(([, e]) => !query.filter_owned_by_me || highest(e.roles) === "Owner").sort(([, a], [, b]) => (a.createdKey < b.createdKey ? 1 : -1));
    const heads = new Map((await librariesStore.heads(caller.organization, candidates.map(([id]) => id))).map((h) => [h.id, h]));
    for (const [id, entry] of candidates) {
      const library = heads.get(id);
      // A head deleted since its entries were read is gone; the search is on the name, case-insensitive.
      if (!library || (search && !library.name.toLowerCase().includes(search))) continue;
      shown.push({ library, createdKey: entry.createdKey });
    }
    if (shown.length > want || boundary === undefined) break;
    before = boundary;
  }
  const page = shown.slice(skip, want);
  const more = shown.length > want;
  return { pagination: null, data: page.map(({ library }) => toOut(library)), next_page_token: more && page.length ? encodeCursor({ k: page.at(-1)!.createdKey }) : null };
}

export function toOut(library: LibraryRecord): LibraryOut {
  return {
    id: library.id,
    name: library.name,
    created_at: library.createdAt,
    updated_at: library.updatedAt,
    owner_id: library.ownerId,
    owner_type: library.ownerType,
    total_size: library.totalSize,
    nb_documents: library.nbDocuments,
    chunk_size: library.chunkSize,
    emoji: null,
    description: library.description,
    generated_description: null,
    explicit_user_members_count: library.userShares,
    explicit_workspace_members_count: library.workspaceShares,
    org_sharing_role: library.orgRole,
    generated_name: null,
  };
}

export { createdKeyOf };

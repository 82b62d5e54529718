/**
 * Libraries and who may do what with them (docs/libraries.md, decision 68). Pure: the service reads the records,
 * these rules decide. A caller's level on a library is the highest role among the accesses naming its principal,
 * its workspace or its organization; without one the library does not exist for it (404, never 403).
 */
import type { Caller } from "../caller.js";

export type OwnerType = "User" | "Workspace";
export type EntityType = "User" | "Workspace" | "Org";
export type AccessRole = "Viewer" | "Editor" | "Owner";

export interface LibraryRecord {
  id: string;
  organization: string;
  /** The workspace it was created in (a User-owned library's owner may reach it from any workspace). */
  workspace: string;
  name: string;
  description: string | null;
  /** Characters per chunk when its documents are split; null: the ingestion's default. */
  chunkSize: number | null;
  ownerType: OwnerType;
  /** The owning principal (User) or workspace (Workspace). */
  ownerId: string;
  creatorId: string;
  /** Kept by the documents' writes, in the same transaction as each document item (0 until documents exist). */
  nbDocuments: number;
  totalSize: number;
  /** Explicit shares by kind (the owner's own access not counted), and the organization's role if shared with it. */
  userShares: number;
  workspaceShares: number;
  orgRole: Exclude<AccessRole, "Owner"> | null;
  /** Set once processing first writes chunks: the library has an index in the vector store to delete with it. */
  indexed?: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface AccessRecord {
  libraryId: string;
  organization: string;
  entityType: EntityType;
  entityId: string;
  role: AccessRole;
  createdAt: string;
  updatedAt: string;
}

export interface Entity {
  type: EntityType;
  id: string;
}

/** The entities an access may name for this caller: its principal, its workspace, its organization. */
export const entitiesOf = (caller: Pick<Caller, "principal" | "workspace" | "organization">): Entity[] => [
  { type: "User", id: caller.principal },
  { type: "Workspace", id: caller.workspace },
  { type: "Org", id: caller.organization },
];

export const ownerEntity = (library: Pick<LibraryRecord, "ownerType" | "ownerId">): Entity => ({ type: library.ownerType, id: library.ownerId });

const RANK: Record<AccessRole, number> = { Viewer: 1, Editor: 2, Owner: 3 };

export const sameEntity = (a: Entity, b: Entity): boolean => a.type === b.type && a.id === b.id;

/** The highest role among `roles`, or null when there is none. */
export function highest(roles: readonly AccessRole[]): AccessRole | null {
  return roles.reduce<AccessRole | null>((best, role) => (!best || RANK[role] > RANK[best] ? role : best), null);
}

/** The caller's level on a library, from the library's accesses (or the caller's grantee entries): null means not visible. */
export function levelOf(accesses: readonly Pick<AccessRecord, "entityType" | "entityId" | "role">[], caller: Pick<Caller, "principal" | "workspace" | "organization">): AccessRole | null {
  const mine = entitiesOf(caller);
  return highest(accesses.filter((a) => mine.some((e) => sameEntity(e, { type: a.entityType, id: a.entityId }))).map((a) => a.role));
}

/** What an operation asks of the caller's level: reading is a Viewer's, changing the library and its documents an Editor's, sharing and deleting the Owner's. */
export type LibraryAction = "read" | "edit" | "share" | "delete";

const NEEDS: Record<LibraryAction, AccessRole> = { read: "Viewer", edit: "Editor", share: "Owner", delete: "Owner" };

export const allows = (level: AccessRole, action: LibraryAction): boolean => RANK[level] >= RANK[NEEDS[action]];

export const neededFor = (action: LibraryAction): AccessRole => NEEDS[action];

/** A library may name at most this many accesses (the owner's included): its access list is answered whole, and deleting it removes them all. */
export const MAX_ACCESSES = 100;

import type { Caller } from "../caller.js";
import type { RegistryHead } from "./records.js";

/**
 * Who may do what with an entry. Private entries are their creator's alone; a workspace-shared entry
 * is visible to every member of the workspace, and editable by them when shared as `writer`. Sharing
 * and deleting stay with the creator. The workspace itself is part of every key, so another
 * workspace's entry is never even read.
 */
export type Need = "read" | "edit" | "own";

export const isOwner = (head: RegistryHead, caller: Caller) => head.owner === caller.principal;

export const canRead = (head: RegistryHead, caller: Caller) => isOwner(head, caller) || head.sharingScope === "workspace";

export const canEdit = (head: RegistryHead, caller: Caller) =>
  isOwner(head, caller) || (head.sharingScope === "workspace" && head.workspaceRelation === "writer");

export function allows(head: RegistryHead, caller: Caller, need: Need): boolean {
  if (need === "read") return canRead(head, caller);
  if (need === "edit") return canEdit(head, caller);
  return isOwner(head, caller);
}

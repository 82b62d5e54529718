import type { ShareRelation, SharingScope } from "../../schemas/registry.js";

/** The two registries built on the same machinery (docs/registries.md). */
export type RegistryKindName = "prompt" | "skill";

/**
 * An entry's head: identity, display, sharing, and the pointers that move (latest version, aliases).
 * Every write of it raises `revision` and is conditioned on the revision it read, so concurrent writers
 * never lose one another's changes and an alias is always on exactly one version (a map key).
 */
export interface RegistryHead {
  kind: RegistryKindName;
  workspace: string;
  organization: string;
  id: string;
  name: string;
  title: string | null;
  description: string | null;
  /** The principal that created the entry. */
  owner: string;
  sharingScope: SharingScope;
  /** What workspace members may do when shared: null while private. */
  workspaceRelation: ShareRelation | null;
  createdAt: string;
  updatedAt: string;
  latestVersion: number;
  /** Hash of the latest version's definition and notes: a repeated create-version is deduplicated. */
  latestHash: string;
  /** alias → version. */
  aliases: Record<string, number>;
  revision: number;
}

/** One immutable version (only its notes change). */
export interface RegistryVersion<D = unknown> {
  id: string;
  version: number;
  definition: D;
  notes: string | null;
  createdAt: string;
  createdBy: string;
  hash: string;
}

/** The aliases that point at `version`, in a stable order. */
export const aliasesAt = (head: Pick<RegistryHead, "aliases">, version: number): string[] =>
  Object.entries(head.aliases)
    .filter(([, target]) => target === version)
    .map(([alias]) => alias)
    .sort();

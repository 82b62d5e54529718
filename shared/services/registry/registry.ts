import { createHash, randomUUID } from "node:crypto";
import type { Caller } from "../../domain/caller.js";
import { logger } from "../../observability/logger.js";
import type { RegistryListQuery, ShareRelation, SharingScope } from "../../schemas/registry.js";
import { registryStore, type HeadChanges } from "../../store/registry.js";
import { ApiError, Conflict, Forbidden, NotFound, PayloadTooLarge } from "../../domain/errors.js";
import { allows, canRead, type Need } from "../../domain/registry/access.js";
import type { RegistryKind } from "../../domain/registry/kinds.js";
import { aliasesAt, type RegistryHead, type RegistryVersion } from "../../domain/registry/records.js";

/** A stored version holds at most this much definition: DynamoDB items stop at 400 KB. */
export const MAX_DEFINITION_BYTES = 350_000;

/**
 * Optimistic writes on the head retry this often before answering 409. Twenty writers racing on one
 * entry each win within twenty rounds; the jittered backoff keeps the rounds short.
 */
export const MAX_WRITE_ATTEMPTS = 40;
const backoffMs = (attempt: number) => Math.random() * Math.min(100, 4 * 2 ** attempt);

export interface EntryInput<D> {
  name: string;
  definition: D;
  title?: string | null;
  description?: string | null;
  notes?: string | null;
  sharingScope?: string | null;
  workspaceRelation?: string | null;
  aliases?: string[];
}

export interface MetadataPatch {
  title?: string | null;
  description?: string | null;
  sharingScope?: string | null;
  workspaceRelation?: string | null;
}

export interface VersionInput<D> {
  definition: D;
  notes?: string | null;
  aliases?: string[];
}

export interface VersionPatch {
  notes?: string | null;
  aliases?: { values?: string[] };
}

/** An entry as seen at one version; `version` is null when the projection did not need it read. */
export interface EntryView<D> {
  head: RegistryHead;
  at: number;
  version: RegistryVersion<D> | null;
}

/** The fields that need the version item read; the rest come from the head. */
const VERSION_FIELDS = new Set(["definition", "notes"]);
const needsVersion = (fields?: readonly string[]) => !fields?.length || fields.some((f) => VERSION_FIELDS.has(f));

const unique = (values: readonly string[] = []) => [...new Set(values)];

/** Keys in a fixed order, so equal definitions hash equal whatever order the client wrote them in. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

const contentHash = (definition: unknown, notes: string | null) =>
  createHash("sha256").update(JSON.stringify(canonical({ definition, notes }))).digest("base64url");

const scopeOf = (requested: string | null | undefined): SharingScope => (requested === "workspace" ? "workspace" : "private");
const relationOf = (requested: string | null | undefined): ShareRelation => (requested === "reader" ? "reader" : "writer");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The operations of one registry (prompts or skills). */
export function registryOf<D>(kind: RegistryKind<D>) {
  const label = kind.name;
  const store = registryStore;

  const notFound = (id: string) => new NotFound(label, id);
  const versionNotFound = (id: string, version: number) =>
    new ApiError(404, "not_found_error", `The ${label} '${id}' has no version ${version}`, `${label}_version_not_found`, "version");
  const aliasNotFound = (id: string, alias: string) =>
    new ApiError(404, "not_found_error", `The ${label} '${id}' has no alias '${alias}'`, `${label}_alias_not_found`, "alias");

  function checkDefinition(definition: D): D {
    const normalized = kind.normalize(definition);
    const bytes = Buffer.byteLength(JSON.stringify(normalized));
    if (bytes > MAX_DEFINITION_BYTES) {
      throw new PayloadTooLarge(`The ${label} definition is ${bytes} bytes; at most ${MAX_DEFINITION_BYTES} are stored per version`, "definition_too_large");
    }
    return normalized;
  }

  function authorize(head: RegistryHead | undefined, caller: Caller, id: string, need: Need): RegistryHead {
    // What the caller may not see does not exist for them: 404, like another workspace's id.
    if (!head || !canRead(head, caller)) throw notFound(id);
    if (!allows(head, caller, need)) {
      throw need === "own"
        ? new Forbidden(`Only the creator of this ${label} may change its sharing or delete it`, `${label}_owner_only`)
        : new Forbidden(`This ${label} is shared with the workspace read-only`, `${label}_read_only`);
    }
    return head;
  }

  async function readable(caller: Caller, id: string): Promise<RegistryHead> {
    return authorize(await store.getHead(kind.name, caller.workspace, id), caller, id, "read");
  }

  /**
   * Read the head, check the caller's rights, try a write conditioned on the revision read; on a
   * concurrent change, read again and retry. `attempt` answers undefined when its write lost the race.
   */
  async function mutate<T>(caller: Caller, id: string, need: Need, attempt: (head: RegistryHead) => Promise<T | undefined>): Promise<T> {
    for (let i = 0; i < MAX_WRITE_ATTEMPTS; i += 1) {
      if (i) await sleep(backoffMs(i));
      const head = authorize(await store.getHead(kind.name, caller.workspace, id), caller, id, need);
      const result = await attempt(head);
      if (result !== undefined) return result;
    }
    throw new Conflict(`The ${label} '${id}' kept changing concurrently; retry the request`, `${label}_write_conflict`);
  }

  async function viewAt(head: RegistryHead, at: number, fields?: readonly string[]): Promise<EntryView<D>> {
    if (at > head.latestVersion) throw versionNotFound(head.id, at);
    if (!needsVersion(fields)) return { head, at, version: null };
    const version = await store.getVersion<D>(kind.name, head.workspace, head.id, at);
    // Versions are never removed one by one; a missing one means the entry was deleted meanwhile.
    if (!version) throw notFound(head.id);
    return { head, at, version };
  }

  return {
    kind,

    async create(caller: Caller, input: EntryInput<D>): Promise<EntryView<D>> {
      const definition = checkDefinition(input.definition);
      const now = new Date().toISOString();
      const id = randomUUID();
      const notes = input.notes ?? null;
      const hash = contentHash(definition, notes);
      const sharingScope = scopeOf(input.sharingScope);
      const head: RegistryHead = {
        kind: kind.name,
        workspace: caller.workspace,
        organization: caller.organization,
        id,
        name: input.name,
        title: kind.display ? (input.title ?? null) : null,
        description: kind.display ? (input.description ?? null) : null,
        owner: caller.principal,
        sharingScope,
        workspaceRelation: sharingScope === "workspace" ? relationOf(input.workspaceRelation) : null,
        createdAt: now,
        updatedAt: now,
        latestVersion: 1,
        latestHash: hash,
        aliases: Object.fromEntries(unique(input.aliases).map((alias) => [alias, 1])),
        revision: 1,
      };
      const version: RegistryVersion<D> = { id, version: 1, definition, notes, createdAt: now, createdBy: caller.principal, hash };
      await store.create(head, version);
      return { head, at: 1, version };
    },

    /** The caller's page: its own entries and the workspace's shared ones, in the requested order. */
    async list(caller: Caller, query: RegistryListQuery) {
      const page = await store.listHeads(kind.name, caller.workspace, {
        principal: caller.principal,
        sort: query.sort,
        pageToken: query.pageToken,
        limit: query.pageSize,
        alias: query.alias,
      });
      const at = (head: RegistryHead) => (query.alias ? head.aliases[query.alias]! : head.latestVersion);
      let views: EntryView<D>[];
      if (needsVersion(query.fields)) {
        const versions = await store.getVersions<D>(kind.name, caller.workspace, page.heads.map((head) => ({ id: head.id, version: at(head) })));
        // A head whose version is gone was deleted between the two reads.
        views = page.heads.flatMap((head) => {
          const version = versions.get(`${head.id}#${at(head)}`);
          return version ? [{ head, at: at(head), version }] : [];
        });
      } else {
        views = page.heads.map((head) => ({ head, at: at(head), version: null }));
      }
      return { views, nextPageToken: page.nextPageToken };
    },

    async get(caller: Caller, id: string, options: { version?: number; alias?: string; fields?: readonly string[] } = {}): Promise<EntryView<D>> {
      const head = await readable(caller, id);
      let at = options.version ?? head.latestVersion;
      if (options.alias !== undefined) {
        const target = head.aliases[options.alias];
        if (target === undefined) throw aliasNotFound(id, options.alias);
        at = target;
      }
      return viewAt(head, at, options.fields);
    },

    /** Title, description (prompts) and sharing; sharing is the creator's to change. */
    async update(caller: Caller, id: string, patch: MetadataPatch): Promise<EntryView<D>> {
      const sharing = patch.sharingScope != null && patch.sharingScope !== "sharing_scope_unspecified";
      const head = await mutate(caller, id, sharing ? "own" : "edit", async (seen) => {
        const changes: HeadChanges = {};
        if (kind.display && patch.title !== undefined) changes.title = patch.title;
        if (kind.display && patch.description !== undefined) changes.description = patch.description;
        if (sharing) {
          changes.sharingScope = scopeOf(patch.sharingScope);
          changes.workspaceRelation =
            changes.sharingScope === "private"
              ? null
              : patch.workspaceRelation != null
                ? relationOf(patch.workspaceRelation)
                : (seen.workspaceRelation ?? "writer");
        }
        if (!Object.keys(changes).length) return seen;
        return store.updateHead(seen, changes, new Date().toISOString());
      });
      return viewAt(head, head.latestVersion);
    },

    /**
     * The head goes first: the entry is gone for every reader at once and takes no new version. Its
     * versions are then unreachable, so a failure removing them does not undo the delete; it is logged.
     */
    async remove(caller: Caller, id: string): Promise<void> {
      await mutate(caller, id, "own", async (seen) => ((await store.removeHead(seen)) ? true : undefined));
      try {
        await store.removeVersions(kind.name, caller.workspace, id);
      } catch (error) {
        logger.error("versions of a deleted registry entry were left behind", { kind: kind.name, workspace: caller.workspace, id, error: error as Error });
      }
    },

    async listVersions(caller: Caller, id: string) {
      const head = await readable(caller, id);
      const versions = await store.listVersions<D>(kind.name, caller.workspace, id);
      // Versions written after the head was read are left for the next call, with their aliases.
      return { head, versions: versions.filter((v) => v.version <= head.latestVersion) };
    },

    /**
     * The next version number, with its aliases moved to it, in one transaction conditioned on the
     * head's revision: concurrent writers get distinct consecutive numbers. A request repeating the
     * latest definition and notes creates nothing (`deduplicated`), but still moves its aliases.
     */
    async createVersion(caller: Caller, id: string, input: VersionInput<D>): Promise<{ version: number; deduplicated: boolean }> {
      const definition = checkDefinition(input.definition);
      const notes = input.notes ?? null;
      const hash = contentHash(definition, notes);
      const aliases = unique(input.aliases);
      return mutate(caller, id, "edit", async (seen) => {
        const now = new Date().toISOString();
        if (hash === seen.latestHash) {
          const moving = aliases.filter((alias) => seen.aliases[alias] !== seen.latestVersion);
          if (moving.length && !(await store.updateHead(seen, { setAliases: Object.fromEntries(moving.map((a) => [a, seen.latestVersion])) }, now))) {
            return undefined;
          }
          return { version: seen.latestVersion, deduplicated: true };
        }
        const version: RegistryVersion<D> = { id, version: seen.latestVersion + 1, definition, notes, createdAt: now, createdBy: caller.principal, hash };
        return (await store.addVersion(seen, version, aliases)) ? { version: version.version, deduplicated: false } : undefined;
      });
    },

    async getVersion(caller: Caller, id: string, version: number, fields?: readonly string[]): Promise<EntryView<D>> {
      return viewAt(await readable(caller, id), version, fields);
    },

    /**
     * Notes of one version and the exact set of aliases on it: listed aliases move here from wherever
     * they were, aliases here that are not listed are removed. One transaction with the head.
     */
    async updateVersion(caller: Caller, id: string, version: number, patch: VersionPatch): Promise<EntryView<D>> {
      const head = await mutate(caller, id, "edit", async (seen) => {
        if (version > seen.latestVersion) throw versionNotFound(id, version);
        const changes: HeadChanges = {};
        if (patch.aliases) {
          const wanted = unique(patch.aliases.values);
          const setAliases = wanted.filter((alias) => seen.aliases[alias] !== version);
          const removeAliases = aliasesAt(seen, version).filter((alias) => !wanted.includes(alias));
          if (setAliases.length) changes.setAliases = Object.fromEntries(setAliases.map((alias) => [alias, version]));
          if (removeAliases.length) changes.removeAliases = removeAliases;
        }
        if (patch.notes === undefined && !Object.keys(changes).length) return seen;
        const now = new Date().toISOString();
        return store.updateVersionMetadata(seen, version, patch.notes === undefined ? {} : { notes: patch.notes }, changes, now);
      });
      return viewAt(head, version);
    },
  };
}

export type Registry<D> = ReturnType<typeof registryOf<D>>;

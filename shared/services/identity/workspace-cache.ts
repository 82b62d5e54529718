import type { Caller } from "../../domain/caller.js";
import type { Workspace } from "../../domain/identity/records.js";
import { TtlCache } from "../../domain/process-cache.js";
import { tenancyStore } from "../../store/tenancy.js";

/**
 * A workspace's record as model calls read it (its spend limit, its content-capture choice), cached in the
 * process for PROCESS_CACHE_TTL_MS: one tenancy read per workspace per TTL rather than one or two per call.
 * A change made elsewhere shows within the TTL (as a key's authorizer answer does); the process that made
 * it forgets its copy at once.
 */
const workspaces = TtlCache.named<Workspace | undefined>("workspaces");

export const cachedWorkspace = (caller: Pick<Caller, "organization" | "workspace">): Promise<Workspace | undefined> =>
  workspaces.through(`${caller.organization}/${caller.workspace}`, () => tenancyStore.getWorkspace(caller.organization, caller.workspace));

/** After this process changed a workspace's limits or settings. */
export const forgetWorkspace = (organization: string, workspace: string): void => workspaces.delete(`${organization}/${workspace}`);

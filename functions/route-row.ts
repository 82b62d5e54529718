/**
 * What a route-table row says. The row is the only source of a route's policy: CDK builds its function,
 * role and method from it, the local server mounts it, the handler chain reads its auth, error family and
 * streaming from it, and the tests are generated over it.
 */
import type { ErrorFamily } from "../shared/domain/errors.js";
import type { Permission } from "../shared/domain/identity/permissions.js";
import type { RoutePolicy } from "../shared/http/policy.js";
import type { TableName } from "../shared/store/tables.js";

export type Access = "read" | "write" | "readwrite";
export type ObjectAccess = Access | "delete" | "write-delete" | "readwrite-delete";

export interface Grants {
  /** DynamoDB tables by logical name (shared/store/tables.ts). */
  tables?: Partial<Record<TableName, Access>>;
  /** The files bucket, limited to the workspace object prefix. */
  files?: ObjectAccess;
  /** Calls models through the providers: Bedrock invoke rights on the catalog's Bedrock models only. */
  models?: "invoke";
  /** Counts requests of rate-limited keys: UpdateItem on the rates table, nothing else. Every keyed row has it. */
  rateCounters?: true;
  /** Starts and stops executions of a state machine of functions/engine.ts (its ARN arrives in the row's `arnEnv`). */
  executions?: Partial<Record<"batch", "start-stop">>;
  /** What it may do to the workflow engine (docs/workflows.md); each right also brings the settings it needs. */
  workflows?: WorkflowRights;
}

export interface WorkflowRights {
  /** Create workflow state machines and publish their versions, under the project's prefix, passing only the workflows' role. */
  publish?: true;
  /** Runs (executions of the project's workflow machines): `describe` them, or also `start-stop` them. */
  runs?: "describe" | "start-stop";
  /** Complete, fail and heartbeat task tokens (IAM cannot scope callback tokens: SendTask* on `*`). */
  tasks?: true;
  /**
   * One-time timers in the project's schedule group: `arm` creates, moves and deletes them (passing only the
   * timers' role), `disarm` only deletes them (the timer handler itself: arming would name its own ARN).
   */
  timers?: "arm" | "disarm";
  /**
   * Workflow schedules' fires in their own schedule group (docs/workflows.md, "Schedules"): `arm` creates, moves
   * and deletes them (passing only the schedules' role, which may invoke only the fire handler), `disarm` only
   * deletes them.
   */
  schedules?: "arm" | "disarm";
}

export interface RouteRow extends RoutePolicy {
  /** Module under functions/, without extension; it exports `handler`. */
  handler: string;
  grants: Grants;
  memoryMb?: number;
  /** Set on routes that are ours, not the spec's (documented in the README). */
  extension?: boolean;
  /** Also takes the key as `x-api-key` (the official SDK's beta.users sends it so); served by an uncached authorizer. */
  keyHeader?: boolean;
}

/** A row as an area's routes file writes it: what the area's defaults say need not be repeated. */
export type RowInput = Omit<RouteRow, "auth" | "errors" | "streaming"> & Partial<Pick<RouteRow, "auth" | "errors" | "streaming">>;

export interface AreaDefaults {
  auth?: RouteRow["auth"];
  errors?: ErrorFamily;
  /** The permission of the area's GET rows (`read`) and of its other rows (`write`), unless a row names its own. */
  permissions: { read: Permission; write: Permission };
}

/** An area's rows with its defaults applied (auth `key`, the platform error family, not streamed, read/write permissions). */
export function area(defaults: AreaDefaults, rows: RowInput[]): RouteRow[] {
  return rows.map((row) => {
    const auth = row.auth ?? defaults.auth ?? "key";
    const permission = auth === "public" ? undefined : (row.permission ?? (row.method === "GET" ? defaults.permissions.read : defaults.permissions.write));
    // Every keyed route counts requests of rate-limited keys (shared/services/identity/rate-limits.ts).
    const grants = auth === "public" ? row.grants : { ...row.grants, rateCounters: true as const };
    return { errors: defaults.errors ?? "platform", streaming: false, ...row, auth, permission, grants };
  });
}

import type { ErrorFamily } from "../domain/errors.js";
import type { Permission } from "../domain/identity/permissions.js";

/**
 * Who may call a route:
 * - `key`: any valid API key of the workspace;
 * - `admin`: an admin key (others get 403);
 * - `public`: no key; the route authenticates by other means (a signed token), and API Gateway runs no authorizer.
 */
export type RouteAuth = "key" | "admin" | "public";

/** The part of a route-table row the handler chain enforces. */
export interface RoutePolicy {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Written exactly as in the spec's operations.tsv; API Gateway's `resource`. */
  path: string;
  auth: RouteAuth;
  /** The permission a caller's roles must grant (shared/domain/identity/permissions.ts); public rows have none. */
  permission?: Permission;
  /** The envelope its errors use. */
  errors: ErrorFamily;
  /** Served as a response stream (SSE) through API Gateway REST STREAM mode and Lambda response streaming. */
  streaming: boolean;
}

/** "METHOD path": how a row is named in usage records, logs and the Lambda's ROUTE_KEY. */
export const routeKey = (policy: Pick<RoutePolicy, "method" | "path">) => `${policy.method} ${policy.path}`;

/** The environment variable that tells a deployed function which row it serves. */
export const ROUTE_KEY_ENV = "ROUTE_KEY";

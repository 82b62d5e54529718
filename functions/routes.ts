/**
 * THE route table: the areas' rows joined. CDK builds a function, role, integration and method per row
 * (infra/api-stack.ts), the local server mounts the same rows (infra/local/server.ts), the handler chain
 * reads each row's policy (functions/route.ts), and the tests are generated over it. Adding an operation
 * = a row in its area's routes.ts + a handler file (+ a service, + tests).
 */
import { routeKey } from "../shared/http/policy.js";
import { resourcePaths } from "../shared/http/resource-paths.js";
import { adminRoutes } from "./admin/routes.js";
import { agentRoutes } from "./agents/routes.js";
import { audioRoutes } from "./audio/routes.js";
import { batchRoutes } from "./batch/routes.js";
import { connectorRoutes } from "./connectors/routes.js";
import { conversationRoutes } from "./conversations/routes.js";
import { deploymentRoutes } from "./deployments/routes.js";
import { docsRoutes } from "./docs/routes.js";
import { consoleRoutes } from "./console/routes.js";
import { fileRoutes } from "./files/routes.js";
import { healthRoutes } from "./health/routes.js";
import { inferenceRoutes } from "./inference/routes.js";
import { libraryRoutes } from "./libraries/routes.js";
import { modelRoutes } from "./models/routes.js";
import { observabilityRoutes } from "./observability/routes.js";
import { ocrRoutes } from "./ocr/routes.js";
import { realtimeRoutes } from "./realtime/routes.js";
import { promptRoutes } from "./prompts/routes.js";
import { retrievalRoutes } from "./retrieval/routes.js";
import { scheduleRoutes } from "./schedules/routes.js";
import type { Grants, RouteRow } from "./route-row.js";
import { serviceAccountRoutes } from "./service-accounts/routes.js";
import { skillRoutes } from "./skills/routes.js";
import { usageRoutes } from "./usage/routes.js";
import { userRoutes } from "./users/routes.js";
import { workflowRoutes } from "./workflows/routes.js";
import { workerRoutes } from "./workers/routes.js";

export type { Access, Grants, ObjectAccess, RouteRow } from "./route-row.js";
export { callsProviders } from "./route-row.js";

export const routes: readonly RouteRow[] = [
  ...fileRoutes,
  ...modelRoutes,
  ...inferenceRoutes,
  ...batchRoutes,
  ...agentRoutes,
  ...promptRoutes,
  ...skillRoutes,
  ...usageRoutes,
  ...serviceAccountRoutes,
  ...adminRoutes,
  ...userRoutes,
  ...workflowRoutes,
  ...workerRoutes,
  ...deploymentRoutes,
  ...scheduleRoutes,
  ...retrievalRoutes,
  ...audioRoutes,
  ...ocrRoutes,
  ...realtimeRoutes,
  ...docsRoutes,
  ...consoleRoutes,
  ...healthRoutes,
  ...connectorRoutes,
  ...conversationRoutes,
  ...observabilityRoutes,
  ...libraryRoutes,
];

const byKey = new Map(routes.map((row) => [routeKey(row), row]));

/**
 * A path's API Gateway resource: the rows' paths with one variable name per level (shared/http/resource-paths.ts,
 * docs/decisions/0032-one-variable-per-level.md). Rows differing only in their variables' names share a resource.
 */
export const resourceOf = resourcePaths(routes.map((row) => row.path));

/** Rows by "METHOD resource"; two rows on one resource with one method would be one API Gateway method. */
export function byResource(rows: readonly RouteRow[], resource: (path: string) => string): Map<string, RouteRow> {
  const found = new Map<string, RouteRow>();
  for (const row of rows) {
    const key = `${row.method} ${resource(row.path)}`;
    const other = found.get(key);
    if (other) throw new Error(`${routeKey(other)} and ${routeKey(row)} are one API Gateway method (${key}): their paths differ only in variable names`);
    found.set(key, row);
  }
  return found;
}

const byResourceKey = byResource(routes, resourceOf);

/** The row API Gateway routed a request to, by its method and resource (the canonical template; a row's own path also finds it). */
export const rowFor = (method: string, resource: string): RouteRow | undefined => byResourceKey.get(`${method} ${resourceOf(resource)}`);

/** The row a deployed function serves, by its ROUTE_KEY. */
export const rowByKey = (key: string): RouteRow | undefined => byKey.get(key);

/** The authorizer is not a route but is built and granted the same way. */
export const authorizer = { handler: "auth/authorizer", grants: { tables: { tenancy: "read" } } satisfies Grants };

/** Where a row's handler sits for the local server and the tests. */
export const handlerModule = (handler: string) => `functions/${handler}.ts`;

/** The API area a row belongs to: one nested stack per area in CDK. */
export const areaOf = (row: Pick<RouteRow, "handler">) => row.handler.split("/")[0]!;

import { area } from "../route-row.js";

/**
 * `GET /health` for load balancers, uptime probes and smoke tests after a deploy (docs/operations.md): public
 * (no key), no data, no grants. It says the API answers (API Gateway, a function cold-started and run); it
 * checks nothing tenant-related and no table, so a probe can never learn anything or cost a read.
 */
export const healthRoutes = area({ auth: "public" }, [
  { method: "GET", path: "/health", handler: "health/check", grants: {}, extension: true, doc: { summary: "Health check: answers {\"status\":\"ok\"} without a key" } },
]);

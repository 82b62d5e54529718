/**
 * What the stacks deploy that the cost model prices (shared/domain/cost/model.ts, docs/cost.md): read from the
 * same tables CDK builds from (the route table, the engine table, the table definitions), without loading CDK.
 * The counts CDK code writes by hand (alarms, keys, retention) are written here and test/infra/cost-resources.synth.ts
 * holds them equal to `cdk synth`'s templates, so the two cannot drift apart.
 */
import { periodicTasks, stateMachines, workflowEngine, type EngineTask } from "../functions/engine.js";
import { DEFAULT_MEMORY_MB } from "../functions/route-row.js";
import { areaOf, routes as routeTable, type RouteRow } from "../functions/routes.js";
import type { StackResources, UploadServiceSize } from "../shared/domain/cost/model.js";
import { routeKey } from "../shared/http/policy.js";
import { tables } from "../shared/store/tables.js";
import { FAILED_STATUSES, SIGNAL_METRICS } from "./function-signals.js";
import { uploadServiceSize } from "./upload-service-size.js";

/**
 * The streaming upload service (CloudFront → internal ALB as a VPC origin → ECS Fargate, decision 33) as the
 * cost model sees it: its task size from infra/upload-service-size.ts, the one public IPv4 address of its task
 * (public subnets, no NAT gateway; the load balancer is internal), its image and the CloudFront Function.
 */
export const UPLOAD_SERVICE_SIZE: UploadServiceSize = {
  cpu: uploadServiceSize.cpu,
  memoryMiB: uploadServiceSize.memoryMiB,
  desiredCount: uploadServiceSize.desiredCount,
  architecture: uploadServiceSize.architecture,
  publicIpv4: 1,
  natGateways: 0,
  imageGb: 0.3,
  partMb: uploadServiceSize.partMb,
  cloudFrontFunction: true,
  // infra/operations.ts uploadServiceAlarms: 5xx answers and unhealthy targets, one metric each; its dashboard.
  alarmMetrics: 2,
  dashboards: 1,
};

const memoryOf = (task: EngineTask) => task.memoryMb ?? DEFAULT_MEMORY_MB;

/**
 * The web console's release (console/build.ts: one script, one stylesheet, named by their hash), above its size
 * today (about 0.18 MB stored, 62 KB compressed) so that it can grow; test/infra/cost-resources.synth.ts holds the
 * build under both. infra/console-assets.ts stores it in S3 behind the distribution.
 */
export const CONSOLE_RELEASE = { files: 2, releaseMb: 0.25, firstLoadKb: 80 } as const;


/**
 * infra/operations.ts and infra/monitoring.ts (decision 0066): the deployment-wide alarms and the metrics they evaluate
 * (the API's 5xx rate over two, failed invocations over one per failed status, slow invocations, Lambda's throttles,
 * the tables' throttles), each state machine's failed executions, the workflow engine's failed runs; one overview
 * dashboard (detail dashboards only with `-c detailDashboards=true`). The upload service's own are in UPLOAD_SERVICE_SIZE.
 */
function alarmsAndDashboards(): { alarmMetrics: number; dashboards: number } {
  const engines = Object.values(stateMachines);
  return { alarmMetrics: 2 + FAILED_STATUSES.length + 1 + 1 + 1 + engines.length + 1, dashboards: 1 };
}

/** The stacks' resources for a route table (THE one unless a test passes rows). */
export function stackResources(rows: readonly RouteRow[] = routeTable, upload: UploadServiceSize = UPLOAD_SERVICE_SIZE): StackResources {
  const batch = stateMachines.batch.tasks;
  const periodic = Object.entries(workflowEngine as Record<string, EngineTask>)
    .filter(([, task]) => task.everyMinutes)
    .map(([name, task]) => ({ name: `workflow ${name}`, memoryMb: memoryOf(task), everyMinutes: task.everyMinutes! }))
    .concat(Object.entries(periodicTasks as Record<string, EngineTask & { everyMinutes: number }>).map(([name, task]) => ({ name, memoryMb: memoryOf(task), everyMinutes: task.everyMinutes })));
  return {
    routes: rows.map((row) => ({ key: routeKey(row), family: areaOf(row), memoryMb: row.memoryMb ?? DEFAULT_MEMORY_MB, secrets: Boolean(row.grants.secrets) })),
    // The authorizer names no memory (functions/routes.ts `authorizer`).
    authorizerMemoryMb: DEFAULT_MEMORY_MB,
    // infra/engine-stack.ts: STANDARD, logging ALL with execution data.
    batch: { startMb: memoryOf(batch.start), runChunkMb: memoryOf(batch.runChunk), finishMb: memoryOf(batch.finish), stateMachine: "STANDARD", logsExecutionData: true },
    // The same engine stack, the same logging.
    libraryIngestion: { runMb: memoryOf(stateMachines.libraryIngestion.tasks.run), stateMachine: "STANDARD", logsExecutionData: true },
    workflows: {
      // shared/engine/workflow-machines.ts creates every workflow machine as STANDARD.
      stateMachine: "STANDARD",
      dispatchMb: memoryOf(workflowEngine.dispatch),
      statusMb: memoryOf(workflowEngine.status),
      timerMb: memoryOf(workflowEngine.timer),
      scheduleFireMb: memoryOf(workflowEngine.scheduleFire),
      periodic,
    },
    tables: tables.length,
    // infra/data-stack.ts: the connector secrets key; infra/monitoring.ts: the alarm topic's key.
    kmsKeys: 2,
    ...alarmsAndDashboards(),
    // infra/function-signals.ts (failed and slow invocations, table throttles), infra/workflow-engine-stack.ts (FailedRuns),
    // and each area's request latency and 5xx (shared/observability/signals.ts requestMetricFields).
    customMetrics: SIGNAL_METRICS + 1 + 2 * new Set(rows.map(areaOf)).size,
    // infra/constructs/route-function.ts: a month; infra/api-stack.ts access log and infra/engine-stack.ts: three months.
    logRetentionMonths: { functions: 1, accessLogs: 3, stateMachines: 3 },
    upload,
    // The console's routes (functions/console/routes.ts): the HTML entry always from its function, the assets from it only without the distribution.
    console: { ...CONSOLE_RELEASE, pageMemoryMb: memoryOfRoute(rows, "GET /console"), assetMemoryMb: memoryOfRoute(rows, "GET /console/{asset}") },
  };
}

/** A route's memory, by its key; the default where the rows do not have it (a test's). */
const memoryOfRoute = (rows: readonly RouteRow[], key: string) => rows.find((row) => routeKey(row) === key)?.memoryMb ?? DEFAULT_MEMORY_MB;

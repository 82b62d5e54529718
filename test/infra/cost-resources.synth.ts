/**
 * The cost model's description of the stacks (infra/cost-resources.ts) against what `cdk synth` builds: a
 * resource added to the stacks without the description following fails here, not silently in the bill.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { areaOf, routes } from "../../functions/routes.js";
import { CONSOLE_STATIC_DIR } from "../../infra/build.js";
import { stackResources } from "../../infra/cost-resources.js";
import { FAILED_STATUSES, FUNCTION_REPORTS, SLOW_STATUS } from "../../infra/function-signals.js";
import type { StackResources } from "../../shared/domain/cost/model.js";
import { ROUTE_KEY_ENV } from "../../shared/http/policy.js";
import { isCdkProvider, resourcesOf, synth, type Json, type Synth } from "./synth.js";

let s: Synth;
let resources: StackResources;
let all: [string, Json][];
beforeAll(async () => {
  s = await synth({ validate: false });
  resources = stackResources();
  all = s.stacks.flatMap((stack) => Object.entries(s.template(stack).Resources as Json));
}, 240_000);

const ofType = (type: string) => all.filter(([, r]) => r.Type === type).map(([, r]) => r);

describe("the cost model's resources", () => {
  it("count the alarms' metrics, the dashboards, the signals' metrics, keys and tables the stacks synthesize", () => {
    const alarmMetrics = ofType("AWS::CloudWatch::Alarm").reduce((sum, a) => sum + (a.Properties.Metrics ? a.Properties.Metrics.filter((m: Json) => m.MetricStat).length : 1), 0);
    expect(alarmMetrics).toBe(resources.alarmMetrics + resources.upload.alarmMetrics);
    expect(ofType("AWS::CloudWatch::Dashboard")).toHaveLength(resources.dashboards + resources.upload.dashboards);
    // One filter per function (FunctionReports by status: the failed statuses and the slow one), the workflow
    // engine's FailedRuns, and the TableThrottles the code publishes as embedded metrics.
    const filters = ofType("AWS::Logs::MetricFilter").map((f) => f.Properties.MetricTransformations[0]);
    const functions = all.filter(([id, r]) => r.Type === "AWS::Lambda::Function" && !isCdkProvider(id));
    expect(filters.filter((t) => t.MetricName === FUNCTION_REPORTS)).toHaveLength(functions.length);
    const published = new Set(filters.flatMap((t) => (t.MetricName === FUNCTION_REPORTS ? [...FAILED_STATUSES, SLOW_STATUS].map((s) => `${t.MetricName}/${s}`) : [t.MetricName])));
    // + TableThrottles and two per area (request latency and 5xx): embedded metrics, no filter.
    const areas = new Set(routes.map(areaOf)).size;
    expect(published.size + 1 + 2 * areas).toBe(resources.customMetrics);
    expect(ofType("AWS::KMS::Key")).toHaveLength(resources.kmsKeys);
    expect(ofType("AWS::DynamoDB::Table")).toHaveLength(resources.tables);
    // On-demand tables with point-in-time recovery: what the DynamoDB lines price.
    for (const table of ofType("AWS::DynamoDB::Table")) {
      expect(table.Properties.BillingMode).toBe("PAY_PER_REQUEST");
      expect(table.Properties.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled).toBe(true);
    }
  });

  it("give each route's function the memory it is deployed with, on arm64", () => {
    const functions = ofType("AWS::Lambda::Function");
    // CDK's deploy-time providers (the upload stack's prefix-list lookup and console assets deployment) run once per deploy: not priced, not ours to size.
    const ours = all.filter(([id, r]) => r.Type === "AWS::Lambda::Function" && !isCdkProvider(id)).map(([, r]) => r);
    expect(ours.filter((fn) => fn.Properties.Architectures?.[0] !== "arm64")).toEqual([]);
    const deployed = new Map(
      functions.filter((fn) => fn.Properties.Environment?.Variables?.[ROUTE_KEY_ENV]).map((fn) => [fn.Properties.Environment.Variables[ROUTE_KEY_ENV] as string, fn.Properties.MemorySize as number]),
    );
    expect(deployed.size).toBe(resources.routes.length);
    for (const route of resources.routes) expect(deployed.get(route.key), route.key).toBe(route.memoryMb);
    const authorizer = functions.find((fn) => fn.Properties.Description === "REQUEST authorizer: API key to caller")!;
    expect(authorizer.Properties.MemorySize).toBe(resources.authorizerMemoryMb);
  });

  it("know the console's release (its files, their size stored and sent) and its bucket, there with the distribution only", () => {
    const names = readdirSync(CONSOLE_STATIC_DIR);
    expect(names).toHaveLength(resources.console.files);
    const bodies = names.map((name) => readFileSync(join(CONSOLE_STATIC_DIR, name)));
    const stored = bodies.reduce((sum, body) => sum + body.length, 0);
    const sent = bodies.reduce((sum, body) => sum + gzipSync(body).length, 0);
    expect(stored, "bytes stored").toBeLessThanOrEqual(resources.console.releaseMb * 1024 * 1024);
    expect(sent, "bytes sent on a cold load (gzip)").toBeLessThanOrEqual(resources.console.firstLoadKb * 1024);
    // The deployment: one bucket of console assets, in the upload stack, whose objects the model prices.
    expect(resourcesOf(s.template(s.uploads!.service), "Custom::CDKBucketDeployment")).toHaveLength(1);
  });

  it("run Standard state machines only, with the batch machine logging execution data", () => {
    const machines = ofType("AWS::StepFunctions::StateMachine");
    expect(machines.length).toBeGreaterThan(0);
    for (const machine of machines) expect(machine.Properties.StateMachineType ?? "STANDARD").toBe(resources.batch.stateMachine);
    expect(machines.some((m) => m.Properties.LoggingConfiguration?.IncludeExecutionData === true)).toBe(resources.batch.logsExecutionData);
  });

  it("know the engine's fixed-rate rules and the log groups' retention", () => {
    const rates = ofType("AWS::Events::Rule")
      .map((rule) => rule.Properties.ScheduleExpression as string | undefined)
      .filter((e): e is string => Boolean(e))
      .map((e) => Number(/^rate\((\d+) minutes?\)$/.exec(e)![1]));
    expect(rates.toSorted()).toEqual(resources.workflows.periodic.map((p) => p.everyMinutes).toSorted());
    const retention = ofType("AWS::Logs::LogGroup").map((g) => g.Properties.RetentionInDays as number);
    const months = { 30: 1, 90: 3 } as Record<number, number>;
    const kept = new Set(retention.map((days) => months[days]));
    expect(kept).toEqual(new Set(Object.values(resources.logRetentionMonths)));
  });
});

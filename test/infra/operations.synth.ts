/**
 * What the operator runs the deployment with (docs/operations.md): one alarm topic, a handful of deployment-wide
 * alarms that cover every function, table and engine (decision 0066), an overview dashboard and detail ones on
 * request, log retention and tracing as settings, key rotation on every KMS key.
 */
import type * as cdk from "aws-cdk-lib";
import { beforeAll, describe, expect, it } from "vitest";
import { areaOf, routes } from "../../functions/routes.js";
import { buildApp } from "../../infra/app.js";
import { XRAY_ACTIONS } from "../../infra/constructs/route-function.js";
import { stackResources, UPLOAD_SERVICE_SIZE } from "../../infra/cost-resources.js";
import { FAILED_STATUSES, FUNCTION_REPORTS, reportFilterPattern, signalsNamespace, SLOW_STATUS, TABLE_THROTTLES } from "../../infra/function-signals.js";
import { API_5XX_PERCENT, SLOW_PERIODS } from "../../infra/monitoring.js";
import { WORKFLOW_TRACING_ENV } from "../../shared/config.js";
import { SIGNALS_NAMESPACE_ENV } from "../../shared/observability/signals.js";
import { tables } from "../../shared/store/tables.js";
import { allowStatements, deref, isCdkProvider, list, resourcesOf, scopeOf, synth, type Json, type Synth } from "./synth.js";

let s: Synth;
let configured: Synth;
beforeAll(async () => {
  s = await synth({ validate: false });
  configured = await synth({ context: { alarmEmail: "oncall@example.test", logRetentionDays: "7", tracing: "true" } });
}, 600_000);

const all = (x: Synth, type: string): { stack: cdk.Stack; id: string; resource: Json }[] =>
  x.stacks.flatMap((stack) => resourcesOf(x.template(stack), type).map(([id, resource]) => ({ stack, id, resource })));

/** Follows a value through nested-stack parameters and outputs to the resource it names: [stack, logical id]. */
function resolve(x: Synth, stack: cdk.Stack, value: Json): { stack: cdk.Stack; id: string } {
  const target = deref(value, scopeOf(x, stack));
  const imported = target.value["Fn::ImportValue"] as string | undefined;
  if (imported) {
    // Another top-level stack's export (the upload stack's alarms name the API stack's topic).
    for (const exporter of x.stacks.filter((n) => !n.nestedStackParent)) {
      const output = Object.values((x.template(exporter).Outputs ?? {}) as Record<string, Json>).find((o) => o.Export?.Name === imported);
      if (output) return resolve(x, exporter, output.Value);
    }
  }
  const getAtt = target.value["Fn::GetAtt"] as [string, string] | undefined;
  if (getAtt?.[1].startsWith("Outputs.")) {
    const owner = x.stacks.find((n) => n.nestedStackParent && target.scope.template === x.template(n.nestedStackParent) && n.nestedStackParent.getLogicalId(n.nestedStackResource as cdk.CfnElement) === getAtt[0])!;
    return resolve(x, owner, x.template(owner).Outputs[getAtt[1].slice("Outputs.".length)].Value);
  }
  const holder = x.stacks.find((n) => x.template(n) === target.scope.template)!;
  return { stack: holder, id: target.id };
}

const functionsOf = (x: Synth, stack: cdk.Stack) => resourcesOf(x.template(stack), "AWS::Lambda::Function");

describe("the alarm topic", () => {
  it("is one topic, encrypted with a rotated key of its own that CloudWatch may use, and TLS only", () => {
    const topics = all(s, "AWS::SNS::Topic");
    expect(topics).toHaveLength(1);
    const { stack, resource: topic } = topics[0]!;
    expect(stack).toBe(s.monitoring);
    const key = deref(topic.Properties.KmsMasterKeyId["Fn::GetAtt"] ? { Ref: topic.Properties.KmsMasterKeyId["Fn::GetAtt"][0] } : topic.Properties.KmsMasterKeyId, scopeOf(s, stack)).resource!;
    expect(key.Type).toBe("AWS::KMS::Key");
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.Properties.KeyPolicy.Statement).toContainEqual(
      expect.objectContaining({ Effect: "Allow", Principal: { Service: "cloudwatch.amazonaws.com" }, Action: ["kms:Decrypt", "kms:GenerateDataKey*"] }),
    );
    const [[, policy]] = resourcesOf(s.template(stack), "AWS::SNS::TopicPolicy") as [[string, Json]];
    expect(policy.Properties.PolicyDocument.Statement).toContainEqual(expect.objectContaining({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }));
  });

  it("is an output of the Api stack", () => {
    const output = s.template(s.api).Outputs.AlarmTopicArn;
    expect(output.Description).toMatch(/SNS topic every alarm notifies/);
    const topic = resolve(s, s.api, output.Value);
    expect(s.template(topic.stack).Resources[topic.id].Type).toBe("AWS::SNS::Topic");
  });

  it("has no subscription unless -c alarmEmail names an address, then that one by e-mail", () => {
    expect(all(s, "AWS::SNS::Subscription")).toEqual([]);
    const subscriptions = all(configured, "AWS::SNS::Subscription").map((x) => x.resource.Properties);
    expect(subscriptions).toEqual([expect.objectContaining({ Protocol: "email", Endpoint: "oncall@example.test" })]);
    expect(() => buildApp({ routes: routes.slice(0, 1), context: { alarmEmail: "not an address" } })).toThrow(/alarmEmail/);
  });

  it("is what every alarm of every stack notifies, and nothing else", () => {
    const alarms = all(s, "AWS::CloudWatch::Alarm");
    expect(alarms.length).toBeGreaterThan(5);
    for (const { stack, id, resource } of alarms) {
      expect(resource.Properties.AlarmActions, id).toHaveLength(1);
      const target = resolve(s, stack, resource.Properties.AlarmActions[0]);
      expect(s.template(target.stack).Resources[target.id]?.Type, `${stack.node.path}/${id}`).toBe("AWS::SNS::Topic");
    }
  });
});

describe("alarms", () => {
  const monitoringAlarms = () => resourcesOf(s.template(s.monitoring), "AWS::CloudWatch::Alarm").map(([, a]) => a.Properties);
  const named = (suffix: string) => monitoringAlarms().find((a) => a.AlarmName === `Platform-prod-${suffix}`)!;
  const metricsOf = (alarm: Json): Json[] => (alarm.Metrics ? list<Json>(alarm.Metrics).filter((m) => m.MetricStat).map((m) => m.MetricStat.Metric) : [{ Namespace: alarm.Namespace, MetricName: alarm.MetricName, Dimensions: alarm.Dimensions }]);
  const ours = (x: Synth) => all(x, "AWS::Lambda::Function").filter(({ id }) => !isCdkProvider(id));

  it("are a handful for the whole deployment, however many routes: the cost model counts the metrics they evaluate", () => {
    const alarms = all(s, "AWS::CloudWatch::Alarm").map((a) => a.resource.Properties);
    const metrics = alarms.reduce((sum, a) => sum + metricsOf(a).length, 0);
    expect(metrics).toBe(stackResources().alarmMetrics + UPLOAD_SERVICE_SIZE.alarmMetrics);
    expect(alarms.length).toBeLessThan(15);
  });

  it("watch every function's failed and slow invocations through a metric filter on its own log group (JSON logs)", () => {
    const errors = named("function-errors");
    const slow = named("function-slow");
    const watched = (alarm: Json) => metricsOf(alarm).map((m) => `${m.Namespace} ${m.MetricName} ${JSON.stringify(m.Dimensions)}`);
    expect(watched(errors).toSorted()).toEqual(FAILED_STATUSES.map((status) => `${signalsNamespace("Platform-prod")} ${FUNCTION_REPORTS} [{"Name":"status","Value":"${status}"}]`).toSorted());
    expect(watched(slow)).toEqual([`${signalsNamespace("Platform-prod")} ${FUNCTION_REPORTS} [{"Name":"status","Value":"${SLOW_STATUS}"}]`]);
    expect(errors).toMatchObject({ Threshold: 0, EvaluationPeriods: 1, ComparisonOperator: "GreaterThanThreshold", TreatMissingData: "notBreaching" });
    expect(slow).toMatchObject({ Threshold: 0, EvaluationPeriods: SLOW_PERIODS, ComparisonOperator: "GreaterThanThreshold" });

    const functions = ours(s);
    expect(functions.length).toBeGreaterThan(routes.length);
    for (const { stack, id, resource: fn } of functions) {
      expect(fn.Properties.LoggingConfig, id).toMatchObject({ LogFormat: "JSON", SystemLogLevel: "INFO" });
      const group = fn.Properties.LoggingConfig.LogGroup.Ref as string;
      const filters = resourcesOf(s.template(stack), "AWS::Logs::MetricFilter").filter(([, f]) => f.Properties.LogGroupName.Ref === group && f.Properties.MetricTransformations[0].MetricName === FUNCTION_REPORTS);
      expect(filters, `${stack.node.path} ${id}`).toHaveLength(1);
      const [[, filter]] = filters as [[string, Json]];
      expect(filter.Properties.FilterPattern).toBe(reportFilterPattern(fn.Properties.Timeout * 1000));
      expect(filter.Properties.MetricTransformations).toEqual([
        { MetricNamespace: signalsNamespace("Platform-prod"), MetricName: FUNCTION_REPORTS, MetricValue: "1", Dimensions: [{ Key: "status", Value: "$.record.status" }] },
      ]);
      expect(fn.Properties.Environment.Variables[SIGNALS_NAMESPACE_ENV], id).toBe(signalsNamespace("Platform-prod"));
    }
  });

  it("list, for every function, table, engine and the API, the alarm that covers each of its signals", () => {
    const coverage = new Map<string, string[]>();
    const cover = (what: string, alarm: string) => {
      expect(monitoringAlarms().map((a) => a.AlarmName).concat(all(s, "AWS::CloudWatch::Alarm").map((a) => a.resource.Properties.AlarmName ?? a.id))).toContain(alarm);
      coverage.set(what, [...(coverage.get(what) ?? []), alarm]);
    };
    for (const { stack, id } of ours(s)) {
      for (const alarm of ["Platform-prod-function-errors", "Platform-prod-function-slow", "Platform-prod-function-throttles"]) cover(`function ${stack.node.id}/${id}`, alarm);
    }
    // A table's throttled attempts are counted by every function's DynamoDB client (shared/store/throttles.ts).
    for (const def of tables) cover(`table ${def.name}`, "Platform-prod-table-throttles");
    const tableAlarm = named("table-throttles");
    expect(metricsOf(tableAlarm)).toEqual([{ Namespace: signalsNamespace("Platform-prod"), MetricName: TABLE_THROTTLES.metric, Dimensions: [{ Name: "Store", Value: "dynamodb" }] }]);
    for (const engine of s.api.engines) {
      const [[failedId, failed]] = resourcesOf(s.template(engine), "AWS::CloudWatch::Alarm") as [[string, Json]];
      expect(failed.Properties.MetricName).toBe("ExecutionsFailed");
      expect(failed.Properties.AlarmActions).toHaveLength(1);
      cover(`state machine ${engine.machine}`, failedId);
    }
    const [[runsId, runs]] = resourcesOf(s.template(s.api.workflowEngine), "AWS::CloudWatch::Alarm") as [[string, Json]];
    expect(runs.Properties.MetricName).toBe("FailedRuns");
    cover("workflow machines (created at run time)", runsId);
    cover("API stage", "Platform-prod-api-5xx-rate");

    expect(coverage.size).toBe(ours(s).length + tables.length + s.api.engines.length + 2);
    for (const [what, alarms] of coverage) expect(alarms.length, what).toBeGreaterThan(0);
  });

  it("watch Lambda's throttles in the account and region (the concurrency every function shares)", () => {
    expect(metricsOf(named("function-throttles"))).toEqual([{ Namespace: "AWS/Lambda", MetricName: "Throttles", Dimensions: undefined }]);
  });

  it("watch the API's 5xx rate on its stage", () => {
    const alarm = named("api-5xx-rate");
    expect(alarm).toMatchObject({ Threshold: API_5XX_PERCENT, EvaluationPeriods: 3, DatapointsToAlarm: 2, ComparisonOperator: "GreaterThanThreshold" });
    const metrics = metricsOf(alarm);
    expect(metrics.map((m) => m.MetricName).toSorted()).toEqual(["5XXError", "Count"]);
    for (const m of metrics) {
      expect(m.Namespace).toBe("AWS/ApiGateway");
      expect(m.Dimensions).toEqual(expect.arrayContaining([{ Name: "ApiName", Value: "Platform-prod-Api" }, { Name: "Stage", Value: expect.anything() }]));
    }
    expect(list<Json>(alarm.Metrics).find((m) => m.ReturnData !== false)?.Expression).toMatch(/100 \* errors \/ requests/);
  });
});

describe("dashboards", () => {
  const boards = (x: Synth) => all(x, "AWS::CloudWatch::Dashboard");
  const bodyOf = (board: Json) => JSON.stringify(board.Properties.DashboardBody);
  /** The dashboard's widgets, its body's JSON read with every CloudFormation reference in it as a placeholder. */
  const widgetsOf = (board: Json): Json[] =>
    JSON.parse(list<Json | string>(board.Properties.DashboardBody["Fn::Join"][1]).map((part) => (typeof part === "string" ? part : "REF")).join("")).widgets;

  it("are an overview and the upload service's by default: within CloudWatch's three free ones", () => {
    expect(boards(s).map((d) => d.resource.Properties.DashboardName).toSorted()).toEqual(["Platform-prod-overview", "Platform-prod-uploads"]);
    expect(boards(s)).toHaveLength(stackResources().dashboards + UPLOAD_SERVICE_SIZE.dashboards);
  });

  it("draw the overview from at most 50 metrics (the free dashboards' limit): the API, the signals, the engines, every alarm's state", () => {
    const [overview] = boards(s).filter((d) => d.resource.Properties.DashboardName === "Platform-prod-overview");
    const body = bodyOf(overview!.resource);
    // A metric line of a graph widget is an array starting with its namespace (the body is JSON in Fn::Join parts).
    const metricLines = body.match(/\[\\"(AWS\/[A-Za-z]+|Platform-prod\/Signals|PlatformApi\/Workflows)\\"/g) ?? [];
    expect(metricLines.length).toBeGreaterThan(10);
    expect(metricLines.length).toBeLessThanOrEqual(50);
    // The alarm widget names every alarm of the deployment but the upload service's (on its own dashboard), by ARN.
    const alarmRefs = body.match(/Outputs\.PlatformprodApi[A-Za-z0-9]+Arn/g) ?? [];
    for (const id of ["Api5xxRate", "FunctionErrors", "SlowInvocations", "FunctionThrottles", "TableThrottles", "BatchEngineExecutionsFailed", "DatasetimportEngineExecutionsFailed", "WorkflowEngineFailedRunsAlarm"]) {
      expect(alarmRefs.some((ref) => ref.includes(id)), id).toBe(true);
    }
    expect(alarmRefs).toHaveLength(all(s, "AWS::CloudWatch::Alarm").length - 2);
    expect(body).toContain("detailDashboards=true");
    // The API by area: three searches over the areas' embedded request metrics (each area's latency and 5xx).
    const expressions = widgetsOf(overview!.resource).flatMap((w) => list<Json[]>(w.properties?.metrics)).flatMap((m) => m.filter((part) => typeof part === "object" && part.expression).map((part) => part.expression as string));
    expect(expressions).toEqual([
      `SEARCH('{Platform-prod/Signals,area} MetricName="Latency"', 'SampleCount', 300)`,
      `SEARCH('{Platform-prod/Signals,area} MetricName="ServerErrors"', 'Sum', 300)`,
      `SEARCH('{Platform-prod/Signals,area} MetricName="Latency"', 'p99', 300)`,
    ]);
  });

  it("add one per area and engine, and one of the tables, with -c detailDashboards=true", async () => {
    const detailed = await synth({ validate: false, context: { detailDashboards: "true" } });
    const names = boards(detailed).map((d) => d.resource.Properties.DashboardName as string).toSorted();
    const areas = [...new Set(routes.map(areaOf))];
    expect(names).toEqual(
      [
        ...areas.map((a) => `Platform-prod-${a}`),
        ...detailed.api.engines.map((e) => `Platform-prod-engine-${e.machine}`),
        "Platform-prod-engine-workflows",
        "Platform-prod-overview",
        "Platform-prod-tables",
        "Platform-prod-uploads",
      ].toSorted(),
    );
    for (const area of detailed.api.areas) {
      const [[, board]] = resourcesOf(detailed.template(area), "AWS::CloudWatch::Dashboard") as [[string, Json]];
      // Every function of the area is drawn (its name is a Ref in the body).
      for (const [id] of functionsOf(detailed, area)) expect(bodyOf(board), `${area.node.id} ${id}`).toContain(`"Ref":"${id}"`);
    }
    expect(() => buildApp({ routes: routes.slice(0, 1), context: { detailDashboards: "maybe" } })).toThrow(/detailDashboards/);
  }, 240_000);
});

describe("log retention (-c logRetentionDays)", () => {
  it("keeps every group's own retention by default (none forever)", () => {
    for (const { id, resource } of all(s, "AWS::Logs::LogGroup")) expect(resource.Properties.RetentionInDays, id).toBeGreaterThan(0);
  });

  it("applies the setting to every log group of every stack", () => {
    const groups = all(configured, "AWS::Logs::LogGroup");
    expect(groups.length).toBeGreaterThan(routes.length);
    for (const { id, resource } of groups) expect(resource.Properties.RetentionInDays, id).toBe(7);
  });

  it("refuses a period CloudWatch Logs does not offer", () => {
    expect(() => buildApp({ routes: routes.slice(0, 1), context: { logRetentionDays: "10" } })).toThrow(/logRetentionDays/);
  });
});

describe("tracing (-c tracing)", () => {
  const statesMachines = (x: Synth) => all(x, "AWS::StepFunctions::StateMachine").map((m) => m.resource.Properties);

  it("is off by default: no function, stage or state machine traced, no X-Ray rights", () => {
    for (const { id, resource } of all(s, "AWS::Lambda::Function")) expect(resource.Properties.TracingConfig, id).toBeUndefined();
    for (const { resource } of all(s, "AWS::ApiGateway::Stage")) expect(resource.Properties.TracingEnabled).toBeUndefined();
    for (const m of statesMachines(s)) expect(m.TracingConfiguration?.Enabled ?? false).toBe(false);
    const xray = s.stacks.flatMap((stack) => allowStatements(s.template(stack))).filter(({ statement }) => list<string>(statement.Action).some((a) => a.startsWith("xray:")));
    expect(xray).toEqual([]);
  });

  it("when on, traces every function (its rights in its own role), the API stage and every state machine", () => {
    const functions = all(configured, "AWS::Lambda::Function").filter(({ id }) => !isCdkProvider(id));
    expect(functions.length).toBeGreaterThan(100);
    for (const { stack, id, resource } of functions) {
      expect(resource.Properties.TracingConfig, id).toEqual({ Mode: "Active" });
      const role = deref(resource.Properties.Role["Fn::GetAtt"] ? { Ref: resource.Properties.Role["Fn::GetAtt"][0] } : resource.Properties.Role, scopeOf(configured, stack)).resource!;
      const statements = list<Json>(role.Properties.Policies).flatMap((p) => p.PolicyDocument.Statement);
      expect(statements, id).toContainEqual(expect.objectContaining({ Action: XRAY_ACTIONS, Resource: "*", Effect: "Allow" }));
    }
    const stages = all(configured, "AWS::ApiGateway::Stage");
    expect(stages).toHaveLength(1);
    expect(stages[0]!.resource.Properties.TracingEnabled).toBe(true);
    expect(statesMachines(configured).length).toBeGreaterThan(0);
    for (const m of statesMachines(configured)) expect(m.TracingConfiguration).toEqual({ Enabled: true });
  });

  it("when on, lets the workflow machines created at run time trace too", () => {
    const template = configured.template(configured.api.workflowEngine);
    const publishers = all(configured, "AWS::Lambda::Function").filter((f) => f.resource.Properties.Environment?.Variables?.[WORKFLOW_TRACING_ENV] === "on");
    expect(publishers.length).toBeGreaterThan(0);
    const machineRoleId = configured.api.workflowEngine.getLogicalId(configured.api.workflowEngine.machineRole.node.defaultChild as cdk.CfnElement);
    const xray = allowStatements(template).filter(({ statement }) => list<string>(statement.Action).some((a) => a.startsWith("xray:")));
    expect(xray.some(({ where }) => JSON.stringify(template.Resources[where].Properties.Roles ?? []).includes(machineRoleId))).toBe(true);
  });

  it("keeps cdk-nag clean with everything on (X-Ray's resource-less actions acknowledged)", () => {
    const violations = (configured.validationReport().pluginReports as Json[]).flatMap((p) => (p.violations ?? []).map((v: Json) => `${p.pluginName}: ${v.ruleName}`));
    expect(violations).toEqual([]);
  });

  it("refuses a value that is not a switch", () => {
    expect(() => buildApp({ routes: routes.slice(0, 1), context: { tracing: "sometimes" } })).toThrow(/tracing/);
  });
});

describe("KMS keys", () => {
  it("rotate yearly, every one of them (the connector secrets' key in the data stack, the alarm topic's)", () => {
    const keys = all(s, "AWS::KMS::Key");
    expect(keys.map((k) => k.stack)).toEqual(expect.arrayContaining([s.data, s.monitoring]));
    for (const { id, resource } of keys) expect(resource.Properties.EnableKeyRotation, id).toBe(true);
  });
});

import * as cdk from "aws-cdk-lib";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as actions from "aws-cdk-lib/aws-cloudwatch-actions";
import * as iam from "aws-cdk-lib/aws-iam";
import * as kms from "aws-cdk-lib/aws-kms";
import * as sns from "aws-cdk-lib/aws-sns";
import * as subscriptions from "aws-cdk-lib/aws-sns-subscriptions";
import { Construct } from "constructs";
import type { RouteFunction } from "./constructs/route-function.js";
import { tables } from "../shared/store/tables.js";
import { groupByTimeout } from "./alarm-groups.js";
import { dataParameters, type DataRefs } from "./data-refs.js";
import { FAILED_STATUSES, FUNCTION_REPORTS, signalsNamespace, SLOW_SHARE, SLOW_STATUS, TABLE_THROTTLES } from "./function-signals.js";

/**
 * Alarms and dashboards (docs/operations.md, decisions 0034 and 0066), built from what the stacks already hold, never
 * per route. Every alarm notifies the ONE topic of the Monitoring nested stack; alarm names start with `<prefix>-` and
 * their descriptions name the section of docs/operations.md that says what to do. A handful of alarms cover every
 * function, table and engine: each watches a deployment-wide signal (infra/function-signals.ts), not a group.
 */

const FIVE_MINUTES = cdk.Duration.minutes(5);
/** API Gateway 5xx answers above this percentage of requests (in 2 of 3 five-minute periods) raise the 5xx alarm. */
export const API_5XX_PERCENT = 1;
/** Slow invocations in this many five-minute periods in a row raise the slow-invocations alarm. */
export const SLOW_PERIODS = 3;

/**
 * A group of functions drawn together on a detail dashboard: one area's (or engine's) functions with the same
 * timeout, at most 10 a graph.
 */
export function functionGroups(functions: readonly RouteFunction[]): RouteFunction[][] {
  return groupByTimeout(functions, timeoutMs);
}

const timeoutMs = (f: RouteFunction): number => f.fn.timeout!.toMilliseconds();

/** An alarm that notifies the topic; no data is not a breach. */
export function alarm(scope: Construct, id: string, topic: sns.ITopic, props: cloudwatch.AlarmProps): cloudwatch.Alarm {
  const created = new cloudwatch.Alarm(scope, id, { treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING, ...props });
  created.addAlarmAction(new actions.SnsAction(topic));
  return created;
}

/** Sends an alarm that already exists (the engines' own) to the topic too. */
export function notify(topic: sns.ITopic, ...alarms: cloudwatch.Alarm[]): void {
  for (const a of alarms) a.addAlarmAction(new actions.SnsAction(topic));
}

/**
 * The graphs of a detail dashboard (`-c detailDashboards=true`): each group of an area's or engine's functions, one
 * line per function, for invocations, errors and throttles, p99 duration against the timeout, concurrency.
 */
export function functionGroupWidgets(label: string, functions: readonly RouteFunction[]): cloudwatch.IWidget[] {
  const groups = functionGroups(functions);
  const sum = { period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM };
  return groups.flatMap((group, index) => {
    const n = groups.length > 1 ? `-${index + 1}` : "";
    const timeout = timeoutMs(group[0]!);
    const lines = (metric: (f: RouteFunction) => cloudwatch.Metric) => group.map((f) => metric(f).with({ label: f.node.id }));
    return [
      new cloudwatch.GraphWidget({ title: `${label}${n}: invocations`, left: lines((f) => f.fn.metricInvocations(sum)), width: 6 }),
      new cloudwatch.GraphWidget({ title: `${label}${n}: errors and throttles`, left: lines((f) => f.fn.metricErrors(sum)), right: lines((f) => f.fn.metricThrottles(sum)), width: 6 }),
      new cloudwatch.GraphWidget({
        title: `${label}${n}: p99 duration (timeout ${timeout / 1000} s)`,
        left: lines((f) => f.fn.metricDuration({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(99) })),
        leftAnnotations: [{ value: Math.round(timeout * SLOW_SHARE), label: `${SLOW_SHARE * 100}% of timeout` }],
        width: 6,
      }),
      new cloudwatch.GraphWidget({ title: `${label}${n}: concurrent executions`, left: lines((f) => f.fn.metric("ConcurrentExecutions", { period: FIVE_MINUTES, statistic: cloudwatch.Stats.MAXIMUM })), width: 6 }),
    ];
  });
}

/** One dashboard: the alarms first (their state at a glance), then the widgets, four to a row. */
export function dashboard(scope: Construct, id: string, name: string, alarms: cloudwatch.IAlarm[], widgets: cloudwatch.IWidget[]): cloudwatch.Dashboard {
  const board = new cloudwatch.Dashboard(scope, id, { dashboardName: name, defaultInterval: cdk.Duration.hours(3) });
  if (alarms.length) board.addWidgets(new cloudwatch.AlarmStatusWidget({ title: "Alarms", alarms, width: 24, height: Math.max(2, Math.ceil(alarms.length / 4) + 1) }));
  for (let i = 0; i < widgets.length; i += 4) board.addWidgets(...widgets.slice(i, i + 4));
  return board;
}

export interface MonitoringStackProps extends cdk.NestedStackProps {
  prefix: string;
  data: DataRefs;
  /** The REST API's name and stage, as literals: a reference to the stage would make the areas (which notify this stack's topic) and the stage's deployment a cycle. */
  apiName: string;
  stageName: string;
  alarmEmail?: string;
  /** `-c detailDashboards=true`: a dashboard per area and engine, and one of the tables, beside the overview. */
  detailDashboards: boolean;
}

/**
 * The topic every alarm notifies (encrypted with a key of its own that CloudWatch may use, TLS only), its e-mail
 * subscription, the deployment-wide alarms (the API's 5xx rate, failed, slow and throttled invocations of any function,
 * throttled requests to any table) and the overview's first graphs (infra/operations.ts draws the overview).
 */
export class MonitoringStack extends cdk.NestedStack {
  readonly topic: sns.Topic;
  readonly topicKey: kms.Key;
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly signals: { failed: cloudwatch.Metric[]; slow: cloudwatch.Metric; throttles: cloudwatch.Metric; tableThrottles: cloudwatch.Metric };
  readonly apiWidgets: cloudwatch.IWidget[];

  constructor(scope: Construct, id: string, props: MonitoringStackProps) {
    super(scope, id, props);
    this.topicKey = new kms.Key(this, "AlarmTopicKey", {
      description: `${props.prefix}: encrypts the alarm topic's messages`,
      enableKeyRotation: true,
      // Messages live minutes in SNS; nothing outlives the stack under this key.
      removalPolicy: cdk.RemovalPolicy.DESTROY,
      pendingWindow: cdk.Duration.days(7),
    });
    // CloudWatch publishes alarm notifications to the encrypted topic: it needs the key's data keys.
    this.topicKey.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal("cloudwatch.amazonaws.com")],
        actions: ["kms:Decrypt", "kms:GenerateDataKey*"],
        resources: ["*"],
        conditions: { StringEquals: { "aws:SourceAccount": cdk.Aws.ACCOUNT_ID } },
      }),
    );
    this.topic = new sns.Topic(this, "AlarmTopic", {
      displayName: `${props.prefix} alarms`,
      masterKey: this.topicKey,
      enforceSSL: true,
    });
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));

    const sum = { period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM };
    const apiMetric = (metricName: string, options: cloudwatch.MetricOptions) =>
      new cloudwatch.Metric({ namespace: "AWS/ApiGateway", metricName, dimensionsMap: { ApiName: props.apiName, Stage: props.stageName }, ...options });
    const signal = (metricName: string, dimensionsMap: Record<string, string>, label: string) =>
      new cloudwatch.Metric({ namespace: signalsNamespace(props.prefix), metricName, dimensionsMap, ...sum, label });
    const failed = Object.fromEntries(FAILED_STATUSES.map((status) => [status, signal(FUNCTION_REPORTS, { status }, status)]));
    this.signals = {
      failed: Object.values(failed),
      slow: signal(FUNCTION_REPORTS, { status: SLOW_STATUS }, `past ${SLOW_SHARE * 100}% of timeout`),
      // Lambda's own, for the account and region: throttling means the account's concurrency is spent, whoever spent it.
      throttles: new cloudwatch.Metric({ namespace: "AWS/Lambda", metricName: "Throttles", ...sum, label: "throttles (account)" }),
      tableThrottles: signal(TABLE_THROTTLES.metric, TABLE_THROTTLES.dimensions, "DynamoDB throttled requests"),
    };
    this.alarms.push(
      alarm(this, "Api5xxRate", this.topic, {
        alarmName: `${props.prefix}-api-5xx-rate`,
        alarmDescription: `More than ${API_5XX_PERCENT}% of API requests answered 5xx in 2 of the last 3 five-minute periods. docs/operations.md#api-5xx-rate`,
        metric: new cloudwatch.MathExpression({
          expression: "IF(requests > 0, 100 * errors / requests, 0)",
          usingMetrics: { errors: apiMetric("5XXError", sum), requests: apiMetric("Count", sum) },
          period: FIVE_MINUTES,
          label: "5xx (% of requests)",
        }),
        threshold: API_5XX_PERCENT,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
      }),
      alarm(this, "FunctionErrors", this.topic, {
        alarmName: `${props.prefix}-function-errors`,
        alarmDescription: "An invocation of one of the deployment's functions failed (an uncaught error, a timeout, out of memory, a crash). docs/operations.md#function-errors",
        metric: new cloudwatch.MathExpression({ expression: `SUM([${FAILED_STATUSES.join(",")}])`, usingMetrics: failed, period: FIVE_MINUTES, label: "failed invocations" }),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
      }),
      alarm(this, "SlowInvocations", this.topic, {
        alarmName: `${props.prefix}-function-slow`,
        alarmDescription: `Invocations ran past ${SLOW_SHARE * 100}% of their function's timeout in ${SLOW_PERIODS} five-minute periods in a row. docs/operations.md#function-duration`,
        metric: this.signals.slow,
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: SLOW_PERIODS,
      }),
      alarm(this, "FunctionThrottles", this.topic, {
        alarmName: `${props.prefix}-function-throttles`,
        alarmDescription: "Lambda throttled invocations in this account and region: its concurrency is spent, and the deployment's functions are refused too. docs/operations.md#function-throttles",
        metric: this.signals.throttles,
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
      }),
      alarm(this, "TableThrottles", this.topic, {
        alarmName: `${props.prefix}-table-throttles`,
        alarmDescription: "DynamoDB throttled reads or writes of the deployment's tables (every throttled attempt, retried or not). docs/operations.md#table-throttled-requests",
        metric: this.signals.tableThrottles,
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
      }),
    );
    this.apiWidgets = [
      new cloudwatch.GraphWidget({ title: "API requests", left: [apiMetric("Count", { ...sum, label: "requests" })], right: [apiMetric("4XXError", { ...sum, label: "4xx" }), apiMetric("5XXError", { ...sum, label: "5xx" })], width: 12 }),
      new cloudwatch.GraphWidget({
        title: "API latency (ms)",
        left: [apiMetric("Latency", { period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(50), label: "p50" }), apiMetric("Latency", { period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(99), label: "p99" })],
        width: 12,
      }),
      ...this.areaWidgets(signalsNamespace(props.prefix)),
      new cloudwatch.GraphWidget({ title: "functions: failed invocations", left: this.signals.failed, width: 6 }),
      new cloudwatch.GraphWidget({ title: `functions: past ${SLOW_SHARE * 100}% of timeout`, left: [this.signals.slow], width: 6 }),
      new cloudwatch.GraphWidget({
        title: "Lambda in this account and region",
        left: [new cloudwatch.Metric({ namespace: "AWS/Lambda", metricName: "ConcurrentExecutions", period: FIVE_MINUTES, statistic: cloudwatch.Stats.MAXIMUM, label: "concurrent executions" })],
        right: [this.signals.throttles],
        width: 6,
      }),
      new cloudwatch.GraphWidget({ title: "tables: throttled requests", left: [this.signals.tableThrottles], width: 6 }),
    ];

    if (props.detailDashboards) {
      const data = dataParameters(this, props.data);
      dashboard(
        this,
        "Tables",
        `${props.prefix}-tables`,
        [],
        tables.map((def) => {
          const table = data.tables[def.name];
          const metric = (metricName: string, label: string) => new cloudwatch.Metric({ namespace: "AWS/DynamoDB", metricName, dimensionsMap: { TableName: table.tableName }, ...sum, label });
          return new cloudwatch.GraphWidget({
            title: `table ${def.name}`,
            left: [metric("ConsumedReadCapacityUnits", "read units"), metric("ConsumedWriteCapacityUnits", "write units")],
            right: [metric("ReadThrottleEvents", "read throttles"), metric("WriteThrottleEvents", "write throttles")],
            width: 6,
          });
        }),
      );
    }
  }

  /**
   * The API by area: each route's request line carries its area's latency and 5xx as embedded metrics
   * (shared/observability/signals.ts); one search per graph draws every area that had traffic.
   */
  private areaWidgets(namespace: string): cloudwatch.IWidget[] {
    const byArea = (metricName: string, statistic: string, label: string) =>
      new cloudwatch.MathExpression({ expression: `SEARCH('{${namespace},area} MetricName="${metricName}"', '${statistic}', 300)`, label, period: FIVE_MINUTES });
    return [
      new cloudwatch.GraphWidget({ title: "API requests by area", left: [byArea("Latency", "SampleCount", "requests")], width: 8 }),
      new cloudwatch.GraphWidget({ title: "API 5xx by area", left: [byArea("ServerErrors", "Sum", "5xx")], width: 8 }),
      new cloudwatch.GraphWidget({ title: "API p99 latency by area (ms, in the function)", left: [byArea("Latency", "p99", "p99")], width: 8 }),
    ];
  }
}

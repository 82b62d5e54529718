import * as cdk from "aws-cdk-lib";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as actions from "aws-cdk-lib/aws-cloudwatch-actions";
import * as iam from "aws-cdk-lib/aws-iam";
import * as kms from "aws-cdk-lib/aws-kms";
import * as sns from "aws-cdk-lib/aws-sns";
import * as subscriptions from "aws-cdk-lib/aws-sns-subscriptions";
import { Construct } from "constructs";
import { tables } from "../shared/store/tables.js";
import type { RouteFunction } from "./constructs/route-function.js";
import { dataParameters, type DataRefs } from "./data-refs.js";
import { groupByTimeout } from "./alarm-groups.js";

/**
 * Alarms and dashboards (docs/operations.md, decision 0034), built from what the stacks already hold (the
 * route table's areas, the engine table's machines, the table definitions), never per route. Every alarm
 * notifies the ONE topic of the Monitoring nested stack; alarm names start with `<prefix>-` and their
 * descriptions name the section of docs/operations.md that says what to do.
 */

const FIVE_MINUTES = cdk.Duration.minutes(5);
/** p99 duration above this share of a group's timeout raises its duration alarm. */
export const DURATION_ALARM_SHARE = 0.8;
/** API Gateway 5xx answers above this percentage of requests (in 2 of 3 five-minute periods) raise the 5xx alarm. */
export const API_5XX_PERCENT = 1;

export type GroupMetric = "errors" | "throttles" | "duration";

/**
 * A "function group": functions of one area (or engine) with the same timeout, at most 10 (the metric-math
 * alarm limit). Areas with more functions, or with both buffered (29 s) and streamed (15 min) routes, make
 * several groups; each group's alarms watch all of its functions at once.
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

export interface FunctionGroupProps {
  /** Alarm names start with it: `<prefix>-<label>-<n>-errors`. */
  prefix: string;
  /** The area or engine, e.g. `files`, `engine-batch`. */
  label: string;
  functions: readonly RouteFunction[];
  topic: sns.ITopic;
  /** Which alarms each group gets; default all three. */
  metrics?: readonly GroupMetric[];
}

/**
 * Alarms on errors, throttles and p99 duration against the timeout for each function group of an area or
 * engine, and the dashboard widgets that show the same functions one line each.
 */
export class FunctionGroupAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly widgets: cloudwatch.IWidget[] = [];

  constructor(scope: Construct, id: string, props: FunctionGroupProps) {
    super(scope, id);
    const wanted = new Set(props.metrics ?? ["errors", "throttles", "duration"]);
    const groups = functionGroups(props.functions);
    groups.forEach((group, index) => {
      const n = groups.length > 1 ? `-${index + 1}` : "";
      const name = `${props.prefix}-${props.label}${n}`;
      const who = `${props.label} functions${groups.length > 1 ? ` (group ${index + 1} of ${groups.length})` : ""}: ${group.map((f) => f.node.id).join(", ")}`;
      const ids = group.map((_, i) => `m${i}`);
      const using = (metric: (f: RouteFunction) => cloudwatch.Metric) => Object.fromEntries(group.map((f, i) => [ids[i], metric(f)]));
      const sum = { period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM };
      if (wanted.has("errors")) {
        this.alarms.push(
          alarm(this, `Errors${index + 1}`, props.topic, {
            alarmName: `${name}-errors`,
            alarmDescription: `Function errors (uncaught exceptions, timeouts, out of memory) in ${who}. docs/operations.md#function-errors`,
            metric: new cloudwatch.MathExpression({ expression: `SUM([${ids.join(",")}])`, usingMetrics: using((f) => f.fn.metricErrors(sum)), period: FIVE_MINUTES, label: "errors" }),
            threshold: 0,
            comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluationPeriods: 1,
          }),
        );
      }
      if (wanted.has("throttles")) {
        this.alarms.push(
          alarm(this, `Throttles${index + 1}`, props.topic, {
            alarmName: `${name}-throttles`,
            alarmDescription: `Lambda throttled invocations of ${who}: the account's concurrency is exhausted. docs/operations.md#function-throttles`,
            metric: new cloudwatch.MathExpression({ expression: `SUM([${ids.join(",")}])`, usingMetrics: using((f) => f.fn.metricThrottles(sum)), period: FIVE_MINUTES, label: "throttles" }),
            threshold: 0,
            comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluationPeriods: 1,
          }),
        );
      }
      const timeout = timeoutMs(group[0]!);
      if (wanted.has("duration")) {
        this.alarms.push(
          alarm(this, `Duration${index + 1}`, props.topic, {
            alarmName: `${name}-p99-duration`,
            alarmDescription: `p99 duration of one of ${who} is above ${DURATION_ALARM_SHARE * 100}% of its ${timeout / 1000} s timeout for 15 minutes. docs/operations.md#function-duration`,
            metric: new cloudwatch.MathExpression({
              expression: `MAX([${ids.join(",")}])`,
              usingMetrics: using((f) => f.fn.metricDuration({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(99) })),
              period: FIVE_MINUTES,
              label: "p99 duration (ms)",
            }),
            threshold: Math.round(timeout * DURATION_ALARM_SHARE),
            comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluationPeriods: 3,
          }),
        );
      }
      const lines = (metric: (f: RouteFunction) => cloudwatch.Metric) => group.map((f) => metric(f).with({ label: f.node.id }));
      this.widgets.push(
        new cloudwatch.GraphWidget({ title: `${props.label}${n}: invocations`, left: lines((f) => f.fn.metricInvocations(sum)), width: 6 }),
        new cloudwatch.GraphWidget({ title: `${props.label}${n}: errors and throttles`, left: lines((f) => f.fn.metricErrors(sum)), right: lines((f) => f.fn.metricThrottles(sum)), width: 6 }),
        new cloudwatch.GraphWidget({
          title: `${props.label}${n}: p99 duration (timeout ${timeout / 1000} s)`,
          left: lines((f) => f.fn.metricDuration({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(99) })),
          leftAnnotations: [{ value: Math.round(timeout * DURATION_ALARM_SHARE), label: `${DURATION_ALARM_SHARE * 100}% of timeout` }],
          width: 6,
        }),
        new cloudwatch.GraphWidget({ title: `${props.label}${n}: concurrent executions`, left: lines((f) => f.fn.metric("ConcurrentExecutions", { period: FIVE_MINUTES, statistic: cloudwatch.Stats.MAXIMUM })), width: 6 }),
      );
    });
  }
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
}

/**
 * The topic every alarm notifies (encrypted with a key of its own that CloudWatch may use, TLS only), its
 * e-mail subscription, the alarms that belong to no area (API Gateway 5xx rate, each table's throttled
 * requests) and the overview dashboard.
 */
export class MonitoringStack extends cdk.NestedStack {
  readonly topic: sns.Topic;
  readonly topicKey: kms.Key;
  readonly alarms: cloudwatch.Alarm[] = [];

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
    );

    const data = dataParameters(this, props.data);
    const tableWidgets: cloudwatch.IWidget[] = [];
    for (const def of tables) {
      const table = data.tables[def.name];
      const throttled = (metricName: string) => new cloudwatch.Metric({ namespace: "AWS/DynamoDB", metricName, dimensionsMap: { TableName: table.tableName }, ...sum });
      this.alarms.push(
        alarm(this, `${def.name}ThrottledRequests`, this.topic, {
          alarmName: `${props.prefix}-table-${def.name}-throttled`,
          alarmDescription: `DynamoDB throttled reads or writes of the ${def.name} table (or its indexes). docs/operations.md#table-throttled-requests`,
          metric: new cloudwatch.MathExpression({
            expression: "reads + writes",
            usingMetrics: { reads: throttled("ReadThrottleEvents"), writes: throttled("WriteThrottleEvents") },
            period: FIVE_MINUTES,
            label: `${def.name} throttled`,
          }),
          threshold: 0,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
        }),
      );
      tableWidgets.push(
        new cloudwatch.GraphWidget({
          title: `table ${def.name}`,
          left: [
            new cloudwatch.Metric({ namespace: "AWS/DynamoDB", metricName: "ConsumedReadCapacityUnits", dimensionsMap: { TableName: table.tableName }, ...sum, label: "read units" }),
            new cloudwatch.Metric({ namespace: "AWS/DynamoDB", metricName: "ConsumedWriteCapacityUnits", dimensionsMap: { TableName: table.tableName }, ...sum, label: "write units" }),
          ],
          right: [throttled("ReadThrottleEvents").with({ label: "read throttles" }), throttled("WriteThrottleEvents").with({ label: "write throttles" })],
          width: 6,
        }),
      );
    }

    const p = (n: number) => ({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(n) });
    dashboard(this, "Overview", `${props.prefix}-overview`, this.alarms, [
      new cloudwatch.GraphWidget({ title: "API requests", left: [apiMetric("Count", { ...sum, label: "requests" })], right: [apiMetric("4XXError", { ...sum, label: "4xx" }), apiMetric("5XXError", { ...sum, label: "5xx" })], width: 12 }),
      new cloudwatch.GraphWidget({
        title: "API latency (ms)",
        left: [apiMetric("Latency", { ...p(50), label: "p50" }), apiMetric("Latency", { ...p(99), label: "p99" }), apiMetric("IntegrationLatency", { ...p(99), label: "integration p99" })],
        width: 12,
      }),
      ...tableWidgets,
    ]);
  }
}

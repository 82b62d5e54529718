import * as cdk from "aws-cdk-lib";
import * as apigw from "aws-cdk-lib/aws-apigateway";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as elbv2 from "aws-cdk-lib/aws-elasticloadbalancingv2";
import * as iam from "aws-cdk-lib/aws-iam";
import * as logs from "aws-cdk-lib/aws-logs";
import type * as sns from "aws-cdk-lib/aws-sns";
import * as sfn from "aws-cdk-lib/aws-stepfunctions";
import type { IConstruct } from "constructs";
import { areaOf } from "../functions/routes.js";
import { SIGNALS_AREA_ENV, SIGNALS_NAMESPACE_ENV } from "../shared/observability/signals.js";
import type { ApiStack } from "./api-stack.js";
import type { DataStack } from "./data-stack.js";
import { RouteFunction, XRAY_ACTIONS } from "./constructs/route-function.js";
import { FUNCTION_REPORTS, reportFilterPattern, signalsNamespace } from "./function-signals.js";
import { alarm, dashboard, functionGroupWidgets, MonitoringStack, notify } from "./monitoring.js";
import type { UploadStack } from "./upload-service.js";
import type { OperationsSettings } from "./operations-settings.js";


/**
 * Everything an operator runs the deployment with, added to the built stacks (docs/operations.md):
 * - the Monitoring nested stack (one SNS topic, the deployment-wide alarms, the overview dashboard), a metric filter
 *   on every function's log group feeding the signals those alarms watch (infra/function-signals.ts), and with
 *   `-c detailDashboards=true` a dashboard per area and engine;
 * - `logRetentionDays` on every log group of the app (an aspect, so groups added later are covered too);
 * - with `tracing`, X-Ray on the API stage and the state machines (the functions turn it on themselves:
 *   infra/constructs/route-function.ts).
 */
export function addOperations(
  app: cdk.App,
  { data, api, prefix, stage, uploads }: { data: DataStack; api: ApiStack; prefix: string; stage: string; uploads?: UploadStack },
  settings: OperationsSettings,
): MonitoringStack {
  const monitoring = new MonitoringStack(api, "Monitoring", {
    prefix,
    data,
    apiName: api.api.restApiName,
    stageName: stage,
    alarmEmail: settings.alarmEmail,
    detailDashboards: settings.detailDashboards,
  });
  const topic = monitoring.topic;
  new cdk.CfnOutput(api, "AlarmTopicArn", { value: topic.topicArn, description: "The SNS topic every alarm notifies: subscribe to it (or deploy with -c alarmEmail=...)" });

  // Every function of every stack reports its failed and slow invocations to the deployment's signals.
  const namespace = signalsNamespace(prefix);
  for (const fn of app.node.findAll().filter((c): c is RouteFunction => c instanceof RouteFunction)) {
    new logs.MetricFilter(fn, "Reports", {
      logGroup: fn.logGroup,
      filterPattern: logs.FilterPattern.literal(reportFilterPattern(fn.fn.timeout!.toMilliseconds())),
      metricNamespace: namespace,
      metricName: FUNCTION_REPORTS,
      metricValue: "1",
      dimensions: { status: "$.record.status" },
    });
    fn.fn.addEnvironment(SIGNALS_NAMESPACE_ENV, namespace);
  }
  // Route functions also say their area: their request lines carry the area's latency and 5xx (embedded metrics).
  for (const area of api.areas) {
    for (const route of area.routes) route.fn.fn.addEnvironment(SIGNALS_AREA_ENV, areaOf(route.row));
  }

  const sum = { period: cdk.Duration.minutes(5), statistic: "Sum" };
  const engineWidgets: cloudwatch.IWidget[] = [];
  for (const engine of api.engines) {
    notify(topic, engine.failedAlarm);
    const machine = engine.stateMachine;
    engineWidgets.push(
      new cloudwatch.GraphWidget({ title: `${engine.machine} executions`, left: [machine.metricStarted(sum), machine.metricSucceeded(sum)], right: [machine.metricFailed(sum)], width: 6 }),
    );
    if (settings.detailDashboards) {
      const label = `engine-${engine.machine}`;
      dashboard(engine, "Dashboard", `${prefix}-${label}`, [engine.failedAlarm], [
        new cloudwatch.GraphWidget({
          title: `${engine.machine} executions`,
          left: [machine.metricStarted(sum), machine.metricSucceeded(sum)],
          right: [machine.metricFailed(sum), machine.metricTimedOut(sum), machine.metricAborted(sum)],
          width: 24,
        }),
        ...functionGroupWidgets(label, Object.values(engine.tasks)),
      ]);
    }
  }

  const workflows = api.workflowEngine;
  notify(topic, ...workflows.alarms);
  engineWidgets.push(new cloudwatch.GraphWidget({ title: "workflow runs that failed", left: [workflows.failedRuns.with({ label: "failed runs" })], width: 6 }));
  if (settings.detailDashboards) {
    const runs = (metricName: string) =>
      new cloudwatch.MathExpression({
        // Workflow machines are created at run time (one per workflow): a dashboard (not an alarm) may search for them.
        expression: `SEARCH('{AWS/States,StateMachineArn} MetricName="${metricName}" "${workflows.refs.machinePrefix}"', 'Sum', 300)`,
        label: metricName,
        period: cdk.Duration.minutes(5),
      });
    dashboard(workflows, "Dashboard", `${prefix}-engine-workflows`, workflows.alarms, [
      new cloudwatch.GraphWidget({ title: "workflow executions started / succeeded", left: [runs("ExecutionsStarted"), runs("ExecutionsSucceeded")], width: 12 }),
      new cloudwatch.GraphWidget({ title: "workflow executions failed / timed out / aborted", left: [runs("ExecutionsFailed"), runs("ExecutionsTimedOut"), runs("ExecutionsAborted")], width: 12 }),
      ...functionGroupWidgets("engine-workflows", [...Object.values(workflows.functions), ...Object.values(api.periodic.functions)]),
    ]);
    for (const area of api.areas) {
      const label = areaOf(area.routes[0]!.row);
      dashboard(area, "Dashboard", `${prefix}-${label}`, [], functionGroupWidgets(label, area.routes.map((r) => r.fn)));
    }
  }

  // In the Api stack itself: the Monitoring stack holds the topic every stack notifies, so it cannot read their alarms back.
  dashboard(api, "Overview", `${prefix}-overview`, [...monitoring.alarms, ...api.engines.map((e) => e.failedAlarm), ...workflows.alarms], [
    ...monitoring.apiWidgets,
    ...engineWidgets,
    new cloudwatch.TextWidget({ markdown: overviewGuide(prefix, settings.detailDashboards, Boolean(uploads)), width: 24, height: 3 }),
  ]);

  if (uploads) uploadServiceAlarms(uploads, prefix, topic);

  if (settings.logRetentionDays !== undefined) {
    const days = settings.logRetentionDays;
    cdk.Aspects.of(app).add({
      visit(node: IConstruct) {
        if (node instanceof logs.CfnLogGroup) node.retentionInDays = days;
      },
    });
  }

  if (settings.tracing) {
    (api.api.deploymentStage.node.defaultChild as apigw.CfnStage).tracingEnabled = true;
    for (const engine of api.engines) {
      (engine.stateMachine.node.defaultChild as sfn.CfnStateMachine).tracingConfiguration = { enabled: true };
      engine.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: XRAY_ACTIONS, resources: ["*"] }));
    }
    // Workflow machines are created at run time with tracing on (WORKFLOW_TRACING); they run as this role.
    workflows.machineRole.addToPrincipalPolicy(new iam.PolicyStatement({ actions: XRAY_ACTIONS, resources: ["*"] }));
  }
  return monitoring;
}

/**
 * The upload service (the one part that is not a Lambda function): its own answers of 5xx, and any target the load
 * balancer finds unhealthy, to the same topic; a dashboard of its requests, errors and task load.
 */
function uploadServiceAlarms(uploads: UploadStack, prefix: string, topic: sns.ITopic): void {
  const service = uploads.service;
  const fiveMinutes = { period: cdk.Duration.minutes(5), statistic: "Sum" };
  const errors = service.targets.metrics.httpCodeTarget(elbv2.HttpCodeTarget.TARGET_5XX_COUNT, fiveMinutes);
  const unhealthy = service.targets.metrics.unhealthyHostCount({ period: cdk.Duration.minutes(1), statistic: "Maximum" });
  const alarms = [
    alarm(service, "Upload5xx", topic, {
      alarmName: `${prefix}-uploads-5xx`,
      alarmDescription: "The upload service answered 5xx to POST /v1/files (docs/operations.md, Uploads)",
      metric: errors,
      threshold: 5,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    }),
    alarm(service, "UploadUnhealthy", topic, {
      alarmName: `${prefix}-uploads-unhealthy`,
      alarmDescription: "The load balancer finds an upload service task unhealthy (docs/operations.md, Uploads)",
      metric: unhealthy,
      threshold: 1,
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    }),
  ];
  dashboard(service, "Dashboard", `${prefix}-uploads`, alarms, [
    new cloudwatch.GraphWidget({ title: "uploads: requests and 5xx", left: [service.targets.metrics.requestCount(fiveMinutes)], right: [errors], width: 12 }),
    new cloudwatch.GraphWidget({ title: "uploads: task CPU and memory (%)", left: [service.service.metricCpuUtilization(), service.service.metricMemoryUtilization()], width: 12 }),
  ]);
}

/** The overview's last line: where the detail is (docs/operations.md "Dashboards"). */
function overviewGuide(prefix: string, detail: boolean, uploads: boolean): string {
  return [
    "**Where to look next** (docs/operations.md): a failed or slow invocation's function and request are in its log group (Logs Insights: `filter type = \"platform.report\" and record.status != \"success\"`).",
    detail
      ? `Per area and engine: the dashboards named \`${prefix}-<area>\` and \`${prefix}-engine-<machine>\`, and \`${prefix}-tables\`.`
      : "Per area and engine: deploy with `-c detailDashboards=true` for a dashboard each (CloudWatch bills $3 a month for each dashboard past the account's three free ones).",
    uploads ? `The upload service: the \`${prefix}-uploads\` dashboard.` : "",
  ]
    .filter(Boolean)
    .join("\n\n");
}

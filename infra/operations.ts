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
import type { ApiStack } from "./api-stack.js";
import type { DataStack } from "./data-stack.js";
import { XRAY_ACTIONS } from "./constructs/route-function.js";
import { alarm, dashboard, FunctionGroupAlarms, MonitoringStack, notify } from "./monitoring.js";
import type { UploadStack } from "./upload-service.js";
import type { OperationsSettings } from "./operations-settings.js";


/**
 * Everything an operator runs the deployment with, added to the built stacks (docs/operations.md):
 * - the Monitoring nested stack (one SNS topic, the API 5xx and table alarms, the overview dashboard) and,
 *   in each area's and engine's own nested stack, its function groups' alarms and its dashboard;
 * - `logRetentionDays` on every log group of the app (an aspect, so groups added later are covered too);
 * - with `tracing`, X-Ray on the API stage and the state machines (the functions turn it on themselves:
 *   infra/constructs/route-function.ts).
 */
export function addOperations(
  app: cdk.App,
  { data, api, prefix, stage, uploads }: { data: DataStack; api: ApiStack; prefix: string; stage: string; uploads?: UploadStack },
  settings: OperationsSettings,
): MonitoringStack {
  const monitoring = new MonitoringStack(api, "Monitoring", { prefix, data, apiName: api.api.restApiName, stageName: stage, alarmEmail: settings.alarmEmail });
  const topic = monitoring.topic;
  new cdk.CfnOutput(api, "AlarmTopicArn", { value: topic.topicArn, description: "The SNS topic every alarm notifies: subscribe to it (or deploy with -c alarmEmail=...)" });

  const authorizer = new FunctionGroupAlarms(monitoring, "AuthorizerAlarms", { prefix, label: "authorizer", functions: [api.authorizerFunction], topic });
  monitoring.alarms.push(...authorizer.alarms);

  for (const area of api.areas) {
    const label = areaOf(area.routes[0]!.row);
    const groups = new FunctionGroupAlarms(area, "Alarms", { prefix, label, functions: area.routes.map((r) => r.fn), topic });
    dashboard(area, "Dashboard", `${prefix}-${label}`, groups.alarms, groups.widgets);
  }

  for (const engine of api.engines) {
    notify(topic, engine.failedAlarm);
    const label = `engine-${engine.machine}`;
    const groups = new FunctionGroupAlarms(engine, "Alarms", { prefix, label, functions: Object.values(engine.tasks), topic });
    const sum = { period: cdk.Duration.minutes(5), statistic: "Sum" };
    const machine = engine.stateMachine;
    dashboard(engine, "Dashboard", `${prefix}-${label}`, [engine.failedAlarm, ...groups.alarms], [
      new cloudwatch.GraphWidget({
        title: `${engine.machine} executions`,
        left: [machine.metricStarted(sum), machine.metricSucceeded(sum)],
        right: [machine.metricFailed(sum), machine.metricTimedOut(sum), machine.metricAborted(sum)],
        width: 24,
      }),
      ...groups.widgets,
    ]);
  }

  const workflows = api.workflowEngine;
  notify(topic, ...workflows.alarms);
  // Each engine function's errors already have an alarm of their own (with what they mean): the groups add throttles and duration.
  const engineGroups = new FunctionGroupAlarms(workflows, "Alarms", { prefix, label: "engine-workflows", functions: Object.values(workflows.functions), topic, metrics: ["throttles", "duration"] });
  const runs = (metricName: string) =>
    new cloudwatch.MathExpression({
      // Workflow machines are created at run time (one per workflow): a dashboard (not an alarm) may search for them.
      expression: `SEARCH('{AWS/States,StateMachineArn} MetricName="${metricName}" "${workflows.refs.machinePrefix}"', 'Sum', 300)`,
      label: metricName,
      period: cdk.Duration.minutes(5),
    });
  dashboard(workflows, "Dashboard", `${prefix}-engine-workflows`, [...workflows.alarms, ...engineGroups.alarms], [
    new cloudwatch.GraphWidget({ title: "workflow executions started / succeeded", left: [runs("ExecutionsStarted"), runs("ExecutionsSucceeded")], width: 12 }),
    new cloudwatch.GraphWidget({ title: "workflow executions failed / timed out / aborted", left: [runs("ExecutionsFailed"), runs("ExecutionsTimedOut"), runs("ExecutionsAborted")], width: 12 }),
    ...engineGroups.widgets,
  ]);

  // The periodic tasks (functions/engine.ts `periodicTasks`): errors, throttles and duration per group, as every function has.
  new FunctionGroupAlarms(api.periodic, "Alarms", { prefix, label: "periodic", functions: Object.values(api.periodic.functions), topic });

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

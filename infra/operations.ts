import * as cdk from "aws-cdk-lib";
import * as apigw from "aws-cdk-lib/aws-apigateway";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as iam from "aws-cdk-lib/aws-iam";
import * as logs from "aws-cdk-lib/aws-logs";
import * as sfn from "aws-cdk-lib/aws-stepfunctions";
import type { IConstruct } from "constructs";
import { areaOf } from "../functions/routes.js";
import type { ApiStack } from "./api-stack.js";
import type { DataStack } from "./data-stack.js";
import { XRAY_ACTIONS } from "./constructs/route-function.js";
import { dashboard, FunctionGroupAlarms, MonitoringStack, notify } from "./monitoring.js";
import type { OperationsSettings } from "./operations-settings.js";


/**
 * Everything an operator runs the deployment with, added to the built stacks (docs/operations.md):
 * - the Monitoring nested stack (one SNS topic, the API 5xx and table alarms, the overview dashboard) and,
 *   in each area's and engine's own nested stack, its function groups' alarms and its dashboard;
 * - `logRetentionDays` on every log group of the app (an aspect, so groups added later are covered too);
 * - with `tracing`, X-Ray on the API stage and the state machines (the functions turn it on themselves:
 *   infra/constructs/route-function.ts).
 */
export function addOperations(app: cdk.App, { data, api, prefix, stage }: { data: DataStack; api: ApiStack; prefix: string; stage: string }, settings: OperationsSettings): MonitoringStack {
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

import * as cdk from "aws-cdk-lib";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as events from "aws-cdk-lib/aws-events";
import * as targets from "aws-cdk-lib/aws-events-targets";
import * as iam from "aws-cdk-lib/aws-iam";
import * as logs from "aws-cdk-lib/aws-logs";
import * as scheduler from "aws-cdk-lib/aws-scheduler";
import type { Construct } from "constructs";
import { workflowEngine, type EngineTask } from "../functions/engine.js";
import { RouteFunction } from "./constructs/route-function.js";
import { dataParameters, type DataRefs } from "./data-refs.js";
import type { WorkflowEngineRefs } from "./grants.js";
import type { InferenceSettings } from "./inference.js";

export interface WorkflowEngineStackProps extends cdk.NestedStackProps {
  data: DataRefs;
  logLevel: string;
  inference: InferenceSettings;
  /** Every workflow state machine's name starts with it; the IAM policies are scoped to it. */
  machinePrefix: string;
  /** The schedule group of the engine's one-time timers. */
  timerGroup: string;
  /** The schedule group of workflow schedules' fires (and the prefix of the fire function's name). */
  scheduleGroup: string;
}

/** The log line the status handler writes for a run that ends FAILED (shared/services/workflows/status.ts). */
export const RUN_FAILED_MESSAGE = "workflow run failed";

/**
 * The workflow engine (docs/workflows.md) as a nested stack of the Api stack: the dispatcher every
 * workflow Task invokes, the status handler fed by EventBridge, the reconciler, the timer handler and
 * its schedule group, the one role all workflow state machines run as, and the alarms. The machines
 * themselves are created at run time by the registration route, under `machinePrefix`.
 */
export class WorkflowEngineStack extends cdk.NestedStack {
  readonly functions: Record<keyof typeof workflowEngine, RouteFunction>;
  /** The role every workflow state machine runs as: it may invoke the dispatcher and nothing else. */
  readonly machineRole: iam.Role;
  /** The role EventBridge Scheduler invokes the timer handler with. */
  readonly timerRole: iam.Role;
  /** The role EventBridge Scheduler invokes the schedule fire handler with: that function only. */
  readonly scheduleRole: iam.Role;
  readonly refs: Required<WorkflowEngineRefs>;
  readonly alarms: cloudwatch.Alarm[];
  /** Runs that ended FAILED (a metric filter on the status handler's log). */
  readonly failedRuns: cloudwatch.Metric;

  constructor(scope: Construct, id: string, props: WorkflowEngineStackProps) {
    super(scope, id, props);
    const data = dataParameters(this, props.data);
    const refs: WorkflowEngineRefs = { machinePrefix: props.machinePrefix, timerGroup: props.timerGroup, scheduleGroup: props.scheduleGroup };
    const fn = (name: keyof typeof workflowEngine, description: string, functionName?: string) => {
      const task: EngineTask = workflowEngine[name];
      return new RouteFunction(this, name[0]!.toUpperCase() + name.slice(1), {
        handler: task.handler,
        grants: task.grants,
        data,
        description,
        memoryMb: task.memoryMb,
        timeoutSeconds: task.timeoutSeconds,
        logLevel: props.logLevel,
        inference: task.grants.models ? props.inference : undefined,
        workflows: refs,
        functionName,
      });
    };

    // Built in dependency order: each function's settings name only what exists before it (both schedule groups
    // and their roles first: every function that closes runs may arm a schedule's buffered fire). The timer handler
    // arms timers itself (a retry's next run, a parent's children), so its ARN is known before it exists:
    // a fixed name under the machine prefix (the prefix is this deployment's).
    const timerName = `${props.machinePrefix}timer`;
    const timerArn = `arn:${cdk.Aws.PARTITION}:lambda:${cdk.Aws.REGION}:${cdk.Aws.ACCOUNT_ID}:function:${timerName}`;
    new scheduler.CfnScheduleGroup(this, "TimerGroup", { name: props.timerGroup });
    this.timerRole = new iam.Role(this, "TimerRole", {
      assumedBy: new iam.ServicePrincipal("scheduler.amazonaws.com", { conditions: { StringEquals: { "aws:SourceAccount": cdk.Aws.ACCOUNT_ID } } }),
      inlinePolicies: { invoke: new iam.PolicyDocument({ statements: [new iam.PolicyStatement({ actions: ["lambda:InvokeFunction"], resources: [timerArn] })] }) },
    });
    Object.assign(refs, { timerTargetArn: timerArn, timerRoleArn: this.timerRole.roleArn });

    // The fire handler re-arms the next fire with itself as the target: its ARN is known from a fixed name
    // before it exists (a reference to the function from its own settings would be a cycle).
    const scheduleFireName = `${props.scheduleGroup}-fire`;
    if (scheduleFireName.length > 64) throw new Error(`The schedule fire function's name ${scheduleFireName} is longer than Lambda's 64 characters`);
    const scheduleFireArn = `arn:${cdk.Aws.PARTITION}:lambda:${cdk.Aws.REGION}:${cdk.Aws.ACCOUNT_ID}:function:${scheduleFireName}`;
    new scheduler.CfnScheduleGroup(this, "ScheduleGroup", { name: props.scheduleGroup });
    this.scheduleRole = new iam.Role(this, "ScheduleRole", {
      assumedBy: new iam.ServicePrincipal("scheduler.amazonaws.com", { conditions: { StringEquals: { "aws:SourceAccount": cdk.Aws.ACCOUNT_ID } } }),
      inlinePolicies: { invoke: new iam.PolicyDocument({ statements: [new iam.PolicyStatement({ actions: ["lambda:InvokeFunction"], resources: [scheduleFireArn] })] }) },
    });
    Object.assign(refs, { scheduleTargetArn: scheduleFireArn, scheduleRoleArn: this.scheduleRole.roleArn });
    const timer = fn("timer", "Workflow engine: fired timers (execution timeouts, cancel grace periods, sleeps, retries, a parent's children)", timerName);
    const scheduleFire = fn("scheduleFire", "Workflow schedules: a fire (starts the execution, re-arms the next)", scheduleFireName);
    const scheduleSweep = fn("scheduleSweep", "Workflow schedules: re-arms fires that were lost");

    const dispatch = fn("dispatch", "Workflow engine: every Task of every workflow program");
    this.machineRole = new iam.Role(this, "MachineRole", {
      assumedBy: new iam.ServicePrincipal("states.amazonaws.com", { conditions: { StringEquals: { "aws:SourceAccount": cdk.Aws.ACCOUNT_ID } } }),
      inlinePolicies: { dispatch: new iam.PolicyDocument({ statements: [new iam.PolicyStatement({ actions: ["lambda:InvokeFunction"], resources: [dispatch.fn.functionArn] })] }) },
    });
    Object.assign(refs, { roleArn: this.machineRole.roleArn, dispatcherArn: dispatch.fn.functionArn });

    const status = fn("status", "Workflow engine: Step Functions status changes of workflow runs");
    const reconcile = fn("reconcile", "Workflow engine: runs whose status change was missed");
    this.functions = { timer, dispatch, status, reconcile, scheduleFire, scheduleSweep };
    this.refs = refs as Required<WorkflowEngineRefs>;

    // Status changes of this project's workflow machines only (best effort: the reconciler catches misses).
    new events.Rule(this, "StatusChanges", {
      description: "Workflow runs that ended: to the status handler",
      eventPattern: {
        source: ["aws.states"],
        detailType: ["Step Functions Execution Status Change"],
        detail: {
          status: ["SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED"],
          stateMachineArn: [{ prefix: `arn:${cdk.Aws.PARTITION}:states:${cdk.Aws.REGION}:${cdk.Aws.ACCOUNT_ID}:stateMachine:${props.machinePrefix}` }],
        },
      },
      targets: [new targets.LambdaFunction(status.fn, { retryAttempts: 8, maxEventAge: cdk.Duration.hours(2) })],
    });
    new events.Rule(this, "ReconcileSchedule", {
      description: `Every ${workflowEngine.reconcile.everyMinutes} minutes: workflow runs still RUNNING whose execution is over`,
      schedule: events.Schedule.rate(cdk.Duration.minutes(workflowEngine.reconcile.everyMinutes)),
      targets: [new targets.LambdaFunction(reconcile.fn, { retryAttempts: 2 })],
    });

    new events.Rule(this, "ScheduleSweepRule", {
      description: "Every minute: workflow schedules whose armed fire was lost are armed again",
      schedule: events.Schedule.rate(cdk.Duration.minutes(workflowEngine.scheduleSweep.everyMinutes)),
      targets: [new targets.LambdaFunction(scheduleSweep.fn, { retryAttempts: 2 })],
    });

    const failedRuns = new logs.MetricFilter(this, "FailedRuns", {
      logGroup: status.logGroup,
      filterPattern: logs.FilterPattern.stringValue("$.message", "=", RUN_FAILED_MESSAGE),
      metricNamespace: "PlatformApi/Workflows",
      metricName: "FailedRuns",
      metricValue: "1",
    });
    this.failedRuns = failedRuns.metric({ period: cdk.Duration.minutes(5), statistic: cloudwatch.Stats.SUM });
    // The engine's functions' errors, throttles and duration are the deployment's signals (infra/function-signals.ts).
    this.alarms = [
      new cloudwatch.Alarm(this, "FailedRunsAlarm", {
        alarmDescription: "A workflow run ended FAILED: the status handler's log and the run's events say why. docs/operations.md#workflow-runs-failed",
        metric: this.failedRuns,
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    ];
  }
}

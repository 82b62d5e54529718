import * as cdk from "aws-cdk-lib";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as iam from "aws-cdk-lib/aws-iam";
import * as logs from "aws-cdk-lib/aws-logs";
import * as sfn from "aws-cdk-lib/aws-stepfunctions";
import type { Construct } from "constructs";
import type { StateMachineRow } from "../functions/engine.js";
import { RouteFunction } from "./constructs/route-function.js";
import { dataParameters, type DataRefs } from "./data-refs.js";
import { deployedDefinition } from "./engine-definition.js";
import { WORKSPACE_PREFIX } from "./grants.js";
import type { InferenceSettings } from "./inference.js";

export interface EngineStackProps extends cdk.NestedStackProps {
  /** The engine row's name (functions/engine.ts stateMachines). */
  machine: string;
  row: StateMachineRow;
  data: DataRefs;
  logLevel: string;
  inference: InferenceSettings;
}

/**
 * One state machine of the engine table as a nested stack of the Api stack: a function per task (built
 * like a route: its own bundle, log group and least-privilege role), the Standard state machine running
 * THE definition with those functions' ARNs, its log group, and an alarm on failed executions.
 * Nested in the Api stack (not a stack of its own) so that the routes that start executions get its ARN
 * as a nested-stack parameter, deployed and rolled back with them, without cross-stack exports.
 */
export class EngineStack extends cdk.NestedStack {
  readonly machine: string;
  readonly tasks: Record<string, RouteFunction>;
  readonly role: iam.Role;
  readonly stateMachine: sfn.StateMachine;
  readonly logGroup: logs.LogGroup;
  readonly failedAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: EngineStackProps) {
    super(scope, id, props);
    this.machine = props.machine;
    const data = dataParameters(this, props.data);
    this.tasks = Object.fromEntries(
      Object.entries(props.row.tasks).map(([key, task]) => [
        key,
        new RouteFunction(this, key[0]!.toUpperCase() + key.slice(1), {
          handler: task.handler,
          grants: task.grants,
          data,
          description: `${props.machine} state machine: ${key}`,
          memoryMb: task.memoryMb,
          timeoutSeconds: task.timeoutSeconds,
          logLevel: props.logLevel,
          inference: task.grants.models ? props.inference : undefined,
        }),
      ]),
    );

    // Invokes exactly its task functions, and reads the Distributed Map's item manifests (ItemReader).
    this.role = new iam.Role(this, "Role", {
      assumedBy: new iam.ServicePrincipal("states.amazonaws.com"),
      inlinePolicies: {
        tasks: new iam.PolicyDocument({
          statements: [
            new iam.PolicyStatement({ actions: ["lambda:InvokeFunction"], resources: Object.values(this.tasks).map((t) => t.fn.functionArn) }),
            new iam.PolicyStatement({ actions: ["s3:GetObject"], resources: [data.bucket.arnForObjects(`${WORKSPACE_PREFIX}*`)] }),
          ],
        }),
      },
    });

    this.logGroup = new logs.LogGroup(this, "Logs", {
      // The vended-logs prefix keeps Step Functions' log delivery within CloudWatch Logs' resource policy size limit.
      logGroupName: `/aws/vendedlogs/states/${cdk.Names.uniqueId(this)}`,
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: cdk.RemovalPolicy.DESTROY,
    });

    const definition = deployedDefinition(
      props.row,
      Object.fromEntries(Object.entries(this.tasks).map(([key, fn]) => [key, fn.fn.functionArn])),
    );
    this.stateMachine = new sfn.StateMachine(this, "StateMachine", {
      // THE definition (functions/engine.ts), with the function ARNs as tokens; toJsonString quotes them right.
      definitionBody: sfn.DefinitionBody.fromString(cdk.Stack.of(this).toJsonString(definition)),
      stateMachineType: sfn.StateMachineType.STANDARD,
      role: this.role,
      logs: { destination: this.logGroup, level: sfn.LogLevel.ALL, includeExecutionData: true },
      tracingEnabled: false,
    });

    // A Distributed Map runs its items as child executions of this same machine. In a policy of its own:
    // the machine's ARN inside the role's inline policy would make the role depend on the machine.
    new iam.Policy(this, "MapRunPolicy", {
      roles: [this.role],
      statements: [
        new iam.PolicyStatement({ actions: ["states:StartExecution"], resources: [this.stateMachine.stateMachineArn] }),
        new iam.PolicyStatement({
          actions: ["states:DescribeExecution", "states:StopExecution"],
          resources: [
            cdk.Stack.of(this).formatArn({
              service: "states",
              resource: "execution",
              resourceName: `${this.stateMachine.stateMachineName}/*`,
              arnFormat: cdk.ArnFormat.COLON_RESOURCE_NAME,
            }),
          ],
        }),
      ],
    });

    this.failedAlarm = new cloudwatch.Alarm(this, "ExecutionsFailed", {
      alarmDescription: `An execution of the ${props.machine} state machine failed: its log group and the job's record say why`,
      metric: this.stateMachine.metricFailed({ period: cdk.Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }
}

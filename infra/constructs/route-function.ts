import * as cdk from "aws-cdk-lib";
import * as apigw from "aws-cdk-lib/aws-apigateway";
import * as iam from "aws-cdk-lib/aws-iam";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as logs from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { stateMachines } from "../../functions/engine.js";
import { DEFAULT_MEMORY_MB } from "../../functions/route-row.js";
import type { Grants } from "../../functions/routes.js";
import { AUDIT_RETENTION_ENV, FILES_BUCKET_ENV, WORKFLOW_TRACING_ENV } from "../../shared/config.js";
import { ROUTE_KEY_ENV } from "../../shared/http/policy.js";
import { tableEnvVar, type TableName } from "../../shared/store/tables.js";
import { bundleDir } from "../build.js";
import type { DataRefs } from "../data-refs.js";
import { CORS_ORIGINS_ENV, type CorsSetting } from "../../shared/http/cors.js";
import { grantEnvironment, grantStatements, workflowEnvironment, type StateMachineRefs, type WorkflowEngineRefs } from "../grants.js";
import { bedrockStatements, keyEnvironment, type InferenceSettings } from "../inference.js";
import { auditRetention, operationsSettings } from "../operations-settings.js";

/** What X-Ray needs of a traced function; neither action has a resource to scope it to. */
export const XRAY_ACTIONS = ["xray:PutTraceSegments", "xray:PutTelemetryRecords"];
import { telemetryEnvironment } from "../telemetry.js";

export interface RouteFunctionProps {
  /** Module under functions/ (the route table's `handler`); its bundle is dist/<handler>/index.mjs. */
  handler: string;
  /** The row's "METHOD path", for routes: the handler chain reads its policy by it (engine tasks have none). */
  routeKey?: string;
  grants: Grants;
  data: DataRefs;
  description?: string;
  memoryMb?: number;
  /** Streamed responses may run the full 15 minutes API Gateway allows them. */
  streaming?: boolean;
  logLevel: string;
  /** For functions that call models: provider settings, Bedrock rights, upstream keys. */
  inference?: InferenceSettings;
  /** For state machine tasks: the function's own timeout (routes get API Gateway's). */
  timeoutSeconds?: number;
  /** The state machines the grants' `executions` name; each ARN also arrives in its row's `arnEnv`. */
  stateMachines?: StateMachineRefs;
  /** The workflow engine, for functions granted `workflows` rights. */
  workflows?: WorkflowEngineRefs;
  /** Browser clients' origins, for routes when CORS is on (shared/http/cors.ts reads CORS_ORIGINS). */
  cors?: CorsSetting;
  /** More environment, from the function's area (the connectors' OAuth URLs). */
  environment?: Record<string, string>;
  /** A fixed name, for a function whose ARN must be known before it exists (one that arms timers or schedules targeting itself). */
  functionName?: string;
}

/** The tables' and bucket's names as the code reads them (shared/config.ts), and the logger's service name. */
export const dataEnvironment = (data: DataRefs): Record<string, string> => ({
  ...Object.fromEntries(Object.entries(data.tables).map(([name, table]) => [tableEnvVar(name as TableName), table.tableName])),
  [FILES_BUCKET_ENV]: data.bucket.bucketName,
  POWERTOOLS_SERVICE_NAME: "platform-api",
});

/** Request/response routes are cut off by API Gateway at 29 s; running longer only costs money. */
const BUFFERED_TIMEOUT = cdk.Duration.seconds(29);

/** Powertools' level names as Lambda's application log levels (its CRITICAL and SILENT are Lambda's FATAL). */
function applicationLogLevel(level: string): lambda.ApplicationLogLevel {
  const upper = level.toUpperCase();
  if (upper === "CRITICAL" || upper === "SILENT") return lambda.ApplicationLogLevel.FATAL;
  const known = Object.values(lambda.ApplicationLogLevel) as string[];
  if (!known.includes(upper)) throw new Error(`-c logLevel=${level}: use one of ${known.join(", ")}`);
  return upper as lambda.ApplicationLogLevel;
}
const STREAMING_TIMEOUT = cdk.Duration.minutes(15);

/**
 * One handler as a Lambda function, with the defaults every route shares: the prebuilt bundle, arm64,
 * its own log group and its own role holding exactly the row's grants.
 */
export class RouteFunction extends Construct {
  readonly fn: lambda.Function;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  private readonly streaming: boolean;

  constructor(scope: Construct, id: string, props: RouteFunctionProps) {
    super(scope, id);
    this.streaming = props.streaming ?? false;
    // `-c tracing=true` (infra/operations-settings.ts): X-Ray active tracing, its rights in the same inline policy.
    const tracing = operationsSettings(this).tracing;
    const logGroup = (this.logGroup = new logs.LogGroup(this, "Logs", {
      retention: logs.RetentionDays.ONE_MONTH,
      // Retention already bounds what is kept; a replaced function should not leave an orphan group behind.
      removalPolicy: cdk.RemovalPolicy.DESTROY,
    }));
    // An inline policy (not AWSLambdaBasicExecutionRole, not a separate AWS::IAM::Policy): one resource
    // fewer per route, and logging is limited to this function's own group.
    this.role = new iam.Role(this, "Role", {
      assumedBy: new iam.ServicePrincipal("lambda.amazonaws.com"),
      inlinePolicies: {
        route: new iam.PolicyDocument({
          statements: [
            new iam.PolicyStatement({ actions: ["logs:CreateLogStream", "logs:PutLogEvents"], resources: [logGroup.logGroupArn] }),
            ...grantStatements(props.grants, props.data, props.stateMachines, props.workflows),
            // Speech and OCR rows get the providers' settings, not Bedrock: their models are Transcribe, Polly, Textract or upstreams.
            ...(props.inference && props.grants.models ? bedrockStatements(props.inference.bedrockModels, props.inference.bedrockGuardrails) : []),
            ...(tracing ? [new iam.PolicyStatement({ actions: XRAY_ACTIONS, resources: ["*"] })] : []),
          ],
        }),
      },
    });
    this.fn = new lambda.Function(this, "Function", {
      code: lambda.Code.fromAsset(bundleDir(props.handler)),
      handler: "index.handler",
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memoryMb ?? DEFAULT_MEMORY_MB,
      timeout: props.timeoutSeconds ? cdk.Duration.seconds(props.timeoutSeconds) : this.streaming ? STREAMING_TIMEOUT : BUFFERED_TIMEOUT,
      description: props.description ?? props.handler,
      ...(props.functionName ? { functionName: props.functionName } : {}),
      role: this.role,
      logGroup,
      // JSON: Lambda's own lines (the per-invocation `platform.report`) become fields a metric filter can read
      // (infra/function-signals.ts); the application's level follows the handlers' (Powertools reads it too).
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: applicationLogLevel(props.logLevel),
      systemLogLevelV2: lambda.SystemLogLevel.INFO,
      environment: {
        ...dataEnvironment(props.data),
        ...(props.routeKey ? { [ROUTE_KEY_ENV]: props.routeKey } : {}),
        POWERTOOLS_LOG_LEVEL: props.logLevel,
        ...(props.cors ? { [CORS_ORIGINS_ENV]: props.cors === "*" ? "*" : props.cors.join(",") } : {}),
        ...(props.inference ? { ...props.inference.env, ...keyEnvironment(props.inference) } : {}),
        ...Object.fromEntries(
          Object.keys(props.grants.executions ?? {}).map((m) => [stateMachines[m as keyof StateMachineRefs].arnEnv, props.stateMachines![m as keyof StateMachineRefs]!.arn]),
        ),
        ...(props.grants.workflows && props.workflows ? workflowEnvironment(props.grants.workflows, props.workflows) : {}),
        ...grantEnvironment(props.grants, props.data),
        // Workflow machines are created at run time: those who publish them turn their tracing on too.
        ...(tracing && props.grants.workflows?.publish ? { [WORKFLOW_TRACING_ENV]: "on" } : {}),
        ...(props.grants.appendAudit ? { [AUDIT_RETENTION_ENV]: String(auditRetention(this)) } : {}),
        ...(props.grants.telemetry ? telemetryEnvironment(props.grants.telemetry, props.data.telemetry) : {}),
        ...props.environment,
      },
    });
    // On the resource itself: the L2 `tracing` prop would add the X-Ray rights as a separate policy resource.
    if (tracing) (this.fn.node.defaultChild as lambda.CfnFunction).tracingConfig = { mode: lambda.Tracing.ACTIVE };
  }

  /**
   * A Lambda proxy integration with ONE api-wide invoke permission, created here (in this function's
   * stack). LambdaIntegration would add one permission per method scoped to the stage, which makes the
   * nested stacks depend on the core stage: a cycle (reference/cdk-rest-api.md section 3).
   */
  integration(api: apigw.IRestApi): apigw.Integration {
    this.fn.addPermission("ApiInvoke", {
      principal: new iam.ServicePrincipal("apigateway.amazonaws.com"),
      sourceArn: api.arnForExecuteApi(),
    });
    const arn = this.fn.functionArn;
    return new apigw.AwsIntegration({
      proxy: true,
      service: "lambda",
      path: this.streaming ? `2021-11-15/functions/${arn}/response-streaming-invocations` : `2015-03-31/functions/${arn}/invocations`,
      options: this.streaming ? { responseTransferMode: apigw.ResponseTransferMode.STREAM, timeout: STREAMING_TIMEOUT } : {},
    });
  }
}

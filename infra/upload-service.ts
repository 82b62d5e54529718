import { join } from "node:path";
import * as cdk from "aws-cdk-lib";
import type * as apigw from "aws-cdk-lib/aws-apigateway";
import * as cloudfront from "aws-cdk-lib/aws-cloudfront";
import * as origins from "aws-cdk-lib/aws-cloudfront-origins";
import * as ec2 from "aws-cdk-lib/aws-ec2";
import { Platform } from "aws-cdk-lib/aws-ecr-assets";
import * as ecs from "aws-cdk-lib/aws-ecs";
import * as elbv2 from "aws-cdk-lib/aws-elasticloadbalancingv2";
import * as iam from "aws-cdk-lib/aws-iam";
import * as logs from "aws-cdk-lib/aws-logs";
import * as secretsmanager from "aws-cdk-lib/aws-secretsmanager";
import * as cr from "aws-cdk-lib/custom-resources";
import type { Construct } from "constructs";
import { authorizer, callsProviders, rowByKey, type Access, type Grants, type ObjectAccess } from "../functions/routes.js";
import { pathPatternOf, REALTIME_GRANTS, REALTIME_PATH, UPLOAD_ROUTE_KEYS } from "../functions/upload-service/routes.js";
import { deployedMachines, type MachineName } from "../shared/engine/machines.js";
import { CORS_ORIGINS_ENV, type CorsSetting } from "../shared/http/cors.js";
import { DIST, UPLOAD_SERVICE_DIR } from "./build.js";
import { CONSOLE_ASSETS_PATH, ConsoleAssets } from "./console-assets.js";
import { dataEnvironment } from "./constructs/route-function.js";
import { dataParameters, type DataRefs } from "./data-refs.js";
import { grantEnvironment, grantStatements, type StateMachineRefs } from "./grants.js";
import { inferenceSettings, type InferenceSettings } from "./inference.js";
import { pascal } from "./names.js";
import type { ApiStack } from "./api-stack.js";
import { uploadServiceSize } from "./upload-service-size.js";



/** The port the service listens on in its container (functions/upload-service/main.ts). */
export const UPLOAD_SERVICE_PORT = 8080;

/** The CDK context setting that turns the distribution (and with it the upload service) off: `-c uploadDistribution=false`. */
export const UPLOAD_DISTRIBUTION_CONTEXT = "uploadDistribution";

/** Origin ids the CloudFront function names. */
export const API_ORIGIN_ID = "api";
export const UPLOAD_ORIGIN_ID = "upload-service";

/**
 * The viewer-request function of the `/v1/files` behavior: CloudFront matches paths, not methods, so the
 * behavior's origin is the upload service and every method but POST is sent back to API Gateway (whose
 * origin carries the stage as its path). CloudFront Functions runtime 2.0 (origin selection).
 */
export const UPLOAD_ROUTER_CODE = `import cf from "cloudfront";

function handler(event) {
  if (event.request.method !== "POST") cf.selectRequestOriginById("${API_ORIGIN_ID}");
  return event.request;
}
`;

/**
 * What the service runs with: the union of its routes' grants (functions/upload-service/routes.ts), the realtime
 * transcription socket's and the authorizer's (it checks keys itself).
 */
export function uploadServiceGrants(): Grants {
  return [...UPLOAD_ROUTE_KEYS.map((key) => rowByKey(key)!.grants), REALTIME_GRANTS, authorizer.grants as Grants].reduce(unionGrants, {});
}

const OBJECT_RIGHTS: Record<ObjectAccess, ("read" | "write" | "delete")[]> = {
  read: ["read"],
  write: ["write"],
  readwrite: ["read", "write"],
  delete: ["delete"],
  "read-delete": ["read", "delete"],
  "write-delete": ["write", "delete"],
  "readwrite-delete": ["read", "write", "delete"],
};
const accessOf = (rights: Set<string>) => (rights.has("read") && rights.has("write") ? "readwrite" : rights.has("read") ? "read" : "write");

/** Both grants' rights: tables, objects and state machines merged; any other right must be the same where both name it. */
export function unionGrants(a: Grants, b: Grants): Grants {
  const union: Record<string, unknown> = { ...a, ...b };
  for (const key of Object.keys(b) as (keyof Grants)[]) {
    if (key === "tables" || key === "files" || key === "executions" || a[key] === undefined) continue;
    if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) throw new Error(`The upload service's routes need different ${key} rights; merge them by hand`);
  }
  const tables: Record<string, Access> = { ...a.tables };
  for (const [name, access] of Object.entries(b.tables ?? {}) as [string, Access][]) {
    const rights = new Set([...(tables[name] ? OBJECT_RIGHTS[tables[name]] : []), ...OBJECT_RIGHTS[access]]);
    tables[name] = accessOf(rights);
  }
  if (a.tables || b.tables) union.tables = tables;
  if (a.files || b.files) {
    const rights = new Set([...(a.files ? OBJECT_RIGHTS[a.files] : []), ...(b.files ? OBJECT_RIGHTS[b.files] : [])]);
    const objects = rights.has("read") || rights.has("write") ? accessOf(rights) : undefined;
    union.files = (rights.has("delete") ? (objects ? `${objects}-delete` : "delete") : objects) as ObjectAccess;
  }
  if (a.executions || b.executions) union.executions = { ...a.executions, ...b.executions };
  return union as Grants;
}

export interface UploadStackProps extends cdk.StackProps {
  data: DataRefs;
  api: apigw.RestApi;
  logLevel: string;
  cors?: CorsSetting;
  /** The engine's state machines the upload routes start (a document's processing); by default the API stack's. */
  stateMachines?: StateMachineRefs;
  /**
   * The providers' settings and upstream keys the realtime socket calls models with (infra/inference.ts); by default read
   * from the app's context, as the API stack's are.
   */
  inference?: InferenceSettings;
}

/** The state machines of the API stack that holds `api` (infra/api-stack.ts `engines`). */
function apiStateMachines(api: apigw.RestApi): StateMachineRefs {
  const engines = (cdk.Stack.of(api) as Partial<Pick<ApiStack, "engines">>).engines ?? [];
  return Object.fromEntries(engines.map((e) => [e.machine, { arn: e.stateMachine.stateMachineArn, name: e.stateMachine.stateMachineName }]));
}

/**
 * The deployment's front door (docs/decisions/0033-uploads-through-a-streaming-service.md): a CloudFront
 * distribution serving the API at the root of its domain (its URL is the SDKs' server URL). The resources
 * live in one nested stack, which receives the data stack's names as parameters (as the area stacks do,
 * infra/data-refs.ts), so its grants read `<FilesBucketArn>/workspaces/*` whatever the stage.
 */
export class UploadStack extends cdk.Stack {
  readonly service: UploadServiceStack;

  constructor(scope: Construct, id: string, props: UploadStackProps) {
    super(scope, id, props);
    this.service = new UploadServiceStack(this, "Service", { ...props, stateMachines: props.stateMachines ?? apiStateMachines(props.api) });
    new cdk.CfnOutput(this, "DistributionUrl", {
      value: `https://${this.service.distribution.distributionDomainName}`,
      description: "The SDKs' server_url: the whole API at the root of this domain, with uploads to 512 MB",
    });
  }
}

/**
 * The distribution (`https://<distribution>/v1/...`), which sends `POST /v1/files`, library document uploads and the
 * realtime transcription WebSocket (`GET /v1/audio/transcriptions/realtime`) to the streaming upload service (ECS Fargate
 * behind an internal Application Load Balancer, reached only as CloudFront's VPC origin), the web console's hashed
 * assets (`/console/<name>`) to their S3 bucket (infra/console-assets.ts), and everything else to API Gateway unchanged.
 */
export class UploadServiceStack extends cdk.NestedStack {
  readonly distribution: cloudfront.Distribution;
  readonly service: ecs.FargateService;
  readonly taskDefinition: ecs.FargateTaskDefinition;
  readonly balancer: elbv2.ApplicationLoadBalancer;
  readonly targets: elbv2.ApplicationTargetGroup;
  readonly router: cloudfront.Function;
  readonly prefixListLookup: cr.AwsCustomResource;
  /** The web console's assets from S3 (infra/console-assets.ts), at `/console/<name>` on the distribution. */
  readonly consoleAssets: ConsoleAssets;

  constructor(scope: Construct, id: string, props: UploadStackProps) {
    super(scope, id, { description: props.description });
    const data = dataParameters(this, props.data);

    // Two AZs, no NAT gateway: tasks sit in public subnets (a public IP for pulling the image and shipping
    // logs; their security group admits only the balancer), the balancer in isolated ones. S3 and DynamoDB
    // are reached through gateway endpoints, so file bytes never leave the AWS network.
    const vpc = new ec2.Vpc(this, "Vpc", {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [
        { name: "tasks", subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        { name: "balancer", subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 },
      ],
      gatewayEndpoints: {
        S3: { service: ec2.GatewayVpcEndpointAwsService.S3 },
        DynamoDB: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB },
      },
      flowLogs: {
        rejected: {
          trafficType: ec2.FlowLogTrafficType.REJECT,
          destination: ec2.FlowLogDestination.toCloudWatchLogs(
            new logs.LogGroup(this, "FlowLogs", { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: cdk.RemovalPolicy.DESTROY }),
          ),
        },
      },
    });

    const logGroup = new logs.LogGroup(this, "Logs", { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: cdk.RemovalPolicy.DESTROY });
    const grants = uploadServiceGrants();
    // The state machines its routes start (a document's processing), as parameters like an area stack's (infra/area-stack.ts).
    const machines: StateMachineRefs = Object.fromEntries(
      (Object.keys(grants.executions ?? {}) as MachineName[]).map((machine) => {
        const ref = props.stateMachines?.[machine];
        if (!ref) throw new Error(`The upload service starts executions of ${machine}, which was not passed in`);
        const parameter = (suffix: string, value: string) => {
          const name = `${pascal(machine)}StateMachine${suffix}`;
          this.setParameter(name, value);
          return new cdk.CfnParameter(this, name, { type: "String" }).valueAsString;
        };
        return [machine, { arn: parameter("Arn", ref.arn), name: parameter("Name", ref.name) }];
      }),
    );
    const taskRole = new iam.Role(this, "TaskRole", {
      assumedBy: new iam.ServicePrincipal("ecs-tasks.amazonaws.com"),
      description:
        "The upload service: resolve API keys, stream files and documents into the bucket's workspaces/ prefix, write their records, queue documents; hold realtime transcription sockets (Transcribe streaming, usage records)",
      inlinePolicies: { uploads: new iam.PolicyDocument({ statements: grantStatements(grants, data, machines) }) },
    });
    if (grants.speech) {
      cdk.Validations.of(taskRole).acknowledge({
        id: "AwsSolutions-IAM5[Resource::*]",
        reason: `The realtime socket (${REALTIME_PATH}) calls transcribe:StartStreamTranscription, which has no resource to scope it to (IAM's service authorization reference lists none); it is the only action granted on *.`,
      });
    }
    // The realtime socket calls models as a provider-calling route function does (infra/constructs/route-function.ts):
    // the same providers' settings. Its upstream keys are ECS secrets, not environment values, so the task
    // definition never holds a key (the execution role reads them when a task starts).
    const providers = callsProviders(grants) ? (props.inference ?? inferenceSettings(this)) : undefined;
    const upstreamKeys = Object.fromEntries(
      Object.entries(providers?.keySecrets ?? {}).map(([env, name]) => [env, ecs.Secret.fromSecretsManager(secretsmanager.Secret.fromSecretNameV2(this, `UpstreamKey${env}`, name))]),
    );
    for (const machine of Object.keys(machines) as MachineName[]) {
      cdk.Validations.of(taskRole).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:<${pascal(machine)}StateMachineName>:*]`,
        reason: `The service stops and describes the executions of the ${machine} state machine it starts, named after the documents (unknown in advance); only that machine's executions.`,
      });
    }
    this.taskDefinition = new ecs.FargateTaskDefinition(this, "Task", {
      cpu: uploadServiceSize.cpu,
      memoryLimitMiB: uploadServiceSize.memoryMiB,
      runtimePlatform: { cpuArchitecture: ecs.CpuArchitecture.ARM64, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
      taskRole,
    });
    this.taskDefinition.addContainer("Service", {
      image: ecs.ContainerImage.fromAsset(join(DIST, UPLOAD_SERVICE_DIR), { platform: Platform.LINUX_ARM64 }),
      logging: ecs.LogDrivers.awsLogs({ logGroup, streamPrefix: "upload" }),
      portMappings: [{ containerPort: UPLOAD_SERVICE_PORT }],
      readonlyRootFilesystem: true,
      // Fargate's longest: uploads (and realtime sessions) under way when a task is stopped (deploys, scale-in) get two minutes to finish.
      stopTimeout: cdk.Duration.seconds(120),
      environment: {
        ...dataEnvironment(data),
        ...grantEnvironment(grants, data),
        ...providers?.env,
        ...Object.fromEntries((Object.keys(machines) as MachineName[]).map((machine) => [deployedMachines[machine].arnEnv, machines[machine]!.arn])),
        POWERTOOLS_LOG_LEVEL: props.logLevel,
        PORT: String(UPLOAD_SERVICE_PORT),
        AWS_REGION: cdk.Aws.REGION,
        ...(props.cors ? { [CORS_ORIGINS_ENV]: props.cors === "*" ? "*" : props.cors.join(",") } : {}),
      },
      ...(Object.keys(upstreamKeys).length ? { secrets: upstreamKeys } : {}),
      healthCheck: {
        command: ["CMD-SHELL", `wget -q -O /dev/null http://127.0.0.1:${UPLOAD_SERVICE_PORT}/health || exit 1`],
        interval: cdk.Duration.seconds(30),
        timeout: cdk.Duration.seconds(5),
        retries: 3,
        startPeriod: cdk.Duration.seconds(10),
      },
    });

    const cluster = new ecs.Cluster(this, "Cluster", { vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
    const taskSecurityGroup = new ec2.SecurityGroup(this, "TaskSecurityGroup", { vpc, description: "Upload service tasks: the balancer only" });
    this.service = new ecs.FargateService(this, "Service", {
      cluster,
      taskDefinition: this.taskDefinition,
      desiredCount: uploadServiceSize.desiredCount,
      assignPublicIp: true,
      vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC },
      securityGroups: [taskSecurityGroup],
      circuitBreaker: { enable: true, rollback: true },
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
    });
    this.service
      .autoScaleTaskCount({ minCapacity: uploadServiceSize.desiredCount, maxCapacity: uploadServiceSize.maxCount })
      .scaleOnCpuUtilization("Cpu", { targetUtilizationPercent: 60 });

    // Internal (no public address at all) and admitting only CloudFront's origin-facing addresses.
    const balancerSecurityGroup = new ec2.SecurityGroup(this, "BalancerSecurityGroup", { vpc, description: "Upload balancer: CloudFront only", allowAllOutbound: false });
    const lookupLogs = new logs.LogGroup(this, "PrefixListLookupLogs", { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: cdk.RemovalPolicy.DESTROY });
    const lookupRole = new iam.Role(this, "PrefixListLookupRole", {
      assumedBy: new iam.ServicePrincipal("lambda.amazonaws.com"),
      inlinePolicies: {
        logs: new iam.PolicyDocument({ statements: [new iam.PolicyStatement({ actions: ["logs:CreateLogStream", "logs:PutLogEvents"], resources: [lookupLogs.logGroupArn] })] }),
      },
    });
    this.prefixListLookup = new cr.AwsCustomResource(this, "CloudFrontPrefixList", {
      onUpdate: {
        service: "EC2",
        action: "describeManagedPrefixLists",
        parameters: { Filters: [{ Name: "prefix-list-name", Values: ["com.amazonaws.global.cloudfront.origin-facing"] }] },
        physicalResourceId: cr.PhysicalResourceId.of("com.amazonaws.global.cloudfront.origin-facing"),
        outputPaths: ["PrefixLists.0.PrefixListId"],
      },
      policy: cr.AwsCustomResourcePolicy.fromSdkCalls({ resources: cr.AwsCustomResourcePolicy.ANY_RESOURCE }),
      installLatestAwsSdk: false,
      // Its own role and log group: no managed policy, logging only to this group.
      role: lookupRole,
      logGroup: lookupLogs,
    });
    balancerSecurityGroup.addIngressRule(
      ec2.Peer.prefixList(this.prefixListLookup.getResponseField("PrefixLists.0.PrefixListId")),
      ec2.Port.tcp(80),
      "CloudFront origin-facing addresses (the VPC origin)",
    );
    this.balancer = new elbv2.ApplicationLoadBalancer(this, "Balancer", {
      vpc,
      internetFacing: false,
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      securityGroup: balancerSecurityGroup,
      dropInvalidHeaderFields: true,
      // Also bounds a realtime socket's silence: the service pings each socket every 30 s, so an open one never idles
      // this long (nor CloudFront's 10 minutes for WebSockets).
      idleTimeout: cdk.Duration.seconds(120),
    });
    const listener = this.balancer.addListener("Http", {
      port: 80,
      protocol: elbv2.ApplicationProtocol.HTTP,
      open: false,
      defaultAction: elbv2.ListenerAction.fixedResponse(404, {
        contentType: "application/json",
        messageBody: JSON.stringify({ object: "error", message: "No such route", type: "not_found_error", param: null, code: "route_not_found" }),
      }),
    });
    this.targets = listener.addTargets("Uploads", {
      priority: 10,
      conditions: [elbv2.ListenerCondition.httpRequestMethods(["POST"]), elbv2.ListenerCondition.pathPatterns(UPLOAD_ROUTE_KEYS.map(pathPatternOf))],
      port: UPLOAD_SERVICE_PORT,
      protocol: elbv2.ApplicationProtocol.HTTP,
      targets: [this.service],
      deregistrationDelay: cdk.Duration.seconds(120),
      healthCheck: { path: "/health", healthyHttpCodes: "200", interval: cdk.Duration.seconds(15) },
    });
    // The realtime socket's upgrade is a GET (ALBs carry WebSockets as they are once upgraded), to the same tasks.
    listener.addAction("Realtime", {
      priority: 20,
      conditions: [elbv2.ListenerCondition.httpRequestMethods(["GET"]), elbv2.ListenerCondition.pathPatterns([REALTIME_PATH])],
      action: elbv2.ListenerAction.forward([this.targets]),
    });

    this.router = new cloudfront.Function(this, "UploadRouter", {
      code: cloudfront.FunctionCode.fromInline(UPLOAD_ROUTER_CODE),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      comment: "POST of the upload routes to the upload service, other methods of their paths to API Gateway",
    });
    const apiOrigin = new origins.RestApiOrigin(props.api, { originId: API_ORIGIN_ID, readTimeout: cdk.Duration.seconds(60) });
    // The response timeout also bounds a pause in a slow upload; 120 s is the most the default quota allows.
    const uploadOrigin = origins.VpcOrigin.withApplicationLoadBalancer(this.balancer, {
      originId: UPLOAD_ORIGIN_ID,
      protocolPolicy: cloudfront.OriginProtocolPolicy.HTTP_ONLY,
      httpPort: 80,
      readTimeout: cdk.Duration.seconds(120),
    });
    // Nothing is cached: every request reaches its origin with all the viewer's headers but Host (API Gateway
    // answers only to its own host name), the key included.
    const uncached = {
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      compress: false,
    };
    this.consoleAssets = new ConsoleAssets(this, "ConsoleAssets");
    this.distribution = new cloudfront.Distribution(this, "Distribution", {
      comment: `${id}: the API at the root; uploads and the realtime transcription socket to the streaming upload service`,
      defaultBehavior: { origin: apiOrigin, ...uncached },
      // One behavior per upload route. CloudFront's `*` also spans slashes: a POST to /v1/libraries/a/b/documents reaches
      // the service too, which answers it as API Gateway answers a path it does not have.
      additionalBehaviors: {
        ...Object.fromEntries(
          UPLOAD_ROUTE_KEYS.map((key) => [
            pathPatternOf(key),
            { origin: uploadOrigin, ...uncached, functionAssociations: [{ function: this.router, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }] },
          ]),
        ),
        // The realtime socket: its path is the service's alone, so no router (which would send the upgrade, a GET, to
        // API Gateway). Forwarding every viewer header but Host carries the upgrade's Sec-WebSocket-Key, -Version and
        // -Protocol (a browser's key); CloudFront closes a WebSocket idle for 10 minutes.
        [REALTIME_PATH]: { origin: uploadOrigin, ...uncached },
        // The web console's hashed assets from S3, cached (its HTML entry, `/console`, is the API's: the default behavior).
        [CONSOLE_ASSETS_PATH]: this.consoleAssets.behavior(),
      },
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_ALL,
    });
  }
}

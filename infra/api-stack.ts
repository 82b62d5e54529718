import * as cdk from "aws-cdk-lib";
import * as apigw from "aws-cdk-lib/aws-apigateway";
import * as logs from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import { stateMachines, type StateMachineRow } from "../functions/engine.js";
import { areaOf, authorizer, byResource, type RouteRow } from "../functions/routes.js";
import { oauthEnvironment, type OAuthSettings } from "./oauth-settings.js";
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS, CORS_MAX_AGE_SECONDS, type CorsSetting } from "../shared/http/cors.js";
import { BINARY_MEDIA_TYPES, gatewayAnswers } from "../shared/http/gateway.js";
import { AreaStack } from "./area-stack.js";
import { RouteFunction } from "./constructs/route-function.js";
import type { DataRefs } from "./data-refs.js";
import { EngineStack } from "./engine-stack.js";
import { WorkflowEngineStack } from "./workflow-engine-stack.js";
import { PeriodicStack } from "./periodic-stack.js";
import type { StateMachineRefs } from "./grants.js";
import type { InferenceSettings } from "./inference.js";
import { pascal } from "./names.js";
import { corePaths, ResourceTree } from "./resource-tree.js";

export interface ApiStackProps extends cdk.StackProps {
  data: DataRefs;
  routes: readonly RouteRow[];
  stageName: string;
  logLevel: string;
  /** Seconds API Gateway reuses an authorizer answer per Authorization header. */
  authorizerCacheSeconds: number;
  inference: InferenceSettings;
  /** Browser clients' origins (`-c corsOrigins`): `*` or a list; no CORS when unset (decision 0027). */
  cors?: CorsSetting;
  /** The connectors' OAuth settings (`-c publicUrl`, `-c oauthReturnUrls`: infra/oauth-settings.ts). */
  oauth?: OAuthSettings;
}

const METHOD_ORDER = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/**
 * Each resource with routes, the methods it takes, and the area that holds its 405 mock (that of its first row).
 * Rows whose paths differ only in variable names share a resource (resource-tree.ts), hence one mock.
 */
function pathsOf(routes: readonly RouteRow[], resourceOf: (path: string) => string): { path: string; allowed: string[]; area: string }[] {
  const byPath = new Map<string, { path: string; allowed: string[]; area: string }>();
  for (const row of byResource(routes, resourceOf).values()) {
    const path = resourceOf(row.path);
    const entry = byPath.get(path) ?? { path, allowed: [], area: areaOf(row) };
    entry.allowed.push(row.method);
    byPath.set(path, entry);
  }
  return [...byPath.values()].map((p) => ({ ...p, allowed: p.allowed.toSorted((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b)) }));
}

/**
 * CORS headers of the answers API Gateway makes itself (401, 404, 413, 5xx): a gateway response cannot test
 * the origin against a list, so with a list it echoes the request's origin (these bodies carry no data).
 */
function gatewayCors(cors: CorsSetting | undefined): Record<string, string> {
  if (!cors) return {};
  return {
    "Access-Control-Allow-Origin": cors === "*" ? "'*'" : "method.request.header.Origin",
    "Access-Control-Expose-Headers": `'${CORS_EXPOSE_HEADERS.join(", ")}'`,
    ...(cors === "*" ? {} : { Vary: "'Origin'" }),
  };
}

/** A gateway response body is a VTL template: `$` and `#` would be evaluated, not sent. */
function literalTemplate(body: unknown): string {
  const json = JSON.stringify(body);
  if (/[$#]/.test(json)) throw new Error(`Gateway response body needs VTL escaping: ${json}`);
  return json;
}

const F = apigw.AccessLogField;
/** One JSON line per request; the principal and the error fields are what an operator looks for first. */
const ACCESS_LOG_FORMAT = apigw.AccessLogFormat.custom(
  JSON.stringify({
    requestId: F.contextRequestId(),
    ip: F.contextIdentitySourceIp(),
    requestTime: F.contextRequestTime(),
    method: F.contextHttpMethod(),
    resourcePath: F.contextResourcePath(),
    status: F.contextStatus(),
    responseLength: F.contextResponseLength(),
    responseLatency: F.contextResponseLatency(),
    principal: F.contextAuthorizerPrincipalId(),
    errorType: F.contextErrorResponseType(),
    error: F.contextErrorMessage(),
    integrationError: F.contextIntegrationErrorMessage(),
  }),
);

/**
 * The REST API: its stage, the authorizer and gateway responses live here; the routes live in one nested
 * stack per area (areaOf), built from the route table.
 */
export class ApiStack extends cdk.Stack {
  readonly api: apigw.RestApi;
  readonly authorizerFunction: RouteFunction;
  readonly areas: AreaStack[];
  readonly engines: EngineStack[];
  readonly workflowEngine: WorkflowEngineStack;
  /** The periodic tasks of functions/engine.ts (evaluation pipeline sweeps). */
  readonly periodic: PeriodicStack;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    this.authorizerFunction = new RouteFunction(this, "AuthorizerFunction", {
      handler: authorizer.handler,
      grants: authorizer.grants,
      data: props.data,
      description: "REQUEST authorizer: API key to caller",
      logLevel: props.logLevel,
    });
    const requestAuthorizer = new apigw.RequestAuthorizer(this, "Authorizer", {
      handler: this.authorizerFunction.fn,
      identitySources: [apigw.IdentitySource.header("Authorization")],
      resultsCacheTtl: cdk.Duration.seconds(props.authorizerCacheSeconds),
    });
    // Rows that also take the key as `x-api-key` (the SDK's beta.users): API Gateway demands every identity
    // source, so this one names none, which it allows only uncached; the same function reads either header.
    const keyHeaderAuthorizer = props.routes.some((row) => row.keyHeader)
      ? new apigw.RequestAuthorizer(this, "KeyHeaderAuthorizer", { handler: this.authorizerFunction.fn, identitySources: [], resultsCacheTtl: cdk.Duration.seconds(0) })
      : undefined;

    const accessLogs = new logs.LogGroup(this, "AccessLogs", { retention: logs.RetentionDays.THREE_MONTHS });
    this.api = new apigw.RestApi(this, "Api", {
      restApiName: id,
      description: "Mistral-compatible platform API",
      endpointTypes: [apigw.EndpointType.REGIONAL],
      binaryMediaTypes: BINARY_MEDIA_TYPES,
      // The account-wide CloudWatch role is account state, not this app's to own.
      cloudWatchRole: false,
      defaultMethodOptions: { authorizer: requestAuthorizer, authorizationType: apigw.AuthorizationType.CUSTOM },
      // Preflights (OPTIONS, a mock on every resource) when browser clients are allowed; the functions add the headers to answers.
      ...(props.cors
        ? {
            defaultCorsPreflightOptions: {
              allowOrigins: props.cors === "*" ? apigw.Cors.ALL_ORIGINS : props.cors,
              allowHeaders: CORS_ALLOW_HEADERS,
              exposeHeaders: CORS_EXPOSE_HEADERS,
              maxAge: cdk.Duration.seconds(CORS_MAX_AGE_SECONDS),
              statusCode: 204,
            },
          }
        : {}),
      deployOptions: {
        stageName: props.stageName,
        accessLogDestination: new apigw.LogGroupLogDestination(accessLogs),
        accessLogFormat: ACCESS_LOG_FORMAT,
      },
    });

    // Answers API Gateway gives on its own, shaped like the handlers' errors (the local server sends the same).
    for (const [type, answer] of Object.entries(gatewayAnswers)) {
      this.api.addGatewayResponse(pascal(type), {
        type: apigw.ResponseType.of(type),
        statusCode: String(answer.status),
        responseHeaders: { "x-request-id": "context.requestId", ...gatewayCors(props.cors) },
        templates: { "application/json": literalTemplate(answer.body) },
      });
    }

    // One variable name per level (API Gateway allows one variable child per resource): decision 0032.
    const tree = new ResourceTree(this.api.root, props.routes);
    for (const path of corePaths(props.routes)) tree.at(this, path);
    // One nested stack per state machine of the engine table; the routes that start executions get its ARN.
    this.engines = Object.entries(stateMachines as Record<string, StateMachineRow>).map(
      ([machine, row]) => new EngineStack(this, `${pascal(machine)}Engine`, { machine, row, data: props.data, logLevel: props.logLevel, inference: props.inference }),
    );
    const machines: StateMachineRefs = Object.fromEntries(this.engines.map((e) => [e.machine, { arn: e.stateMachine.stateMachineArn, name: e.stateMachine.stateMachineName }]));
    // Workflow machines are named <prefix><workflow uuid>, at most 80 characters.
    const machinePrefix = `Platform-${props.stageName}-wf-`;
    if (machinePrefix.length > 80 - 36) throw new Error(`-c stage=${props.stageName} is too long for workflow state machine names (at most ${80 - 36 - 13} characters)`);
    this.workflowEngine = new WorkflowEngineStack(this, "WorkflowEngine", {
      data: props.data,
      logLevel: props.logLevel,
      inference: props.inference,
      machinePrefix,
      timerGroup: `Platform-${props.stageName}-timers`,
      scheduleGroup: `Platform-${props.stageName}-schedules`,
    });
    this.periodic = new PeriodicStack(this, "Periodic", { data: props.data, logLevel: props.logLevel, inference: props.inference });
    const paths = pathsOf(props.routes, tree.resourceOf);
    const byArea = new Map<string, RouteRow[]>();
    for (const row of props.routes) byArea.set(areaOf(row), [...(byArea.get(areaOf(row)) ?? []), row]);
    // One nested stack per area keeps each template far below CloudFormation's 500 resources.
    this.areas = [...byArea].map(
      ([area, rows]) =>
        new AreaStack(this, pascal(area), { area, rows, api: this.api, tree, data: props.data, logLevel: props.logLevel, inference: props.inference, stateMachines: machines, workflows: this.workflowEngine.refs, keyHeaderAuthorizer, notAllowed: paths.filter((p) => p.area === area), cors: props.cors, ...(area === "connectors" ? { environment: oauthEnvironment(props.oauth ?? { returnUrls: [] }, this.api, props.stageName) } : {}) }),
    );

    // RestApi's own output has a hashed name (ApiEndpoint4F160690); scripts and docs use ApiUrl instead.
    this.api.node.tryRemoveChild("Endpoint");
    new cdk.CfnOutput(this, "ApiUrl", { value: this.api.url, description: "Base URL: the SDKs' server_url" });
  }
}

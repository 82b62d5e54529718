import * as cdk from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { routes as routeTable, type RouteRow } from "../functions/routes.js";
import { ApiStack } from "./api-stack.js";
import { DataStack } from "./data-stack.js";
import { inferenceSettings } from "./inference.js";
import { oauthSettings } from "./oauth-settings.js";
import { acknowledgeFindings, acknowledgeUploadFindings } from "./nag.js";
import { addOperations } from "./operations.js";
import { operationsSettings } from "./operations-settings.js";
import { UPLOAD_DISTRIBUTION_CONTEXT, UploadStack } from "./upload-service.js";
import { corsOrigins } from "../shared/http/cors.js";
import { AUTHORIZER_CACHE_SECONDS } from "../shared/http/gateway.js";

export interface BuildOptions {
  /** Defaults to THE route table; tests pass synthetic rows. */
  routes?: RouteRow[];
  /** CDK context, as `-c key=value` would set it. */
  context?: Record<string, unknown>;
  outdir?: string;
}

/**
 * The whole app. Context: `stage` (default "prod") names the stacks (Platform-<stage>-Data/-Api) and the
 * API stage, so several deployments can share an account; `logLevel` (default INFO) is the handlers'
 * POWERTOOLS_LOG_LEVEL; `authorizerCacheSeconds` (default 60) how long a key's answer is reused;
 * `modelCatalog` and `upstreamKeySecrets` configure inference (infra/inference.ts); `corsOrigins` (`*` or a
 * comma-separated list of origins; none by default) lets browser clients call the API (decision 0027);
 * `uploadDistribution` (default true) adds the CloudFront distribution whose URL serves the whole API and
 * takes uploads to 512 MB through the streaming upload service (decision 0033); `false` leaves it out.
 * `alarmEmail`, `logRetentionDays` and `tracing` are the operator's (infra/operations-settings.ts, docs/operations.md).
 * `publicUrl` (the base URL browsers reach the API at; the API's own URL by default) and `oauthReturnUrls` (the
 * `app_return_url`s the connectors' OAuth flow may send users back to; none by default): infra/oauth-settings.ts.
 * `telemetryRetentionDays` (default 30) and `telemetryScanLimitBytes` (default 10 GiB) bound the telemetry store (infra/telemetry.ts).
 * Handlers must be bundled first (infra/build.ts buildHandlers).
 */
export function buildApp(options: BuildOptions = {}) {
  const app = new cdk.App({ context: options.context, outdir: options.outdir });
  const stage = String(app.node.tryGetContext("stage") ?? "prod");
  // It ends up in stack names and the API stage name; both refuse anything else.
  if (!/^[A-Za-z0-9-]{1,64}$/.test(stage)) throw new Error(`-c stage=${stage}: use letters, digits and hyphens`);
  const logLevel = String(app.node.tryGetContext("logLevel") ?? "INFO");
  const authorizerCacheSeconds = Number(app.node.tryGetContext("authorizerCacheSeconds") ?? AUTHORIZER_CACHE_SECONDS);
  if (!Number.isInteger(authorizerCacheSeconds) || authorizerCacheSeconds < 0 || authorizerCacheSeconds > 3600) {
    throw new Error(`-c authorizerCacheSeconds=${authorizerCacheSeconds}: use a whole number of seconds from 0 to 3600`);
  }
  const corsContext = app.node.tryGetContext("corsOrigins");
  const cors = corsOrigins(corsContext === undefined ? "" : String(corsContext));
  const prefix = `Platform-${stage}`;
  const operations = operationsSettings(app);

  const numberContext = (name: string) => {
    const value = app.node.tryGetContext(name);
    return value === undefined ? undefined : Number(value);
  };
  const data = new DataStack(app, `${prefix}-Data`, {
    description: "Platform API: tables, the files bucket and the telemetry store (retained on delete)",
    telemetryRetentionDays: numberContext("telemetryRetentionDays"),
    telemetryScanLimitBytes: numberContext("telemetryScanLimitBytes"),
  });
  const api = new ApiStack(app, `${prefix}-Api`, {
    description: "Platform API: REST API, authorizer and one nested stack per API area",
    data,
    routes: options.routes ?? routeTable,
    stageName: stage,
    logLevel,
    authorizerCacheSeconds,
    inference: inferenceSettings(app),
    cors,
    oauth: oauthSettings(app),
  });

  const uploadContext = app.node.tryGetContext(UPLOAD_DISTRIBUTION_CONTEXT);
  if (uploadContext !== undefined && !["true", "false", true, false].includes(uploadContext)) {
    throw new Error(`-c ${UPLOAD_DISTRIBUTION_CONTEXT}=${uploadContext}: use true or false`);
  }
  const uploads =
    String(uploadContext ?? true) === "true"
      ? new UploadStack(app, `${prefix}-Uploads`, {
          description: "Platform API: CloudFront in front of the API, POST /v1/files and library document uploads streamed and the realtime transcription socket served by a streaming service on Fargate",
          data,
          api: api.api,
          logLevel,
          cors,
        })
      : undefined;

  // Alarms, dashboards, the alarm topic, log retention and tracing, added to the stacks built above.
  const monitoring = addOperations(app, { data, api, prefix, stage, uploads }, operations);

  cdk.Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  acknowledgeFindings({ data, api, tracing: operations.tracing });
  if (uploads) acknowledgeUploadFindings(uploads);
  return { app, data, api, uploads, monitoring };
}

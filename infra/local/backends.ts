import { join } from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import { workflowEngine } from "../../functions/engine.js";
import { FILES_BUCKET_ENV, TELEMETRY_DIR_ENV, VECTORS_DIR_ENV } from "../../shared/config.js";
import { tableEnvVar, tables } from "../../shared/store/tables.js";
import { createTables, startDynamo } from "./dynamodb.js";
import { LOCAL_FILES_BUCKET, localTableName } from "./env.js";
import { outboundEnv } from "./outbound-env.js";
import { startS3 } from "./s3.js";
import { startScheduler, type LocalScheduler } from "./scheduler.js";
import { LOCAL_ACCOUNT, localFunctionArn, startStepFunctions, type LocalStepFunctions } from "./stepfunctions.js";

/** The workflow engine's settings locally (the Workflow engine stack's, in the cloud). */
export const LOCAL_WORKFLOWS = {
  machinePrefix: "local-wf-",
  roleArn: `arn:aws:iam::${LOCAL_ACCOUNT}:role/local-workflows`,
  dispatcherArn: localFunctionArn("workflow-dispatch"),
};

export interface Backends {
  /** The environment a handler needs to reach these backends, as CDK gives it to a function. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Starts DynamoDB Local, s3rver, the local Step Functions and the local Scheduler, and creates the tables
 * and bucket from the same definitions CDK deploys. The state machines' tasks and the timers' handler run
 * in this process with this environment; timers are kept under the data directory when `persist` is set.
 */
export async function startBackends(options: { dataDir: string; persist: boolean }): Promise<Backends> {
  const [dynamo, s3] = await Promise.all([
    startDynamo({ dataDir: options.persist ? join(options.dataDir, "dynamodb") : undefined }),
    startS3({ dataDir: join(options.dataDir, "s3"), buckets: [LOCAL_FILES_BUCKET] }),
  ]);
  let stepFunctions: LocalStepFunctions | undefined;
  let scheduler: LocalScheduler | undefined;
  try {
    await createTables(dynamo.endpoint, tables, (t) => localTableName(t.name));
    // The Distributed Map's ItemReader reads its manifest from this S3, as Step Functions does from the bucket.
    const s3Client = new S3Client({
      endpoint: s3.endpoint,
      region: "us-east-1",
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
      forcePathStyle: true,
      responseChecksumValidation: "WHEN_REQUIRED",
    });
    // Machines created at run time (workflows) are kept with the data, as their ARNs are in the tables.
    stepFunctions = await startStepFunctions({
      s3: s3Client,
      stateDir: options.persist ? options.dataDir : undefined,
      // Every Task of a workflow program invokes the dispatcher; run ends go to the status handler, as EventBridge delivers them in the cloud.
      functions: { [LOCAL_WORKFLOWS.dispatcherArn]: workflowEngine.dispatch.handler },
      onStatusChangeHandler: workflowEngine.status.handler,
    });
    // Timers armed before a restart of `npm start` fire after it; the tests' timers live in memory.
    scheduler = await startScheduler({ stateFile: options.persist ? join(options.dataDir, "scheduler", "schedules.json") : undefined });
  } catch (error) {
    await Promise.all([scheduler?.stop(), stepFunctions?.stop(), dynamo.stop(), s3.stop()]);
    throw error;
  }
  const env: Record<string, string> = {
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    // s3rver checks that the access key id is S3RVER; DynamoDB Local accepts any.
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    AWS_REGION: "us-east-1",
    [FILES_BUCKET_ENV]: LOCAL_FILES_BUCKET,
    ...Object.fromEntries(tables.map((t) => [tableEnvVar(t.name), localTableName(t.name)])),
    ...stepFunctions.env,
    WORKFLOW_MACHINE_PREFIX: LOCAL_WORKFLOWS.machinePrefix,
    WORKFLOW_ROLE_ARN: LOCAL_WORKFLOWS.roleArn,
    WORKFLOW_DISPATCHER_ARN: LOCAL_WORKFLOWS.dispatcherArn,
    ...scheduler.env,
    // Connector secrets are sealed with a key kept in the data directory.
    CONNECTOR_SECRETS_KEY_FILE: join(options.dataDir, "connector-secrets.key"),
    // Outbound calls (connectors, file_url) may reach loopback on this machine unless the operator said
    // otherwise, never these backends (shared/net/stack-targets.ts), never anything inward in the cloud.
    ...outboundEnv(process.env, [dynamo.endpoint, s3.endpoint, stepFunctions.endpoint, scheduler.endpoint]),
    // The analytical store's files (shared/blobs/telemetry.ts writes them, DuckDB reads them: docs/observability/engine.md).
    [TELEMETRY_DIR_ENV]: join(options.dataDir, "telemetry"),
    // Document libraries' vectors: LanceDB, one directory per data directory (docs/vector-search.md).
    [VECTORS_DIR_ENV]: join(options.dataDir, "vectors"),
  };
  return { env, stop: async () => void (await Promise.all([scheduler.stop(), stepFunctions.stop(), dynamo.stop(), s3.stop()])) };
}

/**
 * The analytical store of observability (docs/observability/engine.md): a bucket of JSON-lines objects
 * under `telemetry/<kind>/workspace_id=<id>/dt=<day>/`, the Glue tables Athena reads them through (partition
 * projection: the workspace injected from the query's own predicate, the day a date range, so there is
 * no crawler and no partition to register), and the Athena workgroup the query functions run in, with its
 * result location and a per-query scan cutoff. Records expire after the retention period.
 */
import * as cdk from "aws-cdk-lib";
import * as athena from "aws-cdk-lib/aws-athena";
import * as glue from "aws-cdk-lib/aws-glue";
import * as iam from "aws-cdk-lib/aws-iam";
import * as s3 from "aws-cdk-lib/aws-s3";
import { Construct } from "constructs";
import { fieldCatalogues, type Storage } from "../shared/domain/observability/fields.js";
import type { WrittenKind } from "../shared/domain/observability/records.js";
import { TELEMETRY_BUCKET_ENV, TELEMETRY_KEY_PREFIX } from "../shared/blobs/telemetry.js";
import { DEFAULT_TELEMETRY_RETENTION_DAYS, TELEMETRY_RETENTION_ENV } from "../shared/config.js";
import { ATHENA_WORKGROUP_ENV, GLUE_DATABASE_ENV } from "../shared/store/observability/analytics.js";

/** Athena writes its result files here, in the same bucket; they are kept a day. */
export const ATHENA_RESULTS_PREFIX = "athena-results/";
export const DEFAULT_SCAN_LIMIT_BYTES = 10 * 1024 ** 3;
const RESULTS_DAYS = 1;

/** What the query and write grants need of the store (names, not constructs: they cross into nested stacks as parameters). */
export interface TelemetryRefs {
  bucket: s3.IBucket;
  database: string;
  workGroup: string;
  retentionDays: number;
}

export interface TelemetryStoreProps {
  /** Days before records expire (context `telemetryRetentionDays`). */
  retentionDays?: number;
  /** Bytes one query may scan before Athena cancels it (context `telemetryScanLimitBytes`). */
  scanLimitBytes?: number;
  /** Names the Glue database and the workgroup (lower case, unique per deployment). */
  name: string;
}

const GLUE_TYPES: Record<Storage, string> = { string: "string", int: "bigint", float: "double", strings: "array<string>", map: "map<string,string>" };
const WRITTEN: WrittenKind[] = ["spans", "logs", "span_evaluations"];

export class TelemetryStore extends Construct implements TelemetryRefs {
  readonly bucket: s3.Bucket;
  readonly database: string;
  readonly workGroup: string;
  readonly retentionDays: number;
  readonly tables: glue.CfnTable[];
  readonly workGroupResource: athena.CfnWorkGroup;

  constructor(scope: Construct, id: string, props: TelemetryStoreProps) {
    super(scope, id);
    this.retentionDays = props.retentionDays ?? DEFAULT_TELEMETRY_RETENTION_DAYS;
    if (!Number.isInteger(this.retentionDays) || this.retentionDays < 1) throw new Error(`-c telemetryRetentionDays=${this.retentionDays}: use a whole number of days, at least 1`);
    const scanLimit = props.scanLimitBytes ?? DEFAULT_SCAN_LIMIT_BYTES;
    // Athena's minimum cutoff is 10 MB.
    if (!Number.isInteger(scanLimit) || scanLimit < 10_000_000) throw new Error(`-c telemetryScanLimitBytes=${scanLimit}: use a whole number of bytes, at least 10000000`);

    this.bucket = new s3.Bucket(this, "Bucket", {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: cdk.RemovalPolicy.RETAIN,
      lifecycleRules: [
        { id: "telemetry-retention", prefix: TELEMETRY_KEY_PREFIX, expiration: cdk.Duration.days(this.retentionDays), abortIncompleteMultipartUploadAfter: cdk.Duration.days(1) },
        { id: "athena-results", prefix: ATHENA_RESULTS_PREFIX, expiration: cdk.Duration.days(RESULTS_DAYS), abortIncompleteMultipartUploadAfter: cdk.Duration.days(1) },
      ],
    });

    this.database = props.name.replace(/[^a-z0-9_]/g, "_");
    const account = cdk.Stack.of(this).account;
    const database = new glue.CfnDatabase(this, "Database", {
      catalogId: account,
      databaseInput: { name: this.database, description: "Platform API telemetry: spans, logs and span evaluations (JSON lines, partitioned by workspace and day)" },
    });

    this.tables = WRITTEN.map((kind) => {
      const table = new glue.CfnTable(this, `${kind}Table`, {
        catalogId: account,
        databaseName: this.database,
        tableInput: {
          name: kind,
          tableType: "EXTERNAL_TABLE",
          partitionKeys: [
            { name: "workspace_id", type: "string" },
            { name: "dt", type: "string" },
          ],
          parameters: {
            classification: "json",
            "projection.enabled": "true",
            "projection.workspace_id.type": "injected",
            "projection.dt.type": "date",
            "projection.dt.format": "yyyy-MM-dd",
            "projection.dt.range": "2025-01-01,NOW",
            "projection.dt.interval": "1",
            "projection.dt.interval.unit": "DAYS",
            "storage.location.template": `s3://${this.bucket.bucketName}/${TELEMETRY_KEY_PREFIX}${kind}/workspace_id=\${workspace_id}/dt=\${dt}/`,
          },
          storageDescriptor: {
            // workspace_id is the partition key: the JSON's own copy is not a column (Glue refuses a name twice).
            columns: fieldCatalogues[kind].filter((f) => f.name !== "workspace_id").map((f) => ({ name: f.name, type: GLUE_TYPES[f.storage] })),
            location: `s3://${this.bucket.bucketName}/${TELEMETRY_KEY_PREFIX}${kind}/`,
            inputFormat: "org.apache.hadoop.mapred.TextInputFormat",
            outputFormat: "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
            // A line still being written or cut short is skipped, not a failed query.
            serdeInfo: { serializationLibrary: "org.openx.data.jsonserde.JsonSerDe", parameters: { "ignore.malformed.json": "true" } },
          },
        },
      });
      table.node.addDependency(database);
      return table;
    });

    this.workGroup = props.name.replace(/[^a-zA-Z0-9._-]/g, "-");
    this.workGroupResource = new athena.CfnWorkGroup(this, "WorkGroup", {
      name: this.workGroup,
      description: "Platform API: the observability search and aggregation queries",
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        // Callers cannot override the result location, its encryption or the cutoff.
        enforceWorkGroupConfiguration: true,
        bytesScannedCutoffPerQuery: scanLimit,
        publishCloudWatchMetricsEnabled: true,
        engineVersion: { selectedEngineVersion: "Athena engine version 3" },
        resultConfiguration: {
          outputLocation: `s3://${this.bucket.bucketName}/${ATHENA_RESULTS_PREFIX}`,
          encryptionConfiguration: { encryptionOption: "SSE_S3" },
        },
      },
    });
  }
}

const arn = (service: string, resource: string) => `arn:${cdk.Aws.PARTITION}:${service}:${cdk.Aws.REGION}:${cdk.Aws.ACCOUNT_ID}:${resource}`;

/**
 * `write`: put objects under telemetry/ (shared/blobs/telemetry.ts). `query`: run queries in the one workgroup,
 * read the one Glue database's tables, read the telemetry objects and read/write the results prefix.
 */
export function telemetryStatements(access: "write" | "query" | "query-write", refs: TelemetryRefs): iam.PolicyStatement[] {
  const objects = refs.bucket.arnForObjects(`${TELEMETRY_KEY_PREFIX}*`);
  if (access === "write") return [new iam.PolicyStatement({ actions: ["s3:PutObject"], resources: [objects] })];
  // Searches, then appends what it found (an evaluation pipeline's run: decision 65).
  if (access === "query-write") return [...telemetryStatements("query", refs), ...telemetryStatements("write", refs)];
  const results = refs.bucket.arnForObjects(`${ATHENA_RESULTS_PREFIX}*`);
  return [
    new iam.PolicyStatement({
      actions: ["athena:StartQueryExecution", "athena:GetQueryExecution", "athena:GetQueryResults", "athena:StopQueryExecution"],
      resources: [arn("athena", `workgroup/${refs.workGroup}`)],
    }),
    new iam.PolicyStatement({
      actions: ["glue:GetDatabase", "glue:GetTable", "glue:GetTables", "glue:GetPartition", "glue:GetPartitions"],
      resources: [arn("glue", "catalog"), arn("glue", `database/${refs.database}`), arn("glue", `table/${refs.database}/*`)],
    }),
    new iam.PolicyStatement({ actions: ["s3:GetObject"], resources: [objects] }),
    new iam.PolicyStatement({ actions: ["s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"], resources: [results] }),
    new iam.PolicyStatement({
      actions: ["s3:ListBucket", "s3:GetBucketLocation"],
      resources: [refs.bucket.bucketArn],
    }),
  ];
}

/** The settings a function with the grant reads (shared/blobs/telemetry.ts, shared/store/observability/analytics.ts, shared/config.ts). */
export function telemetryEnvironment(access: "write" | "query" | "query-write", refs: TelemetryRefs): Record<string, string> {
  return {
    [TELEMETRY_RETENTION_ENV]: String(refs.retentionDays),
    ...(access !== "query" ? { [TELEMETRY_BUCKET_ENV]: refs.bucket.bucketName } : {}),
    ...(access !== "write" ? { [GLUE_DATABASE_ENV]: refs.database, [ATHENA_WORKGROUP_ENV]: refs.workGroup } : {}),
  };
}

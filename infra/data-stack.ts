import * as cdk from "aws-cdk-lib";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as kms from "aws-cdk-lib/aws-kms";
import * as s3 from "aws-cdk-lib/aws-s3";
import * as s3vectors from "aws-cdk-lib/aws-s3vectors";
import type { Construct } from "constructs";
import { VECTOR_BUCKET_ENV } from "../shared/config.js";
import { VOICE_SAMPLE_NONCURRENT_DAYS, VOICE_SAMPLE_TAG } from "../shared/domain/voices.js";
import { tableEnvVar, tables, type KeyAttribute, type TableDefinition, type TableName } from "../shared/store/tables.js";
import { vectorBucketName, type DataRefs, type VectorBucketRefs } from "./data-refs.js";
import { FILES_BUCKET_CORS } from "./files-cors.js";
import { pascal } from "./names.js";
import { TelemetryStore } from "./telemetry.js";

export interface DataStackProps extends cdk.StackProps {
  /** Days telemetry is kept (S3 lifecycle here, the telemetry table's TTL through TELEMETRY_RETENTION_DAYS). */
  telemetryRetentionDays?: number;
  /** Bytes one Athena query may scan. */
  telemetryScanLimitBytes?: number;
}

const attribute = (key: KeyAttribute): dynamodb.Attribute => ({ name: key.name, type: dynamodb.AttributeType[key.type === "S" ? "STRING" : "NUMBER"] });

/**
 * Records and files: everything that outlives a deployment. Kept apart from the API so the API stacks
 * can be torn down and redeployed freely; tables, buckets and the vector bucket are retained even if this stack is deleted.
 */
export class DataStack extends cdk.Stack implements DataRefs {
  readonly tables: Record<TableName, dynamodb.Table>;
  readonly bucket: s3.Bucket;
  readonly secretsKey: kms.Key;
  readonly telemetry: TelemetryStore;
  readonly vectorBucket: VectorBucketRefs;
  /** The S3 Vectors bucket itself (the L1: aws-cdk-lib has no L2 for it). */
  readonly vectorBucketResource: s3vectors.CfnVectorBucket;

  constructor(scope: Construct, id: string, props?: DataStackProps) {
    super(scope, id, props);
    this.tables = Object.fromEntries(tables.map((def) => [def.name, this.table(def)])) as Record<TableName, dynamodb.Table>;

    this.bucket = new s3.Bucket(this, "FilesBucket", {
      encryption: s3.BucketEncryption.S3_MANAGED,
      versioned: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: cdk.RemovalPolicy.RETAIN,
      // Browser pages PUT parts to presigned upload URLs and follow download redirects; why any origin is acceptable
      // (presigned URLs carry their own authorization): infra/files-cors.ts.
      cors: [
        {
          allowedOrigins: FILES_BUCKET_CORS.allowedOrigins,
          allowedMethods: FILES_BUCKET_CORS.allowedMethods.map((method) => s3.HttpMethods[method]),
          allowedHeaders: FILES_BUCKET_CORS.allowedHeaders,
          exposedHeaders: FILES_BUCKET_CORS.exposedHeaders,
          maxAge: FILES_BUCKET_CORS.maxAgeSeconds,
        },
      ],
      lifecycleRules: [
        {
          // Large uploads the client never completed would otherwise be billed forever.
          abortIncompleteMultipartUploadAfter: cdk.Duration.days(1),
          // Versioning is there to undo mistakes, not to keep deleted files: 30 days, then gone.
          noncurrentVersionExpiration: cdk.Duration.days(30),
          expiredObjectDeleteMarker: true,
        },
        {
          // Voice samples (docs/audio.md) are someone's voice: a deleted one's old version goes after a day, not 30.
          id: "voice-samples",
          tagFilters: { [VOICE_SAMPLE_TAG.key]: VOICE_SAMPLE_TAG.value },
          noncurrentVersionExpiration: cdk.Duration.days(VOICE_SAMPLE_NONCURRENT_DAYS),
        },
      ],
    });
    new cdk.CfnOutput(this, "FilesBucketName", { value: this.bucket.bucketName, description: "BUCKET_FILES" });

    // Connector credentials and OAuth tokens are sealed with data keys this key wraps (decision 31);
    // retained like the tables, since sealed values in them cannot be opened without it.
    this.secretsKey = new kms.Key(this, "ConnectorSecretsKey", {
      description: "Platform API: wraps the data keys of connector credentials and OAuth tokens",
      enableKeyRotation: true,
      removalPolicy: cdk.RemovalPolicy.RETAIN,
    });

    this.telemetry = new TelemetryStore(this, "Telemetry", {
      name: `${id}-telemetry`.toLowerCase(),
      retentionDays: props?.telemetryRetentionDays,
      scanLimitBytes: props?.telemetryScanLimitBytes,
    });
    new cdk.CfnOutput(this, "TelemetryBucketName", { value: this.telemetry.bucket.bucketName, description: "BUCKET_TELEMETRY" });

    // The document libraries' vectors (docs/vector-search.md, decision 0069): one index per library, created by the
    // store on the library's first write, so CDK makes only the bucket. SSE-S3 like the files bucket: the data stack's
    // one KMS key wraps connector secrets under an encryption-context policy and is not meant for bulk data. No name:
    // CloudFormation makes a unique one, so a retained bucket never blocks a redeploy of the same stage.
    this.vectorBucketResource = new s3vectors.CfnVectorBucket(this, "VectorBucket", { encryptionConfiguration: { sseType: "AES256" } });
    this.vectorBucketResource.applyRemovalPolicy(cdk.RemovalPolicy.RETAIN);
    const vectorBucketArn = this.vectorBucketResource.attrVectorBucketArn;
    this.vectorBucket = { arn: vectorBucketArn, name: vectorBucketName(vectorBucketArn) };
    new cdk.CfnOutput(this, "VectorBucketName", { value: this.vectorBucket.name, description: VECTOR_BUCKET_ENV });
  }

  private table(def: TableDefinition): dynamodb.Table {
    const table = new dynamodb.Table(this, `${pascal(def.name)}Table`, {
      partitionKey: attribute(def.partitionKey),
      sortKey: def.sortKey && attribute(def.sortKey),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: def.timeToLive,
      deletionProtection: true,
      removalPolicy: cdk.RemovalPolicy.RETAIN,
    });
    for (const index of def.globalIndexes ?? []) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: attribute(index.partitionKey),
        sortKey: index.sortKey && attribute(index.sortKey),
      });
    }
    for (const index of def.localIndexes ?? []) table.addLocalSecondaryIndex({ indexName: index.name, sortKey: attribute(index.sortKey) });
    // Operators need the physical name for the keys CLI: TABLE_TENANCY=<value> npm run keys -- ...
    new cdk.CfnOutput(this, `${pascal(def.name)}TableName`, { value: table.tableName, description: tableEnvVar(def.name as TableName) });
    return table;
  }
}

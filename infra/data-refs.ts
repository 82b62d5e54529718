import * as cdk from "aws-cdk-lib";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as kms from "aws-cdk-lib/aws-kms";
import * as s3 from "aws-cdk-lib/aws-s3";
import { tables, type TableName } from "../shared/store/tables.js";
import { pascal } from "./names.js";
import type { TelemetryRefs } from "./telemetry.js";

/** What the functions may touch: the data stack's tables by logical name, and the files bucket. */
export interface DataRefs {
  tables: Record<TableName, dynamodb.ITable>;
  bucket: s3.IBucket;
  /** The KMS key that wraps connector secrets' data keys (envelope encryption). */
  secretsKey: kms.IKey;
  /** The analytical store of observability: its bucket, Glue database and Athena workgroup (infra/telemetry.ts). */
  telemetry: TelemetryRefs;
  /** The document libraries' S3 Vectors bucket (one index per library, docs/vector-search.md). */
  vectorBucket: VectorBucketRefs;
}

/** A vector bucket as grants and settings name it: S3 Vectors' CloudFormation Ref is the ARN, and it has no name attribute. */
export interface VectorBucketRefs {
  /** arn:<partition>:s3vectors:<region>:<account>:bucket/<name> */
  arn: string;
  /** What VECTOR_BUCKET holds: the part of the ARN after `bucket/`. */
  name: string;
}

/** The name in a vector bucket's ARN (arn:…:bucket/<name>), as a CloudFormation expression when the ARN is a token. */
export const vectorBucketName = (arn: string): string => cdk.Fn.select(1, cdk.Fn.split("/", arn));

/**
 * The data stack's names and ARNs as explicit parameters of a nested stack. CDK would thread them through
 * anyway, under generated names; explicit ones keep the nested template readable and give cdk-nag
 * findings a stable spelling (`<FilesBucketArn>/workspaces/*`) that does not change with the stage.
 */
export function dataParameters(stack: cdk.NestedStack, data: DataRefs): DataRefs {
  const parameter = (name: string, value: string) => {
    stack.setParameter(name, value);
    return new cdk.CfnParameter(stack, name, { type: "String" }).valueAsString;
  };
  const table = (name: TableName): dynamodb.ITable => {
    const id = `${pascal(name)}Table`;
    // The name is derived from the ARN, so one parameter per table.
    return dynamodb.Table.fromTableArn(stack, id, parameter(`${id}Arn`, data.tables[name].tableArn));
  };
  return {
    tables: Object.fromEntries(tables.map((t) => [t.name, table(t.name)])) as Record<TableName, dynamodb.ITable>,
    bucket: s3.Bucket.fromBucketArn(stack, "FilesBucket", parameter("FilesBucketArn", data.bucket.bucketArn)),
    secretsKey: kms.Key.fromKeyArn(stack, "ConnectorSecretsKey", parameter("ConnectorSecretsKeyArn", data.secretsKey.keyArn)),
    telemetry: {
      bucket: s3.Bucket.fromBucketArn(stack, "TelemetryBucket", parameter("TelemetryBucketArn", data.telemetry.bucket.bucketArn)),
      // Plain names chosen at synth (not tokens): they stay readable in the grants and their cdk-nag findings.
      database: data.telemetry.database,
      workGroup: data.telemetry.workGroup,
      retentionDays: data.telemetry.retentionDays,
    },
    // One parameter: the name is read out of the ARN, as the data stack does.
    vectorBucket: ((arn) => ({ arn, name: vectorBucketName(arn) }))(parameter("VectorBucketArn", data.vectorBucket.arn)),
  };
}

import { tableEnvVar, type TableName } from "./store/tables.js";

/** Reads a setting the deployment (CDK or the local stack) put in the environment. */
export function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Missing environment setting ${name}`);
  return value;
}

export const tableName = (name: TableName): string => setting(tableEnvVar(name));

export const FILES_BUCKET_ENV = "BUCKET_FILES";

/** The KMS key (ARN) that wraps connector secrets' data keys in the cloud; locally a key file in the data directory. */
export const SECRETS_KEY_ID_ENV = "CONNECTOR_SECRETS_KEY_ID";
export const SECRETS_KEY_FILE_ENV = "CONNECTOR_SECRETS_KEY_FILE";
export const filesBucket = (): string => setting(FILES_BUCKET_ENV);

/** `on` when the deployment traces (`-c tracing=true`): workflow machines created at run time get X-Ray tracing too. */
export const WORKFLOW_TRACING_ENV = "WORKFLOW_TRACING";

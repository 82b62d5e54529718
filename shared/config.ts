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

/** Locally: the directory of the analytical store's files (under the data directory); unset in the cloud. */
export const TELEMETRY_DIR_ENV = "TELEMETRY_DIR";

/** How long telemetry is kept (days): the S3 lifecycle expiry and the telemetry table's TTL (infra/data-stack.ts). */
export const TELEMETRY_RETENTION_DAYS_ENV = "TELEMETRY_RETENTION_DAYS";
export const DEFAULT_TELEMETRY_RETENTION_DAYS = 30;
export function telemetryRetentionDays(): number {
  const value = Number(process.env[TELEMETRY_RETENTION_DAYS_ENV] ?? DEFAULT_TELEMETRY_RETENTION_DAYS);
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_TELEMETRY_RETENTION_DAYS;
}

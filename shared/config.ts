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
/** Days telemetry (spans, logs, evaluations) is kept: the DynamoDB items' TTL and the telemetry objects' lifecycle. */
export const TELEMETRY_RETENTION_ENV = "TELEMETRY_RETENTION_DAYS";
export const DEFAULT_TELEMETRY_RETENTION_DAYS = 30;

export function telemetryRetentionDays(): number {
  const raw = process.env[TELEMETRY_RETENTION_ENV];
  if (!raw) return DEFAULT_TELEMETRY_RETENTION_DAYS;
  const days = Number(raw);
  if (!Number.isInteger(days) || days < 1) throw new Error(`${TELEMETRY_RETENTION_ENV} must be a whole number of days (1 or more), not '${raw}'`);
  return days;
}

/** The unix second a telemetry item written now expires (DynamoDB's TTL attribute). */
export const telemetryTtl = (now = Date.now()): number => Math.floor(now / 1000) + telemetryRetentionDays() * 86_400;

/**
 * Whether model-call spans keep message content when the workspace has not chosen (docs/decisions/0039):
 * `TELEMETRY_CONTENT_CAPTURE=off` makes the deployment's default off; a workspace admin's choice wins over it.
 */
export const TELEMETRY_CONTENT_CAPTURE_ENV = "TELEMETRY_CONTENT_CAPTURE";
export const contentCaptureDefault = (): boolean => (process.env[TELEMETRY_CONTENT_CAPTURE_ENV] ?? "on").toLowerCase() !== "off";

/** Locally: the directory of the analytical store's files (under the data directory); unset in the cloud. */
export const TELEMETRY_DIR_ENV = "TELEMETRY_DIR";

/** The S3 Vectors bucket of document libraries' vectors (CDK); unset locally (docs/vector-search.md). */
export const VECTOR_BUCKET_ENV = "VECTOR_BUCKET";
/** Locally: the LanceDB directory of document libraries' vectors (under the data directory); unset in the cloud. */
export const VECTORS_DIR_ENV = "VECTORS_DIR";

/** Days audit events are kept (docs/decisions/0044-audit-log.md): the audit table's TTL; CDK context `auditRetentionDays`. */
export const AUDIT_RETENTION_ENV = "AUDIT_RETENTION_DAYS";
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

export function auditRetentionDays(): number {
  const raw = process.env[AUDIT_RETENTION_ENV];
  if (!raw) return DEFAULT_AUDIT_RETENTION_DAYS;
  const days = Number(raw);
  if (!Number.isInteger(days) || days < 1) throw new Error(`${AUDIT_RETENTION_ENV} must be a whole number of days (1 or more), not '${raw}'`);
  return days;
}

/**
 * The API's base URL as clients and browsers reach it (a custom domain, the CloudFront or execute-api URL with
 * its stage): CDK sets it (`-c publicUrl`, else the API's own URL), the local stack sets the server's URL. The
 * OAuth consent page and callback are built from it, never from a request's Host or X-Forwarded-* headers.
 */
export const PUBLIC_URL_ENV = "PUBLIC_URL";
export function publicBaseUrl(): string {
  const raw = setting(PUBLIC_URL_ENV);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${PUBLIC_URL_ENV} must be an absolute URL, not '${raw}'`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`${PUBLIC_URL_ENV} must be an http(s) URL, not '${raw}'`);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** Overrides the OAuth redirect URI (the callback as the authorization server was told it); else PUBLIC_URL's callback. */
export const OAUTH_CALLBACK_URL_ENV = "CONNECTOR_OAUTH_CALLBACK_URL";

/**
 * Where an OAuth flow may send the user back (`app_return_url`), one deployment's list (`-c oauthReturnUrls`,
 * docs/connectors.md): comma-separated absolute URLs; one ending in `/` allows every URL under it. Empty: none.
 */
export const OAUTH_RETURN_URLS_ENV = "CONNECTOR_OAUTH_RETURN_URLS";
export function oauthReturnUrls(raw: string | undefined = process.env[OAUTH_RETURN_URLS_ENV]): string[] {
  if (!raw?.trim()) return [];
  return raw
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      let url: URL;
      try {
        url = new URL(entry);
      } catch {
        throw new Error(`${OAUTH_RETURN_URLS_ENV}: '${entry}' is not an absolute URL`);
      }
      if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`${OAUTH_RETURN_URLS_ENV}: '${entry}' is not an http(s) URL`);
      return url.href;
    });
}

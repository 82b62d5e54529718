/**
 * Process settings for everything that runs locally (npm start, tests, CLI, bench). Imported first:
 * the AWS SDK reads these when its clients are built.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
process.env.AWS_REGION ??= "us-east-1";
process.env.POWERTOOLS_LOG_LEVEL ??= "WARN";
process.env.POWERTOOLS_DEV ??= "true";
// Outbound calls (file_url fetches, connectors, OAuth) may reach loopback locally (fake upstreams, a dev server) unless the operator set it otherwise, never private or metadata addresses, never the stack's own backends (shared/net/outbound.ts, stack-targets.ts).
process.env.OUTBOUND_ALLOW_LOOPBACK ??= "true";

/** Local table and bucket names; CDK lets CloudFormation name the real ones. */
export const localTableName = (name: string) => `platform-${name}`;
export const LOCAL_FILES_BUCKET = "platform-files";

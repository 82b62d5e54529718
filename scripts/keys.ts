/**
 * API key administration, against the tables of a deployment or of the running local stack:
 *
 *   npm run keys -- bootstrap [--org-name NAME] [--workspace-name NAME]
 *   npm run keys -- create --org ORG_ID --workspace WORKSPACE_ID [--name NAME] [--admin] [--roles a,b] [LIMITS]
 *   npm run keys -- create --org ORG_ID --service-account SERVICE_ACCOUNT_ID [--name NAME] [LIMITS]
 *   npm run keys -- limits KEY_ID [LIMITS]        (a limit given as `none` is cleared)
 *   npm run keys -- list [--org ORG_ID] [--service-account SERVICE_ACCOUNT_ID]
 *   npm run keys -- revoke KEY_ID
 *   npm run keys -- rotate-url-secret [--no-overlap] [--force]
 *
 * Every change is recorded in the audit log as the OS user's, from the CLI (`npm run audit` reads it).
 * Real tables: set TABLE_TENANCY and TABLE_AUDIT (the DataStack outputs) and the usual AWS credentials and region.
 * Local: with TABLE_TENANCY unset, it uses the stack `npm start` is running (PLATFORM_DATA_DIR/local-stack.json).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AUTHORIZER_CACHE_SECONDS } from "../shared/http/gateway.js";
import { printTable } from "./cli-output.js";
import { cliArgs, fail, useTablesOrLocalStack } from "./cli-target.js";

const USAGE = `Usage:
  npm run keys -- bootstrap [--org-name NAME] [--workspace-name NAME]
  npm run keys -- create --org ORG_ID --workspace WORKSPACE_ID [--name NAME] [--admin] [--roles a,b] [LIMITS]
  npm run keys -- create --org ORG_ID --service-account SERVICE_ACCOUNT_ID [--name NAME] [LIMITS]
  npm run keys -- limits KEY_ID [LIMITS]
  npm run keys -- list [--org ORG_ID] [--service-account SERVICE_ACCOUNT_ID]
  npm run keys -- revoke KEY_ID
  npm run keys -- rotate-url-secret [--no-overlap] [--force]

LIMITS (docs/routing.md, "Per-key limits"): [--rate-limit N] (requests per minute) [--tpm N] [--tpd N] (tokens
per minute, per day) [--budget USD] (a month) [--models a,b] [--expires ISO_TIME]. limits changes a live key's:
a limit given as \`none\` is cleared, one left out is kept.

rotate-url-secret: a new secret signs file download URLs; the old one keeps verifying the URLs it signed
until they expire (168 h at most). --no-overlap drops it at once (a leaked secret: every issued URL stops
working). A second rotation while the first one's overlap runs would drop URLs still alive: --force does it.

Against a deployment: set TABLE_TENANCY, TABLE_AUDIT and AWS credentials. Every change is recorded in the
audit log (npm run audit) as the OS user's, from the CLI. Otherwise the stack npm start runs
(PLATFORM_DATA_DIR, default .data).`;

const { positionals, values } = cliArgs(USAGE, {
    org: { type: "string" },
    workspace: { type: "string" },
    name: { type: "string" },
    admin: { type: "boolean", default: false },
    roles: { type: "string" },
    "rate-limit": { type: "string" },
    tpm: { type: "string" },
    tpd: { type: "string" },
    budget: { type: "string" },
    models: { type: "string" },
    expires: { type: "string" },
    "service-account": { type: "string" },
    "org-name": { type: "string", default: "Default organization" },
    "workspace-name": { type: "string", default: "Default workspace" },
    "no-overlap": { type: "boolean", default: false },
    force: { type: "boolean", default: false },
});

const [command, ...rest] = positionals;
if (!command || !["bootstrap", "create", "limits", "list", "revoke", "rotate-url-secret"].includes(command)) fail(`${command ? `Unknown command '${command}'.\n\n` : ""}${USAGE}`);
useTablesOrLocalStack("tenancy", { audited: true });

// Loaded after the environment is settled: the SDK clients are built from it.
const tenants = await import("../shared/services/tenancy/tenants.js");
const { tenancyStore, secretStore } = await import("../shared/store/tenancy.js");
const { overlapEndsAt } = await import("../shared/domain/signed-urls.js");
const { identityStore } = await import("../shared/store/identity.js");
const serviceAccounts = await import("../shared/services/identity/service-accounts.js");
const { NotFound } = await import("../shared/domain/errors.js");
type KeyLimits = import("../shared/services/tenancy/tenants.js").KeyLimits;

const { CreateServiceAccountKeyBody, UpdateServiceAccountKeyBody } = await import("../shared/schemas/service-account.js");

type LimitOptions = { "rate-limit"?: string; tpm?: string; tpd?: string; budget?: string; models?: string; expires?: string };

/** The limit options as the key routes' body names them: a number, a list, a time, or (for `limits`) null from `none`. */
function wireLimits(options: LimitOptions, clearing: boolean): Record<string, unknown> {
  const value = (option: string | undefined, parse: (text: string) => unknown) => (option === undefined ? undefined : clearing && option === "none" ? null : parse(option));
  const wire = {
    rate_limit_per_minute: value(options["rate-limit"], Number),
    tokens_per_minute: value(options.tpm, Number),
    tokens_per_day: value(options.tpd, Number),
    monthly_budget: value(options.budget, Number),
    models: value(options.models, (text) => text.split(",").map((m) => m.trim()).filter(Boolean)),
    expires_at: value(options.expires, (text) => text),
  };
  return Object.fromEntries(Object.entries(wire).filter(([, v]) => v !== undefined));
}

/** The key's limits from the options, checked as the service-account key routes check them. */
function limitsOf(options: LimitOptions, clearing = false) {
  const parsed = (clearing ? UpdateServiceAccountKeyBody : CreateServiceAccountKeyBody).safeParse(wireLimits(options, clearing));
  if (!parsed.success) fail(parsed.error.issues.map((i) => `${flagOf(String(i.path[0] ?? ""))}: ${i.message}`).join("\n"));
  return serviceAccounts.keyLimitsFrom(parsed.data);
}

const FLAGS: Record<string, string> = { rate_limit_per_minute: "--rate-limit", tokens_per_minute: "--tpm", tokens_per_day: "--tpd", monthly_budget: "--budget", models: "--models", expires_at: "--expires" };
const flagOf = (field: string) => FLAGS[field] ?? "limits";

function printNewKey(key: string, record: { keyId: string; organization: string; workspace: string }): void {
  console.log(`Key id:       ${record.keyId}`);
  console.log(`Organization: ${record.organization}`);
  console.log(`Workspace:    ${record.workspace}`);
  console.log(`API key:      ${key}`);
  console.error("The key is shown only this once; only its hash is stored.");
}

switch (command) {
  case "bootstrap": {
    const { organization, workspace } = await tenants.bootstrap({ organization: values["org-name"], workspace: values["workspace-name"] });
    const { key, record } = await tenants.createApiKey({ organization: organization.id, workspace: workspace.id, name: values.name ?? "bootstrap admin", admin: true });
    printNewKey(key, record);
    break;
  }
  case "create": {
    if (values["service-account"]) {
      // A service account's key: in the account's workspace, acting with the account's roles as they are at each call.
      if (!values.org) fail("create --service-account needs --org");
      if (values.workspace || values.admin || values.roles) fail("a service account's key takes its workspace and roles from the account: drop --workspace, --admin and --roles");
      const account = await identityStore.getServiceAccount(values.org, values["service-account"]);
      if (!account) fail(`No service account ${values["service-account"]} in organization ${values.org}`);
      if (account.deletedAt) fail(`Service account ${account.id} is deleted`);
      const issued = await serviceAccounts.issueKey(account, values.name ?? `${account.name} key`, limitsOf(values) as KeyLimits);
      printNewKey(issued.key, { keyId: issued.id, organization: account.organization, workspace: account.workspace });
      console.log(`Service account: ${account.id} (roles: ${account.roles.join(", ") || "none yet"})`);
      break;
    }
    if (!values.org || !values.workspace) fail("create needs --org and --workspace");
    const workspace = await tenancyStore.getWorkspace(values.org, values.workspace);
    if (!workspace) fail(`No workspace ${values.workspace} in organization ${values.org}`);
    const { key, record } = await tenants.createApiKey({
      organization: values.org,
      workspace: values.workspace,
      name: values.name ?? "api key",
      admin: values.admin,
      roles: values.roles?.split(",").filter(Boolean),
      ...(limitsOf(values) as KeyLimits),
    });
    printNewKey(key, record);
    break;
  }
  case "limits": {
    const keyId = rest[0] ?? fail("limits needs a KEY_ID (see npm run keys -- list)");
    const updated = await tenants.updateKeyLimits(keyId, limitsOf(values, true)).catch((error: unknown) => (error instanceof NotFound ? fail(`No live key with id ${keyId}`) : Promise.reject(error)));
    console.log(JSON.stringify({ key_id: keyId, ...tenants.keyLimitValues(updated) }));
    console.error(`A deployed API applies the change within its authorizer cache time (${deployedAuthorizerCacheSeconds()} s).`);
    break;
  }
  case "list": {
    const organizations = values.org ? [values.org] : (await tenancyStore.listOrganizations()).map((o) => o.id);
    const rows = (await Promise.all(organizations.map((o) => tenancyStore.listApiKeys(o)))).flat().filter((k) => !values["service-account"] || k.principal === values["service-account"]);
    printTable(
      rows.map((k) => ({
        keyId: k.keyId,
        name: k.name,
        preview: k.preview,
        organization: k.organization,
        workspace: k.workspace,
        principal: `${k.principalType} ${k.principal}`,
        admin: k.admin,
        created: k.createdAt,
        revoked: k.revokedAt ?? "",
        expires: k.expiresAt ?? "",
        models: k.models?.join(",") ?? "",
        limits: [k.rateLimitPerMinute && `${k.rateLimitPerMinute} rpm`, k.tokensPerMinute && `${k.tokensPerMinute} tpm`, k.tokensPerDay && `${k.tokensPerDay} tpd`, k.monthlyBudget !== undefined && `$${k.monthlyBudget}/month`].filter(Boolean).join(" "),
      })),
    );
    break;
  }
  case "revoke": {
    const keyId = rest[0] ?? fail("revoke needs a KEY_ID (see npm run keys -- list)");
    const revoked = await tenants.revokeKey(keyId).catch((error: unknown) => (error instanceof NotFound ? fail(`No key with id ${keyId}`) : Promise.reject(error)));
    const cache = deployedAuthorizerCacheSeconds();
    console.log(
      `Revoked ${keyId} at ${revoked.revokedAt}. A deployed API may accept it for up to ${cache} s more (its authorizer cache: ` +
        `authorizerCacheSeconds, ${cache === AUTHORIZER_CACHE_SECONDS ? "the default" : "cdk.json's context"}; a deploy with -c authorizerCacheSeconds=N sets another); ` +
        `npm start caches for AUTHORIZER_CACHE_SECONDS (default 0: refused at once).`,
    );
    break;
  }
  case "rotate-url-secret": {
    const now = Math.floor(Date.now() / 1000);
    const overlap = !values["no-overlap"];
    const { rotatedAt, previous } = await secretStore.urlSigningSecrets();
    // The previous secret still verifies live URLs until its overlap ends; rotating again would drop it.
    if (overlap && previous && rotatedAt && overlapEndsAt(rotatedAt) > now && !values.force) {
      fail(`The last rotation's overlap runs until ${new Date(overlapEndsAt(rotatedAt) * 1000).toISOString()}: URLs signed before it still use the previous secret. Rotate after that, or --force to drop them.`);
    }
    if (!(await tenants.rotateUrlSigningSecret({ overlap, now }))) fail("No URL signing secret to rotate: run `npm run keys -- bootstrap` first");
    console.log(
      overlap
        ? `Rotated the URL signing secret. URLs issued before keep working until they expire (at the latest ${new Date(overlapEndsAt(now) * 1000).toISOString()}); functions pick the new secret up within 5 minutes.`
        : "Rotated the URL signing secret without overlap: every URL issued before is refused now (within 5 minutes on deployed functions).",
    );
    break;
  }
}

/** What `cdk deploy` from this checkout gives the authorizer cache (infra/app.ts): cdk.json's context, else the default. */
function deployedAuthorizerCacheSeconds(): number {
  const context = (JSON.parse(readFileSync(join(import.meta.dirname, "..", "cdk.json"), "utf8")) as { context?: Record<string, unknown> }).context ?? {};
  const value = Number(context.authorizerCacheSeconds ?? AUTHORIZER_CACHE_SECONDS);
  return Number.isInteger(value) && value >= 0 ? value : AUTHORIZER_CACHE_SECONDS;
}

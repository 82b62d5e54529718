/**
 * The audit log from the command line (docs/decisions/0044-audit-log.md), with the admin route's filters:
 *
 *   npm run audit -- [--org ORG_ID] [--actor ID] [--target ID] [--operation OP] [--workspace ID]
 *                    [--since TIME] [--until TIME] [--page-size N] [--cursor C] [--json]
 *
 * TIME is ISO 8601 or a span back from now (`7d`, `12h`, `30m`). Real tables: set TABLE_TENANCY and
 * TABLE_AUDIT (DataStack outputs) and AWS credentials; otherwise the stack `npm start` runs.
 */
import { cliArgs, fail, organizationOf, useTablesOrLocalStack } from "./cli-target.js";

const USAGE = `Usage:
  npm run audit -- [--org ORG_ID] [--actor ID] [--target ID] [--operation OP] [--workspace ID]
                   [--since TIME] [--until TIME] [--page-size N] [--cursor C] [--json]

Lists an organization's audit events, newest first: who changed what, when and from where.
  --actor      a user, service account or API key id, or the OS user of a CLI change
  --target     any id a change targeted (key, workspace, user, service account, connector, deployment)
  --operation  e.g. key.create, membership.put, connector.share (GET /v1/admin/audit-events lists them in its docs)
  --since, --until   ISO 8601, or a span back from now: 7d, 12h, 30m
  --org        needed when the tables hold several organizations

Against a deployment: set TABLE_TENANCY, TABLE_AUDIT and AWS credentials. Otherwise the stack npm start runs
(PLATFORM_DATA_DIR, default .data).`;

const { values } = cliArgs(
  USAGE,
  {
    org: { type: "string" },
    actor: { type: "string" },
    target: { type: "string" },
    operation: { type: "string" },
    workspace: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
    "page-size": { type: "string", default: "50" },
    cursor: { type: "string" },
    json: { type: "boolean", default: false },
  },
  false,
);

/** A span back from now (`7d`, `12h`, `30m`) or an ISO time, as the route's query takes it. */
function instant(value: string | undefined, option: string): string | undefined {
  if (value === undefined) return undefined;
  const span = /^(\d+)([dhm])$/.exec(value);
  if (span) return new Date(Date.now() - Number(span[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[span[2] as "d" | "h" | "m"]).toISOString();
  if (Number.isNaN(Date.parse(value))) fail(`--${option} '${value}' is neither an ISO 8601 time nor a span like 7d, 12h, 30m`);
  return new Date(value).toISOString();
}

const query = {
  actor: values.actor,
  target: values.target,
  operation: values.operation,
  workspace_id: values.workspace,
  since: instant(values.since, "since"),
  until: instant(values.until, "until"),
  page_size: values["page-size"],
  cursor: values.cursor,
};

useTablesOrLocalStack("tenancy");
const { AuditEventsQuery } = await import("../shared/schemas/audit.js");
const { listAuditEvents, toAuditEventOut } = await import("../shared/services/audit/read.js");
const { ApiError } = await import("../shared/domain/errors.js");

const parsed = AuditEventsQuery.safeParse(Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)));
if (!parsed.success) fail(`${parsed.error.issues.map((i) => `--${String(i.path[0]).replace("_id", "").replace("_", "-")}: ${i.message}`).join("\n")}\n\n${USAGE}`);

const organization = () => organizationOf(values.org);

try {
  const { events, nextCursor } = await listAuditEvents(await organization(), parsed.data);
  const out = events.map(toAuditEventOut);
  if (values.json) console.log(JSON.stringify({ data: out, next_cursor: nextCursor }, null, 2));
  else {
    console.table(
      out.map((e) => ({
        when: e.created_at,
        operation: e.operation,
        actor: `${e.actor.type} ${e.actor.id}${e.actor.api_key_id ? ` (key ${e.actor.api_key_id})` : ""}`,
        from: [e.origin.via, e.origin.address, e.origin.request_id].filter(Boolean).join(" "),
        workspace: e.workspace_id ?? "",
        targets: e.targets.map((t) => `${t.type} ${t.id}`).join(", "),
        change: summary(e.before, e.after),
      })),
    );
    if (nextCursor) console.log(`More: --cursor ${nextCursor}`);
  }
} catch (error) {
  if (error instanceof ApiError) fail(error.message);
  throw error;
}

function summary(before: Record<string, unknown> | null, after: Record<string, unknown> | null): string {
  const text = `${before ? `${JSON.stringify(before)} → ` : ""}${after ? JSON.stringify(after) : ""}`;
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

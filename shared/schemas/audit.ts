import * as z from "zod";
import { AUDIT_OPERATIONS } from "./audit-operations.js";
import { queryInt } from "./query.js";

export { AUDIT_OPERATIONS };

/* The audit log's read route (`GET /v1/admin/audit-events`, an extension) and the CLI's table (docs/decisions/0044-audit-log.md). */

const Instant = z.iso.datetime({ offset: true }).describe("ISO 8601 time, inclusive");

export const AuditEventsQuery = z.strictObject({
  actor: z.string().min(1).max(200).optional().describe("A user, service account or API key id (the key a change came with), or the OS user of a CLI change"),
  target: z.string().min(1).max(200).optional().describe("Any id the change targeted: a key, workspace, user, service account, connector, deployment"),
  operation: z.enum(AUDIT_OPERATIONS).optional(),
  workspace_id: z.string().min(1).max(200).optional(),
  since: Instant.optional(),
  until: Instant.optional(),
  page_size: queryInt().min(1).max(100).default(50),
  cursor: z.string().min(1).max(2000).optional().describe("The `next_cursor` of the previous page"),
}).refine((q) => !q.since || !q.until || Date.parse(q.since) <= Date.parse(q.until), { path: ["until"], message: "until is before since" });
export type AuditEventsQuery = z.output<typeof AuditEventsQuery>;

const Values = z.record(z.string(), z.unknown()).nullable();

export const AuditEventOut = z.object({
  id: z.string(),
  object: z.literal("audit_event"),
  created_at: z.string().describe("When the change was made (ISO 8601)"),
  operation: z.enum(AUDIT_OPERATIONS),
  organization_id: z.string(),
  workspace_id: z.string().nullable(),
  actor: z.object({
    type: z.enum(["user", "service_account", "cli", "system"]),
    id: z.string().describe("User or service account id; the OS user for `cli`"),
    api_key_id: z.string().nullable(),
  }),
  origin: z.object({
    via: z.enum(["api", "cli", "system"]),
    request_id: z.string().nullable(),
    address: z.string().nullable().describe("The viewer's address (CloudFront-Viewer-Address, else the source IP)"),
    forwarded_by: z.string().nullable(),
  }),
  targets: z.array(z.object({ type: z.string(), id: z.string() })),
  before: Values,
  after: Values,
});
export type AuditEventOut = z.output<typeof AuditEventOut>;

export const AuditEventListOut = z.object({
  object: z.literal("list"),
  data: z.array(AuditEventOut),
  next_cursor: z.string().nullable(),
});

import { randomUUID } from "node:crypto";
import { auditRetentionDays } from "../../config.js";
import { auditValues, type AuditActor, type AuditEvent, type AuditOperation, type AuditTarget, type AuditValues } from "../../domain/audit.js";
import { changeOrigin } from "../../observability/change-origin.js";
import { auditStore } from "../../store/audit.js";

/** One privileged change, as the operation that made it describes it. */
export interface AuditEntry {
  organization: string;
  /** The workspace the change applies to, when it applies to one. */
  workspace?: string | null;
  operation: AuditOperation;
  targets: AuditTarget[];
  /** Values before and after, never a secret (secret-named fields are dropped again on the way in). */
  before?: AuditValues | null;
  after?: AuditValues | null;
  /** Who made it, when the change is not the ambient caller's (the OAuth callback acts for the requester it names). */
  actor?: AuditActor;
}

/**
 * Records a privileged change in the audit log: the one call every privileged service operation makes after
 * its change is written (API and CLI alike; who and from where come from the change origin the route chain
 * or the CLI set, shared/observability/change-origin.ts). A failed append fails the operation: the change is
 * made but the caller learns that it was not recorded (docs/decisions/0044-audit-log.md).
 */
export async function recordAudit(entry: AuditEntry, now = new Date()): Promise<AuditEvent> {
  const ambient = changeOrigin();
  const event: AuditEvent = {
    id: randomUUID(),
    organization: entry.organization,
    workspace: entry.workspace ?? null,
    at: now.toISOString(),
    operation: entry.operation,
    actor: entry.actor ?? ambient.actor,
    origin: ambient.origin,
    targets: entry.targets,
    before: auditValues(entry.before),
    after: auditValues(entry.after),
  };
  await auditStore.append(event, Math.floor(now.getTime() / 1000) + auditRetentionDays() * 86_400);
  return event;
}

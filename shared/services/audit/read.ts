import * as z from "zod";
import type { Caller } from "../../domain/caller.js";
import type { AuditEvent, AuditFilter } from "../../domain/audit.js";
import type { AuditEventOut, AuditEventsQuery } from "../../schemas/audit.js";
import { auditStore } from "../../store/audit.js";
import { encodeCursor, readCursor } from "../../store/cursor.js";

const Position = z.strictObject({ sk: z.string().min(1).max(300) });

/** A cursor names a position in one organization's log; the partition is always the reader's, so another's cursor reads nothing of theirs. */
export async function listAuditEvents(organization: string, query: AuditEventsQuery): Promise<{ events: AuditEvent[]; nextCursor: string | null }> {
  const filter = filterOf(query);
  const after = query.cursor ? readCursor(query.cursor, Position, "cursor") : undefined;
  const { events, next } = await auditStore.page(organization, filter, query.page_size, after);
  return { events, nextCursor: next ? encodeCursor(next) : null };
}

/** The admin route: the caller's organization's events only (the row admits admin keys and organization admins). */
export const auditEventsFor = (caller: Pick<Caller, "organization">, query: AuditEventsQuery) => listAuditEvents(caller.organization, query);

function filterOf(query: AuditEventsQuery): AuditFilter {
  // Sort keys hold times with milliseconds and Z: bounds are compared in the same spelling (the schema refuses an inverted range).
  const since = query.since ? new Date(query.since).toISOString() : undefined;
  const until = query.until ? new Date(query.until).toISOString() : undefined;
  return { actor: query.actor, target: query.target, operation: query.operation, workspace: query.workspace_id, since, until };
}

export const toAuditEventOut = (event: AuditEvent): AuditEventOut => ({
  id: event.id,
  object: "audit_event",
  created_at: event.at,
  operation: event.operation,
  organization_id: event.organization,
  workspace_id: event.workspace,
  actor: { type: event.actor.kind, id: event.actor.id, api_key_id: event.actor.keyId ?? null },
  origin: { via: event.origin.via, request_id: event.origin.requestId ?? null, address: event.origin.address ?? null, forwarded_by: event.origin.forwardedBy ?? null },
  targets: event.targets,
  before: event.before,
  after: event.after,
});

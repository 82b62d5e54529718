import { randomUUID } from "node:crypto";
import type { AuditEvent } from "../../shared/domain/audit.js";

/** An audit event (shared/domain/audit.ts) of a spend-limit change by a user's key through the API. */
export function anAuditEvent(overrides: Partial<AuditEvent> = {}): AuditEvent {
  return {
    id: randomUUID(),
    organization: randomUUID(),
    workspace: randomUUID(),
    at: "2026-11-20T10:00:00.000Z",
    operation: "spend-limit.set",
    actor: { kind: "user", id: randomUUID(), keyId: randomUUID() },
    origin: { via: "api", requestId: randomUUID(), address: "203.0.113.9" },
    targets: [{ type: "workspace", id: randomUUID() }],
    before: { spend_limit: null },
    after: { spend_limit: { value: 10, currency: "USD", no_monthly_limit: false } },
    ...overrides,
  };
}

/** The audit table's item of an event, as shared/store/audit.ts writes it. */
export const anAuditItem = (event: AuditEvent): Record<string, unknown> => ({
  pk: `ORG#${event.organization}`,
  sk: `${event.at}#${event.id}`,
  ttl: 1,
  actorId: event.actor.id,
  ...(event.actor.keyId ? { actorKeyId: event.actor.keyId } : {}),
  targetIds: event.targets.map((t) => t.id),
  ...event,
});

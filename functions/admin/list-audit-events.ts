import { AuditEventListOut, AuditEventsQuery } from "../../shared/schemas/audit.js";
import { auditEventsFor, toAuditEventOut } from "../../shared/services/audit/read.js";
import { route } from "../route.js";

export const handler = route({ query: AuditEventsQuery, response: AuditEventListOut }, async ({ query, caller }) => {
  const { events, nextCursor } = await auditEventsFor(caller, query);
  return { object: "list", data: events.map(toAuditEventOut), next_cursor: nextCursor };
});

import { PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import type { AuditEvent, AuditFilter } from "../domain/audit.js";
import { documents } from "./client.js";

const table = () => tableName("audit");

const partition = (organization: string) => `ORG#${organization}`;
const sortKey = (event: Pick<AuditEvent, "at" | "id">) => `${event.at}#${event.id}`;

/** Where a page ended: the sort key of its last event (the partition is the reader's organization). */
export interface AuditPosition {
  sk: string;
}

/**
 * The audit log's storage. Append-only by construction: the one write is a conditional put of a new item
 * (the deployed role may do nothing else on this table, test/infra), and nothing here updates or deletes.
 */
export const auditStore = {
  async append(event: AuditEvent, ttl: number): Promise<void> {
    const item = {
      pk: partition(event.organization),
      sk: sortKey(event),
      ttl,
      // Flat copies the readers filter on (DynamoDB filters see attributes, not nested JSON lists of objects).
      actorId: event.actor.id,
      ...(event.actor.keyId ? { actorKeyId: event.actor.keyId } : {}),
      targetIds: event.targets.map((t) => t.id),
      ...event,
    };
    await documents.send(new PutCommand({ TableName: table(), Item: item, ConditionExpression: "attribute_not_exists(pk)" }));
  },

  /**
   * One organization's events, newest first, matching the filter: a Query on the organization's partition
   * with the time range as the key condition and the rest as a filter, read until the page is full.
   */
  async page(organization: string, filter: AuditFilter, size: number, after?: AuditPosition): Promise<{ events: AuditEvent[]; next?: AuditPosition }> {
    const names: Record<string, string> = { "#pk": "pk", "#sk": "sk" };
    const values: Record<string, unknown> = { ":pk": partition(organization) };
    // Sort keys are `<ISO time>#<id>`: the bounds cover every event of their first and last millisecond.
    const lower = filter.since ?? "0";
    const upper = `${filter.until ?? "9"}#~`;
    values[":lo"] = lower;
    values[":hi"] = after && after.sk < upper ? after.sk : upper;
    const conditions: string[] = [];
    if (filter.actor) {
      names["#actorId"] = "actorId";
      names["#actorKeyId"] = "actorKeyId";
      values[":actor"] = filter.actor;
      conditions.push("(#actorId = :actor OR #actorKeyId = :actor)");
    }
    if (filter.target) {
      names["#targetIds"] = "targetIds";
      values[":target"] = filter.target;
      conditions.push("contains(#targetIds, :target)");
    }
    if (filter.operation) {
      names["#operation"] = "operation";
      values[":operation"] = filter.operation;
      conditions.push("#operation = :operation");
    }
    if (filter.workspace) {
      names["#workspace"] = "workspace";
      values[":workspace"] = filter.workspace;
      conditions.push("#workspace = :workspace");
    }
    const events: AuditEvent[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await documents.send(
        new QueryCommand({
          TableName: table(),
          // The upper bound is exclusive of the position a page ended at: BETWEEN is inclusive, so the last key is skipped below.
          KeyConditionExpression: "#pk = :pk AND #sk BETWEEN :lo AND :hi",
          ...(conditions.length ? { FilterExpression: conditions.join(" AND ") } : {}),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ScanIndexForward: false,
          ExclusiveStartKey: startKey,
          Limit: Math.min(1000, (size + 1) * 4),
        }),
      );
      for (const item of out.Items ?? []) {
        if (after && item.sk === after.sk) continue;
        events.push(toEvent(item));
        if (events.length > size) break;
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey && events.length <= size);
    const page = events.slice(0, size);
    return { events: page, ...(events.length > size ? { next: { sk: sortKey(page[page.length - 1]!) } } : {}) };
  },
};

function toEvent(item: Record<string, unknown>): AuditEvent {
  const { pk: _pk, sk: _sk, ttl: _ttl, actorId: _a, actorKeyId: _k, targetIds: _t, ...event } = item;
  return event as unknown as AuditEvent;
}

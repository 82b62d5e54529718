import { PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import type { StoredWorkflowEvent, WorkflowEvent } from "../../domain/workflows/events.js";
import { keyFits } from "../../domain/storage-limits.js";
import { documents } from "../client.js";

/**
 * The workflow event log (docs/workflows.md): one partition per root execution, events by a sequence
 * that an atomic counter hands out (never reused; a writer that dies between the two writes leaves a gap,
 * which readers skip). Events also carry `eventsKey`/`eventKey` for the workspace-wide listing.
 */
const table = () => tableName("executions");
const partition = (workspace: string, root: string) => `EVT#${workspace}#${root}`;
const seqKey = (seq: number) => `SEQ#${String(seq).padStart(12, "0")}`;

/** Where a page of the workspace-wide listing ended. */
export interface EventPosition {
  pk: string;
  sk: string;
  eventKey: string;
}

/** The partition of a root's events: a position of the workspace listing must be in one of the workspace's. */
export const eventPartitionPrefix = (workspace: string) => `EVT#${workspace}#`;
/**
 * Readers of a root's log waiting in this process (the SSE stream between two reads). An append wakes
 * them at once; where the writer runs in another process (another Lambda function) they wake at their
 * next poll instead.
 */
const waiting = new Map<string, Set<() => void>>();
/** Appends this process made per root log: a reader that read before the latest one need not wait. */
const appended = new Map<string, number>();

export const eventStore = {
  /** Appends `event` to its root's log and returns its sequence. */
  async append(workspace: string, event: WorkflowEvent): Promise<number> {
    const pk = partition(workspace, event.root_workflow_exec_id);
    const counter = await documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk, sk: "COUNTER" },
        UpdateExpression: "ADD #seq :one",
        ExpressionAttributeNames: { "#seq": "seq" },
        ExpressionAttributeValues: { ":one": 1 },
        // The counter item holds only the sequence: ALL_NEW is UPDATED_NEW here.
        ReturnValues: "ALL_NEW",
      }),
    );
    const seq = Number(counter.Attributes!.seq);
    await documents.send(
      new PutCommand({
        TableName: table(),
        Item: {
          pk,
          sk: seqKey(seq),
          workspace,
          seq,
          event,
          eventsKey: workspace,
          eventKey: `${String(event.event_timestamp).padStart(20, "0")}#${event.root_workflow_exec_id}#${seqKey(seq)}`,
        },
      }),
    );
    appended.set(pk, (appended.get(pk) ?? 0) + 1);
    for (const wake of waiting.get(pk) ?? []) wake();
    return seq;
  },

  /** How many appends to the root's log this process has made: read it before a read, hand it to waitForAppend after. */
  appendsTo(workspace: string, root: string): number {
    return appended.get(partition(workspace, root)) ?? 0;
  },

  /**
   * Resolves after `ms`, when the client goes (`signal`), or as soon as this process appends to the root's
   * log; at once if it appended since `seen` (appendsTo before the caller's last read).
   */
  waitForAppend(workspace: string, root: string, ms: number, signal?: AbortSignal, seen?: number): Promise<void> {
    const pk = partition(workspace, root);
    return new Promise<void>((resolve) => {
      if (signal?.aborted || (seen !== undefined && (appended.get(pk) ?? 0) > seen)) return resolve();
      const timer = setTimeout(done, ms);
      const waiters = waiting.get(pk) ?? new Set<() => void>();
      waiting.set(pk, waiters.add(done));
      signal?.addEventListener("abort", done, { once: true });
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        waiters.delete(done);
        if (!waiters.size && waiting.get(pk) === waiters) waiting.delete(pk);
        resolve();
      }
    });
  },

  /** Up to `limit` events of a root from sequence `fromSeq` (inclusive), in order. */
  async listFrom(workspace: string, root: string, fromSeq: number, limit: number): Promise<StoredWorkflowEvent[]> {
    if (!keyFits(partition(workspace, root), "partition")) return [];
    const out = await documents.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: "pk = :pk AND sk BETWEEN :from AND :to",
        ExpressionAttributeValues: { ":pk": partition(workspace, root), ":from": seqKey(Math.max(0, fromSeq)), ":to": "SEQ#~" },
        ConsistentRead: true,
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map((item) => ({ workspace, seq: Number(item.seq), event: item.event as WorkflowEvent }));
  },
  /** A page of the workspace's events, newest first (the `events` index), after `after` (the last event's position). */
  async listRecent(workspace: string, limit: number, after?: EventPosition): Promise<{ items: StoredWorkflowEvent[]; last?: EventPosition }> {
    const out = await documents.send(
      new QueryCommand({
        TableName: table(),
        IndexName: "events",
        KeyConditionExpression: "eventsKey = :ws",
        ExpressionAttributeValues: { ":ws": workspace },
        ScanIndexForward: false,
        Limit: limit,
        ExclusiveStartKey: after ? { pk: after.pk, sk: after.sk, eventsKey: workspace, eventKey: after.eventKey } : undefined,
      }),
    );
    const items = out.Items ?? [];
    const lastItem = items.at(-1);
    return {
      items: items.map((item) => ({ workspace, seq: Number(item.seq), event: item.event as WorkflowEvent })),
      last: out.LastEvaluatedKey && lastItem ? { pk: String(lastItem.pk), sk: String(lastItem.sk), eventKey: String(lastItem.eventKey) } : undefined,
    };
  },
};

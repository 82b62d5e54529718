import { NumberValue, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import type { StoredWorkflowEvent, WorkflowEvent } from "../../domain/workflows/events.js";
import { documents } from "../client.js";

/**
 * The workflow event log (docs/workflows.md): one partition per root execution, events by a sequence
 * that an atomic counter hands out (never reused; a writer that dies between the two writes leaves a gap,
 * which readers skip). Events also carry `eventsKey`/`eventKey` for the workspace-wide listing.
 */
const table = () => tableName("executions");
const partition = (workspace: string, root: string) => `EVT#${workspace}#${root}`;
const seqKey = (seq: number) => `SEQ#${String(seq).padStart(12, "0")}`;

/**
 * Event timestamps are Unix nanoseconds, beyond Number.MAX_SAFE_INTEGER: the document client refuses to
 * write such a number and reads it back as a BigInt, so it is written as a NumberValue and read back as a number.
 */
const storedEvent = (event: WorkflowEvent) => ({ ...event, event_timestamp: NumberValue.from(BigInt(Math.round(event.event_timestamp)).toString()) });
export const readEvent = (stored: unknown): WorkflowEvent => {
  const event = stored as WorkflowEvent & { event_timestamp: unknown };
  return { ...event, event_timestamp: Number(event.event_timestamp) };
};

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
        ReturnValues: "UPDATED_NEW",
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
          event: storedEvent(event),
          eventsKey: workspace,
          eventKey: `${String(event.event_timestamp).padStart(20, "0")}#${event.root_workflow_exec_id}#${seqKey(seq)}`,
        },
      }),
    );
    return seq;
  },

  /** Up to `limit` events of a root from sequence `fromSeq` (inclusive), in order. */
  async listFrom(workspace: string, root: string, fromSeq: number, limit: number): Promise<StoredWorkflowEvent[]> {
    const out = await documents.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: "pk = :pk AND sk BETWEEN :from AND :to",
        ExpressionAttributeValues: { ":pk": partition(workspace, root), ":from": seqKey(Math.max(0, fromSeq)), ":to": "SEQ#~" },
        ConsistentRead: true,
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map((item) => ({ workspace, seq: Number(item.seq), event: readEvent(item.event) }));
  },
};

import { createHash } from "node:crypto";
import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import type { InboxMessage, InboxWaiter, RunStep } from "../../domain/workflows/inbox.js";
import { documents, ifConditionHolds, ifTransactionHolds } from "../client.js";
import { queryAll } from "../query.js";

/**
 * An execution's inbox (docs/workflows.md, "Signals, updates and queries"), in the `executions` table:
 *
 * | pk | sk | what |
 * |---|---|---|
 * | `INBOX#<ws>#<executionId>` | `COUNTER` | the last inbox sequence (moved only with the message it numbers) |
 * | `INBOX#<ws>#<executionId>` | `MSG#<000000000042>` | a signal or an update, by inbox sequence |
 * | `INBOX#<ws>#<executionId>` | `UPD#<updateId>` | which sequence an update has |
 * | `INBOX#<ws>#<executionId>` | `WAIT#<runId>#<state>#<token hash>` | a Task waiting for a signal or an update, with its token |
 * | `STEPS#<ws>#<runId>` | `AT#<ms>#<n>` | a top-level state the run entered, with its input (history's reset points) |
 *
 * A message is numbered in the same transaction that moves the counter, so the sequence has no gaps and a
 * reader that sees message n sees every message before it: delivery in inbox sequence needs nothing more.
 */
const table = () => tableName("executions");
const inboxPk = (workspace: string, executionId: string) => `INBOX#${workspace}#${executionId}`;
const seqKey = (seq: number) => `MSG#${String(seq).padStart(12, "0")}`;
const stepsPk = (workspace: string, runId: string) => `STEPS#${workspace}#${runId}`;
export const tokenHash = (token: string) => createHash("sha256").update(token).digest("hex").slice(0, 32);

function strip<T>(item: Record<string, unknown>): T {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest as T;
}

/** The items of partition `pk` whose sort keys start with `prefix`, in key order (consistent reads). */
async function withPrefix<T>(pk: string, prefix: string): Promise<T[]> {
  const items = await queryAll({ TableName: table(), KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)", ExpressionAttributeValues: { ":pk": pk, ":prefix": prefix }, ConsistentRead: true });
  return items.map((item) => strip<T>(item));
}

/** Concurrent appends to one execution retry with a jittered pause; each round one of them wins. */
const MAX_APPEND_ATTEMPTS = 60;

export const inboxStore = {
  /**
   * Appends a message with the next inbox sequence and returns it numbered. Optimistic: read the counter,
   * then move it and write the message in one transaction conditional on the counter being unchanged.
   */
  async append(message: Omit<InboxMessage, "seq">): Promise<InboxMessage> {
    const pk = inboxPk(message.workspace, message.executionId);
    for (let attempt = 0; attempt < MAX_APPEND_ATTEMPTS; attempt += 1) {
      const counter = await documents.send(new GetCommand({ TableName: table(), Key: { pk, sk: "COUNTER" }, ConsistentRead: true }));
      const current = counter.Item ? Number(counter.Item.seq) : 0;
      const numbered: InboxMessage = { ...message, seq: current + 1 };
      const written = await ifTransactionHolds(
        documents.send(
          new TransactWriteCommand({
            TransactItems: [
              counter.Item
                ? {
                    Update: {
                      TableName: table(),
                      Key: { pk, sk: "COUNTER" },
                      UpdateExpression: "SET #seq = :next",
                      ConditionExpression: "#seq = :current",
                      ExpressionAttributeNames: { "#seq": "seq" },
                      ExpressionAttributeValues: { ":next": numbered.seq, ":current": current },
                    },
                  }
                : { Put: { TableName: table(), Item: { pk, sk: "COUNTER", seq: numbered.seq }, ConditionExpression: "attribute_not_exists(sk)" } },
              { Put: { TableName: table(), Item: { pk, sk: seqKey(numbered.seq), ...numbered }, ConditionExpression: "attribute_not_exists(sk)" } },
              ...(message.kind === "update"
                ? [{ Put: { TableName: table(), Item: { pk, sk: `UPD#${message.id}`, seq: numbered.seq }, ConditionExpression: "attribute_not_exists(sk)" } }]
                : []),
            ],
          }),
        ),
      );
      if (written !== undefined) return numbered;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 + attempt * 3)));
    }
    throw new Error(`The inbox of execution ${message.executionId} is too busy: no sequence after ${MAX_APPEND_ATTEMPTS} attempts`);
  },

  async get(workspace: string, executionId: string, seq: number): Promise<InboxMessage | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: { pk: inboxPk(workspace, executionId), sk: seqKey(seq) }, ConsistentRead: true }));
    return out.Item ? strip<InboxMessage>(out.Item) : undefined;
  },

  /** An update's message by its id. */
  async getUpdate(workspace: string, executionId: string, updateId: string): Promise<InboxMessage | undefined> {
    const pk = inboxPk(workspace, executionId);
    const pointer = await documents.send(new GetCommand({ TableName: table(), Key: { pk, sk: `UPD#${updateId}` }, ConsistentRead: true }));
    return pointer.Item ? inboxStore.get(workspace, executionId, Number(pointer.Item.seq)) : undefined;
  },

  /** Every message of the execution, in inbox sequence. */
  async messages(workspace: string, executionId: string): Promise<InboxMessage[]> {
    return withPrefix<InboxMessage>(inboxPk(workspace, executionId), "MSG#");
  },

  /** Records a waiting Task (its token: never returned by the API). */
  async putWaiter(waiter: InboxWaiter): Promise<void> {
    await documents.send(
      new PutCommand({
        TableName: table(),
        Item: { pk: inboxPk(waiter.workspace, waiter.executionId), sk: waiterKey(waiter), ...waiter },
      }),
    );
  },

  /** The Tasks waiting on the execution's inbox, oldest first. */
  async waiters(workspace: string, executionId: string): Promise<InboxWaiter[]> {
    return (await withPrefix<InboxWaiter>(inboxPk(workspace, executionId), "WAIT#")).sort((a, b) => a.atMs - b.atMs);
  },

  async deleteWaiter(waiter: InboxWaiter): Promise<void> {
    await documents.send(new DeleteCommand({ TableName: table(), Key: { pk: inboxPk(waiter.workspace, waiter.executionId), sk: waiterKey(waiter) } }));
  },

  /**
   * Hands `message` to `waiter`: the waiter goes and the message is DELIVERED to its run, in one
   * transaction conditional on both (so a message goes to one waiter and a waiter takes one message).
   */
  async claim(waiter: InboxWaiter, message: InboxMessage, nowMs: number): Promise<boolean> {
    const pk = inboxPk(waiter.workspace, waiter.executionId);
    const out = await ifTransactionHolds(
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { Delete: { TableName: table(), Key: { pk, sk: waiterKey(waiter) }, ConditionExpression: "attribute_exists(sk)" } },
            {
              Update: {
                TableName: table(),
                Key: { pk, sk: seqKey(message.seq) },
                UpdateExpression: "SET #status = :delivered, deliveredRunId = :run, deliveredAtMs = :now, deliveredToken = :token",
                ConditionExpression: "#status = :pending",
                ExpressionAttributeNames: { "#status": "status" },
                ExpressionAttributeValues: { ":delivered": "DELIVERED", ":pending": "PENDING", ":run": waiter.runId, ":now": nowMs, ":token": tokenHash(waiter.token) },
              },
            },
          ],
        }),
      ),
    );
    return out !== undefined;
  },

  /** Puts a message back (its waiter's token was no longer open), unless it was handed on since. */
  async unclaim(workspace: string, executionId: string, seq: number, token: string): Promise<void> {
    await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: { pk: inboxPk(workspace, executionId), sk: seqKey(seq) },
          UpdateExpression: "SET #status = :pending REMOVE deliveredToken",
          ConditionExpression: "#status = :delivered AND deliveredToken = :token",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":pending": "PENDING", ":delivered": "DELIVERED", ":token": tokenHash(token) },
        }),
      ),
    );
  },

  /** Moves a message from one status to another (conditional on `from`), with `fields`; false when it was elsewhere. */
  async move(workspace: string, executionId: string, seq: number, from: InboxMessage["status"], to: InboxMessage["status"], fields: Record<string, unknown> = {}): Promise<boolean> {
    const names: Record<string, string> = { "#status": "status" };
    const values: Record<string, unknown> = { ":to": to, ":from": from };
    const sets = ["#status = :to"];
    Object.entries(fields).forEach(([name, value], i) => {
      names[`#f${i}`] = name;
      values[`:f${i}`] = value;
      sets.push(`#f${i} = :f${i}`);
    });
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: { pk: inboxPk(workspace, executionId), sk: seqKey(seq) },
          UpdateExpression: `SET ${sets.join(", ")}`,
          ConditionExpression: "attribute_exists(sk) AND #status = :from",
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
    return out !== undefined;
  },

  /** Records a top-level state the run entered (a reset point). */
  async addStep(step: RunStep): Promise<void> {
    await documents.send(
      new PutCommand({ TableName: table(), Item: { pk: stepsPk(step.workspace, step.runId), sk: `AT#${String(step.atMs).padStart(15, "0")}#${step.id}`, ...step } }),
    );
  },

  /** The run's steps in the order it entered them. */
  async steps(workspace: string, runId: string): Promise<RunStep[]> {
    const items = await queryAll({ TableName: table(), KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": stepsPk(workspace, runId) }, ConsistentRead: true });
    return items.map((item) => strip<RunStep>(item));
  },

  /** A closed run's history as last built (runs do not change once closed). */
  async cachedHistory(workspace: string, runId: string): Promise<unknown[] | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: { pk: `HISTORY#${workspace}`, sk: `RUN#${runId}` } }));
    return out.Item ? (JSON.parse(String(out.Item.events)) as unknown[]) : undefined;
  },

  async cacheHistory(workspace: string, runId: string, events: unknown[]): Promise<void> {
    const text = JSON.stringify(events);
    // An item holds at most 400 KB: a longer history is built again on every read.
    if (Buffer.byteLength(text) > 350_000) return;
    await documents.send(new PutCommand({ TableName: table(), Item: { pk: `HISTORY#${workspace}`, sk: `RUN#${runId}`, events: text } }));
  },
};

const waiterKey = (waiter: Pick<InboxWaiter, "runId" | "state" | "token">) => `WAIT#${waiter.runId}#${waiter.state}#${tokenHash(waiter.token)}`;

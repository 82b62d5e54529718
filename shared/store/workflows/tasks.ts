import { createHash } from "node:crypto";
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import type { ExecutionFailure, TaskRecord, TaskStatus } from "../../domain/workflows/records.js";
import { batchGetAll, documents, ifConditionHolds } from "../client.js";
import { queryAll } from "../query.js";
import { runStore } from "./runs.js";

/**
 * Activity tasks (docs/workflows.md, `executions` table, `WS#<ws>` / `TASK#<taskId>`). A PENDING task
 * carries `queueKey = <ws>#<deployment>` and `createdKey`, which put it in the `queue` index the
 * deployment's workers poll, oldest first; claiming it removes `queueKey`, so a claimed task leaves the
 * queue. Every move is conditional on the status (and, once claimed, on the claiming worker), so a task
 * goes to one worker and is closed once, however many calls race.
 *
 * Each task also has a small lookup item, `TASKOF#<runId>#<state>#<inputHash>#<createdKey>`, in the same
 * partition: the dispatcher finds the earlier tasks of one (run, state, input) through it (attempts, and
 * re-binding a task to a new token after the local engine restarted).
 */
const table = () => tableName("executions");
const ws = (workspace: string) => `WS#${workspace}`;
const taskKey = (workspace: string, taskId: string) => ({ pk: ws(workspace), sk: `TASK#${taskId}` });
const runLookupPrefix = (runId: string) => `TASKOF#${runId}#`;
const lookupPrefix = (runId: string, state: string, inputHash: string) => `${runLookupPrefix(runId)}${state}#${inputHash}#`;
/** Which dispatches are the same call: the SHA-256 of the input's JSON (Step Functions writes a state's Parameters in a fixed order). */
export const inputHashOf = (input: unknown): string => createHash("sha256").update(JSON.stringify(input ?? null)).digest("hex");

export const queueKeyOf = (workspace: string, deployment: string) => `${workspace}#${deployment}`;

/** How long a closed task stays readable (a late worker call still gets its 409, not a 404). */
export const CLOSED_TASK_RETENTION_SECONDS = 7 * 24 * 3600;
/** Lookup items outlive any execution (Step Functions runs one for at most a year). */
const LOOKUP_RETENTION_SECONDS = 400 * 24 * 3600;
/** Queue entries read per query: claims race, so a poller looks a little past the first. */
const QUEUE_PAGE = 10;
const QUEUE_PAGES = 5;

/** A task as stored: the record, plus what the dispatcher and the worker routes need to know of it. */
export interface StoredTask extends TaskRecord {
  /** SHA-256 of the task's input (JSON): which dispatches are the same call. */
  inputHash: string;
  createdAtMs: number;
  /** When it was completed, failed or expired. */
  closedAtMs?: number;
  /** Its result reached Step Functions (the token was completed): a later dispatch must not reuse it. */
  delivered?: boolean;
  /** The worker's retry hint on fail (recorded; retrying is the program's Retry's decision). */
  retryable?: boolean;
}

const KEYS = ["pk", "sk", "queueKey", "createdKey", "ttl"];
function strip(item: Record<string, unknown>): StoredTask {
  const copy = { ...item };
  for (const key of KEYS) delete copy[key];
  return copy as unknown as StoredTask;
}

const createdKeyOf = (task: Pick<StoredTask, "createdAtMs" | "taskId">) => `${String(task.createdAtMs).padStart(15, "0")}#${task.taskId}`;
const OPEN: TaskStatus[] = ["PENDING", "CLAIMED"];

async function update(
  workspace: string,
  taskId: string,
  expression: { set: Record<string, unknown>; remove?: string },
  condition: { statuses: TaskStatus[]; worker?: string },
): Promise<StoredTask | undefined> {
  const entries = Object.entries(expression.set).filter(([, value]) => value !== undefined);
  const names: Record<string, string> = { "#status": "status", ...Object.fromEntries(entries.map(([name], i) => [`#f${i}`, name])) };
  const values: Record<string, unknown> = {
    ...Object.fromEntries(entries.map(([, value], i) => [`:v${i}`, value])),
    ...Object.fromEntries(condition.statuses.map((s, i) => [`:from${i}`, s])),
  };
  let conditionExpression = `attribute_exists(sk) AND #status IN (${condition.statuses.map((_, i) => `:from${i}`).join(", ")})`;
  if (condition.worker !== undefined) {
    names["#worker"] = "workerName";
    values[":worker"] = condition.worker;
    conditionExpression += " AND #worker = :worker";
  }
  if (expression.remove) names["#remove"] = expression.remove;
  const out = await ifConditionHolds(
    documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: taskKey(workspace, taskId),
        UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(", ")}${expression.remove ? " REMOVE #remove" : ""}`,
        ConditionExpression: conditionExpression,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: "ALL_NEW",
      }),
    ),
  );
  return out?.Attributes ? strip(out.Attributes) : undefined;
}

const closedTtl = (nowMs: number) => Math.floor(nowMs / 1000) + CLOSED_TASK_RETENTION_SECONDS;

export const taskStore = {
  /** Writes a new PENDING task into its deployment's queue, with its lookup item. */
  async create(task: StoredTask): Promise<void> {
    const createdKey = createdKeyOf(task);
    await documents.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: table(),
              Item: { ...taskKey(task.workspace, task.taskId), ...task, status: "PENDING", queueKey: queueKeyOf(task.workspace, task.deploymentName), createdKey },
              ConditionExpression: "attribute_not_exists(sk)",
            },
          },
          {
            Put: {
              TableName: table(),
              Item: {
                pk: ws(task.workspace),
                sk: `${lookupPrefix(task.runId, task.state, task.inputHash)}${createdKey}`,
                taskId: task.taskId,
                ttl: Math.floor(task.createdAtMs / 1000) + LOOKUP_RETENTION_SECONDS,
              },
            },
          },
        ],
      }),
    );
  },

  async get(workspace: string, taskId: string): Promise<StoredTask | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: taskKey(workspace, taskId), ConsistentRead: true }));
    return out.Item ? strip(out.Item) : undefined;
  },

  /** Every task dispatched for one (run, state, input), oldest first (tasks already gone by TTL are left out). */
  async tasksOf(workspace: string, runId: string, state: string, inputHash: string): Promise<StoredTask[]> {
    const lookups = await queryAll({
      TableName: table(),
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      ExpressionAttributeValues: { ":pk": ws(workspace), ":prefix": lookupPrefix(runId, state, inputHash) },
      ConsistentRead: true,
    });
    if (!lookups.length) return [];
    const ids = lookups.map((item) => item.taskId as string);
    const found = new Map((await batchGetAll(table(), ids.map((id) => taskKey(workspace, id)))).map((item) => [item.taskId as string, strip(item)]));
    return ids.flatMap((id) => (found.has(id) ? [found.get(id)!] : []));
  },

  /** Whether a worker holds one of the run's tasks now (CLAIMED), read through the run's task lookups. */
  async hasClaimed(workspace: string, runId: string): Promise<boolean> {
    const lookups = await queryAll({
      TableName: table(),
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      ExpressionAttributeValues: { ":pk": ws(workspace), ":prefix": runLookupPrefix(runId) },
      ConsistentRead: true,
    });
    if (!lookups.length) return false;
    const tasks = await batchGetAll(table(), lookups.map((item) => taskKey(workspace, item.taskId as string)));
    return tasks.some((task) => task.status === "CLAIMED");
  },

  /**
   * Claims the oldest PENDING task of the deployment's queue for `workerName` (only tasks of `activities`
   * when given). A task whose run is no longer RUNNING is expired on the way, never handed out. Two
   * workers polling at once never get the same task: the claim is conditional on PENDING.
   */
  async claimNext(workspace: string, deployment: string, workerName: string, activities?: readonly string[], nowMs: number = Date.now()): Promise<StoredTask | undefined> {
    let startKey: Record<string, unknown> | undefined;
    for (let page = 0; page < QUEUE_PAGES; page += 1) {
      const out = await documents.send(
        new QueryCommand({
          TableName: table(),
          IndexName: "queue",
          KeyConditionExpression: "queueKey = :queue",
          ExpressionAttributeValues: { ":queue": queueKeyOf(workspace, deployment) },
          ScanIndexForward: true,
          Limit: QUEUE_PAGE,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of out.Items ?? []) {
        const candidate = strip(item);
        // The index is eventually consistent: a task another worker just claimed may still be listed.
        if (candidate.status !== "PENDING") continue;
        if (activities?.length && !activities.includes(candidate.activity)) continue;
        const run = await runStore.get(workspace, candidate.runId);
        if (run?.status !== "RUNNING") {
          await taskStore.expire(workspace, candidate.taskId, nowMs);
          continue;
        }
        const claimed = await update(
          workspace,
          candidate.taskId,
          { set: { status: "CLAIMED", workerName, claimedAtMs: nowMs, lastHeartbeatMs: nowMs }, remove: "queueKey" },
          { statuses: ["PENDING"] },
        );
        if (claimed) return claimed;
      }
      startKey = out.LastEvaluatedKey;
      if (!startKey) return undefined;
    }
    return undefined;
  },

  /** Records a heartbeat of the claiming worker; undefined when the task is not CLAIMED by it. */
  heartbeat: (workspace: string, taskId: string, workerName: string, nowMs: number) =>
    update(workspace, taskId, { set: { lastHeartbeatMs: nowMs } }, { statuses: ["CLAIMED"], worker: workerName }),

  /** CLAIMED by `workerName` → COMPLETED with its result; undefined when it was not. */
  complete: (workspace: string, taskId: string, workerName: string, result: unknown, nowMs: number) =>
    update(workspace, taskId, { set: { status: "COMPLETED", result: result ?? null, closedAtMs: nowMs, ttl: closedTtl(nowMs) } }, { statuses: ["CLAIMED"], worker: workerName }),

  /** CLAIMED by `workerName` → FAILED with its failure; undefined when it was not. */
  fail: (workspace: string, taskId: string, workerName: string, failure: ExecutionFailure, retryable: boolean | undefined, nowMs: number) =>
    update(workspace, taskId, { set: { status: "FAILED", failure, retryable, closedAtMs: nowMs, ttl: closedTtl(nowMs) } }, { statuses: ["CLAIMED"], worker: workerName }),

  /** An open task (PENDING or CLAIMED) → EXPIRED: its run ended, or Step Functions gave up on it and dispatched again. */
  expire: (workspace: string, taskId: string, nowMs: number) =>
    update(workspace, taskId, { set: { status: "EXPIRED", closedAtMs: nowMs, ttl: closedTtl(nowMs) }, remove: "queueKey" }, { statuses: OPEN }),

  /** Gives an open task the token of a new dispatch of the same call (the local engine restarted and resumed the run). */
  rebind: (workspace: string, taskId: string, token: string) => update(workspace, taskId, { set: { token } }, { statuses: OPEN }),

  /** Marks a COMPLETED task's result as handed to Step Functions. */
  markDelivered: (workspace: string, taskId: string) => update(workspace, taskId, { set: { delivered: true } }, { statuses: ["COMPLETED"] }),
};

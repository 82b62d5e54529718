import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import type { ExecutionRecord, RunRecord } from "../../domain/workflows/records.js";
import { isClosed, sourcesOf, WORKFLOW_STATUSES, type StopIntent, type WorkflowStatus } from "../../domain/workflows/statuses.js";
import { documents, ifConditionHolds, ifTransactionHolds, setFields } from "../client.js";
import { queryAll } from "../query.js";
import { keyFits } from "../../domain/storage-limits.js";

/**
 * Executions and runs (docs/workflows.md, `executions` table). A run is written with its execution in
 * one transaction; every status change moves the run and, while it is the latest, the execution with it.
 */
const table = () => tableName("executions");
const ws = (workspace: string) => `WS#${workspace}`;
export const executionKey = (workspace: string, executionId: string) => ({ pk: ws(workspace), sk: `EXEC#${executionId}` });
export const runKey = (workspace: string, runId: string) => ({ pk: ws(workspace), sk: `RUN#${runId}` });
const runPointerKey = (runId: string) => ({ pk: `RUN#${runId}`, sk: "RUN" });

/** Sort keys of the runs' local indexes: by start, by end (closed runs only), by workflow then start. */
const startKey = (run: Pick<RunRecord, "startTime" | "runId">) => `${run.startTime}#${run.runId}`;
const endKey = (run: Pick<RunRecord, "endTime" | "runId">) => (run.endTime ? `${run.endTime}#${run.runId}` : undefined);
const workflowStartKey = (run: Pick<RunRecord, "workflowName" | "startTime" | "runId">) => `${run.workflowName}#${run.startTime}#${run.runId}`;

/**
 * Open runs carry `openKey`, one of OPEN_SHARDS partitions of the sparse `openRuns` index (by run id), so
 * the reconciler lists runs still open without a scan and no single index partition takes every start.
 */
export const OPEN_SHARDS = 8;
export const openKeyOf = (runId: string) => `OPEN#${parseInt(runId.replace(/-/g, "").slice(-2), 16) % OPEN_SHARDS || 0}`;

const STRIP = ["pk", "sk", "startKey", "endKey", "workflowStartKey", "openKey", "ttl"];
function strip<T>(item: Record<string, unknown>): T {
  const copy = { ...item };
  for (const key of STRIP) delete copy[key];
  return copy as T;
}

export function executionOf(run: RunRecord, deadlineMs: number | null): ExecutionRecord {
  return {
    workspace: run.workspace,
    executionId: run.executionId,
    latestRunId: run.runId,
    status: run.status,
    workflowId: run.workflowId,
    workflowName: run.workflowName,
    rootExecutionId: run.rootExecutionId,
    parentExecutionId: run.parentExecutionId,
    deploymentName: run.deploymentName,
    userId: run.userId,
    startTime: run.startTime,
    endTime: run.endTime,
    result: run.result,
    deadlineMs,
  };
}

/** Where a page of runs ended: the last run and its index key. */
export interface RunPosition {
  runId: string;
  key: string;
}

export type RunMove = Partial<Pick<RunRecord, "result" | "failure" | "endTime" | "intent" | "cancelRequested">>;

export const runStore = {
  /**
   * Writes a new run as its execution's latest. Refused (false) while the execution has an open run:
   * an execution id names one running thing at a time, and may be used again once it closed. With
   * `follows`, the run continues that run's execution (the execution keeps its deadline).
   */
  async start(run: RunRecord, deadlineMs: number | null, follows?: { runId: string; status: WorkflowStatus }): Promise<boolean> {
    const execution = executionOf(run, deadlineMs);
    const closed = WORKFLOW_STATUSES.filter(isClosed);
    // A run that follows another in its execution (continue-as-new, a retry) is written only while that one is
    // still the latest and in `follows.status`: two writers following the same run make one next run.
    const condition = follows
      ? { ConditionExpression: "latestRunId = :previous AND #status = :previousStatus", ExpressionAttributeValues: { ":previous": follows.runId, ":previousStatus": follows.status } }
      : { ConditionExpression: `(attribute_not_exists(sk) OR #status IN (${closed.map((_, i) => `:c${i}`).join(", ")}))`, ExpressionAttributeValues: Object.fromEntries(closed.map((s, i) => [`:c${i}`, s])) };
    const out = await ifTransactionHolds(
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: table(),
                Item: { ...executionKey(run.workspace, run.executionId), ...execution },
                ...condition,
                ExpressionAttributeNames: { "#status": "status" },
              },
            },
            {
              Put: {
                TableName: table(),
                Item: {
                  ...runKey(run.workspace, run.runId),
                  ...run,
                  startKey: startKey(run),
                  workflowStartKey: workflowStartKey(run),
                  ...(isClosed(run.status) ? { endKey: endKey(run) } : { openKey: openKeyOf(run.runId) }),
                },
                ConditionExpression: "attribute_not_exists(sk)",
              },
            },
            { Put: { TableName: table(), Item: { ...runPointerKey(run.runId), workspace: run.workspace }, ConditionExpression: "attribute_not_exists(sk)" } },
          ],
        }),
      ),
    );
    return out !== undefined;
  },

  async getExecution(workspace: string, executionId: string): Promise<ExecutionRecord | undefined> {
    // An id too long to be a key names nothing (rather than DynamoDB's ValidationException).
    if (!keyFits(executionKey(workspace, executionId).sk, "sort")) return undefined;
    const out = await documents.send(new GetCommand({ TableName: table(), Key: executionKey(workspace, executionId), ConsistentRead: true }));
    return out.Item ? strip<ExecutionRecord>(out.Item) : undefined;
  },

  async get(workspace: string, runId: string): Promise<RunRecord | undefined> {
    if (!keyFits(runKey(workspace, runId).sk, "sort")) return undefined;
    const out = await documents.send(new GetCommand({ TableName: table(), Key: runKey(workspace, runId), ConsistentRead: true }));
    return out.Item ? strip<RunRecord>(out.Item) : undefined;
  },

  /** A run by its id alone (the Step Functions execution name): for the engine's handlers, which start from it. */
  async find(runId: string): Promise<RunRecord | undefined> {
    const pointer = await documents.send(new GetCommand({ TableName: table(), Key: runPointerKey(runId), ConsistentRead: true }));
    const workspace = pointer.Item?.workspace as string | undefined;
    return workspace ? runStore.get(workspace, runId) : undefined;
  },

  /**
   * Moves the run to `to` from a status that allows it, with `fields`; its execution follows while this
   * run is its latest. Returns the moved run, or undefined when the run is gone or already elsewhere.
   */
  async transition(workspace: string, runId: string, to: WorkflowStatus, fields: RunMove = {}): Promise<RunRecord | undefined> {
    const from = sourcesOf(to);
    const set = setFields({ ...fields, status: to, ...(fields.endTime ? { endKey: endKey({ endTime: fields.endTime, runId }) } : {}) });
    const runUpdate = {
      TableName: table(),
      Key: runKey(workspace, runId),
      ...set,
      // A closed run leaves the reconciler's index.
      UpdateExpression: isClosed(to) ? `${set.UpdateExpression} REMOVE openKey` : set.UpdateExpression,
      ConditionExpression: `attribute_exists(sk) AND #current IN (${from.map((_, i) => `:from${i}`).join(", ")})`,
      ExpressionAttributeNames: { ...set.ExpressionAttributeNames, "#current": "status" },
      ExpressionAttributeValues: { ...set.ExpressionAttributeValues, ...Object.fromEntries(from.map((s, i) => [`:from${i}`, s])) },
    };
    const moved = await ifConditionHolds(documents.send(new UpdateCommand({ ...runUpdate, ReturnValues: "ALL_NEW" })));
    if (!moved?.Attributes) return undefined;
    const run = strip<RunRecord>(moved.Attributes);
    // The execution mirrors its latest run; a run that is no longer the latest leaves it alone.
    await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: executionKey(workspace, run.executionId),
          UpdateExpression: "SET #status = :to, #endTime = :endTime, #result = :result",
          ConditionExpression: "latestRunId = :runId",
          ExpressionAttributeNames: { "#status": "status", "#endTime": "endTime", "#result": "result" },
          ExpressionAttributeValues: { ":to": to, ":endTime": run.endTime ?? null, ":result": run.result ?? null, ":runId": runId },
        }),
      ),
    );
    return run;
  },

  /** Records why the run is about to be stopped (or that a cancel was asked), while it is open. False when it is not. */
  async setIntent(workspace: string, runId: string, fields: { intent?: StopIntent; cancelRequested?: boolean }): Promise<boolean> {
    const set = setFields(fields);
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: runKey(workspace, runId),
          ...set,
          ConditionExpression: "attribute_exists(sk) AND #status = :running",
          ExpressionAttributeNames: { ...set.ExpressionAttributeNames, "#status": "status" },
          ExpressionAttributeValues: { ...set.ExpressionAttributeValues, ":running": "RUNNING" },
        }),
      ),
    );
    return out !== undefined;
  },

  /** The last top-level state the run entered, with its input: where a restart of the local engine resumes it. */
  async setCheckpoint(workspace: string, runId: string, checkpoint: RunRecord["checkpoint"]): Promise<void> {
    await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: runKey(workspace, runId),
          UpdateExpression: "SET #checkpoint = :checkpoint",
          ConditionExpression: "attribute_exists(sk) AND #status = :running",
          ExpressionAttributeNames: { "#checkpoint": "checkpoint", "#status": "status" },
          ExpressionAttributeValues: { ":checkpoint": checkpoint, ":running": "RUNNING" },
        }),
      ),
    );
  },
  /** The run's Step Functions execution, once StartExecution named it (it is computed before the start, so a stop racing the start finds it). */
  async setExecutionArn(workspace: string, runId: string, executionArn: string): Promise<void> {
    await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: runKey(workspace, runId),
          UpdateExpression: "SET executionArn = :arn",
          ConditionExpression: "attribute_exists(sk)",
          ExpressionAttributeValues: { ":arn": executionArn },
        }),
      ),
    );
  },

  /**
   * One page of a workspace's runs by start or end time (`byStart`, `byEnd`: closed runs only), between
   * `from` and `to` (index key bounds), after `after` (the last item's position), with `filter`. DynamoDB
   * applies Limit before the filter, so it reads on until the page is full or the range is done.
   */
  async listRuns(
    workspace: string,
    options: {
      by: "start" | "end";
      order: "asc" | "desc";
      limit: number;
      from?: string;
      to?: string;
      after?: RunPosition;
      filter?: Pick<QueryCommandInput, "FilterExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues">;
    },
  ): Promise<{ items: RunRecord[]; last?: RunPosition }> {
    const attribute = options.by === "start" ? "startKey" : "endKey";
    // DynamoDB refuses a BETWEEN whose bounds are reversed: such a range holds nothing.
    if ((options.from ?? "0000") > (options.to ?? "~")) return { items: [] };
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined = options.after ? { ...runKey(workspace, options.after.runId), [attribute]: options.after.key } : undefined;
    let more = false;
    do {
      const out = await documents.send(
        new QueryCommand({
          TableName: table(),
          IndexName: options.by === "start" ? "byStart" : "byEnd",
          KeyConditionExpression: `pk = :pk AND #sort BETWEEN :from AND :to`,
          ScanIndexForward: options.order === "asc",
          ExclusiveStartKey: startKey,
          Limit: Math.min(1000, options.limit - items.length),
          ConsistentRead: true,
          ...options.filter,
          ExpressionAttributeNames: { ...options.filter?.ExpressionAttributeNames, "#sort": attribute },
          ExpressionAttributeValues: { ...options.filter?.ExpressionAttributeValues, ":pk": ws(workspace), ":from": options.from ?? "0000", ":to": options.to ?? "~" },
        }),
      );
      items.push(...(out.Items ?? []));
      startKey = out.LastEvaluatedKey;
      more = Boolean(startKey);
    } while (more && items.length < options.limit);
    const lastItem = items.at(-1);
    return {
      items: items.map((item) => strip<RunRecord>(item)),
      last: more && lastItem ? { runId: String(lastItem.runId), key: String(lastItem[attribute]) } : undefined,
    };
  },

  /** Every run of a workflow that started between `from` and `to` (ISO times, inclusive), oldest first (`byWorkflowStart`). */
  async listWorkflowRuns(workspace: string, workflowName: string, from: string, to: string): Promise<RunRecord[]> {
    if (from > to) return [];
    const items = await queryAll({
      TableName: table(),
      IndexName: "byWorkflowStart",
      KeyConditionExpression: "pk = :pk AND workflowStartKey BETWEEN :from AND :to",
      ExpressionAttributeValues: { ":pk": ws(workspace), ":from": `${workflowName}#${from}`, ":to": `${workflowName}#${to}~` },
    });
    return items.map((item) => strip<RunRecord>(item));
  },

  /** Open runs (every workspace) that started before `before` (ISO), from the sparse `openRuns` index, shard by shard. */
  async listOpenRuns(before: string, limit: number): Promise<Pick<RunRecord, "workspace" | "runId" | "startTime">[]> {
    const found: Pick<RunRecord, "workspace" | "runId" | "startTime">[] = [];
    for (let shard = 0; shard < OPEN_SHARDS && found.length < limit; shard += 1) {
      const items = await queryAll({
        TableName: table(),
        IndexName: "openRuns",
        KeyConditionExpression: "openKey = :shard AND startKey < :before",
        ExpressionAttributeValues: { ":shard": `OPEN#${shard}`, ":before": before },
      });
      for (const item of items) if (found.length < limit) found.push({ workspace: String(item.workspace), runId: String(item.runId), startTime: String(item.startTime) });
    }
    return found;
  },
};

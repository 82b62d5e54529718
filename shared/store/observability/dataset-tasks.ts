/**
 * Dataset import tasks in the `datasets` table, beside their datasets (datasets.ts):
 *
 * | pk | sk | parentKey (byParent) | createdKey | what |
 * |---|---|---|---|---|
 * | `WS#<ws>` | `TASK#<id>` | `<ws>#DS#<datasetId>#TASKS` | `<created>#<id>` | an import task of the dataset |
 *
 * A task's progress moves in the same transaction as the records it covers (`commit`), conditional on the
 * progress it read, so a re-run of an interrupted invocation never writes a record twice or skips one.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { DatasetImportTask } from "../../domain/observability/dataset-imports.js";
import type { DatasetRecord } from "../../domain/observability/datasets.js";
import type { TaskStatus } from "../../schemas/observability/dataset-imports.js";
import { documents, ifConditionHolds, ifTransactionHolds, setFields } from "../client.js";
import { queryCount, queryPage } from "../query.js";
import { datasetItems } from "./datasets.js";

const { table, pk, datasetKey, recordItem, toRecord, recordsParent, listQuery, exists } = datasetItems;
const taskKey = (workspace: string, id: string) => ({ pk: pk(workspace), sk: `TASK#${id}` });
const tasksParent = (workspace: string, datasetId: string) => `${workspace}#DS#${datasetId}#TASKS`;
/**
 * One marker item per RUNNING task, in one partition of its own, so restart recovery finds them with a Query. Written
 * before the task and deleted after it ends: a marker whose task is missing or over is stale, skipped and removed.
 */
const RUNNING_PARTITION = "RUNNING_IMPORTS";
const runningKey = (workspace: string, id: string) => ({ pk: RUNNING_PARTITION, sk: `${workspace}#${id}` });
type Item = Record<string, unknown>;

const toTask = (item: Item): DatasetImportTask => {
  const { pk: _pk, sk: _sk, parentKey: _parent, createdKey: _created, ...rest } = item;
  return rest as unknown as DatasetImportTask;
};

/** What one commit moves: the task's counters and cursor after it, and the records it adds. */
export type TaskProgress = Pick<DatasetImportTask, "cursor" | "line" | "processed" | "imported" | "failed" | "failures">;

export type CommitOutcome = "committed" | "dataset-gone" | "moved";

export const datasetTaskStore = {
  async create(task: DatasetImportTask): Promise<void> {
    await documents.send(new PutCommand({ TableName: table(), Item: { ...runningKey(task.workspace, task.id), workspace: task.workspace, taskId: task.id } }));
    await documents.send(
      new PutCommand({
        TableName: table(),
        Item: { ...task, ...taskKey(task.workspace, task.id), parentKey: tasksParent(task.workspace, task.datasetId), createdKey: `${task.createdAt}#${task.id}` },
        ConditionExpression: "attribute_not_exists(#sk)",
        ExpressionAttributeNames: { "#sk": "sk" },
      }),
    );
  },

  async get(workspace: string, id: string): Promise<DatasetImportTask | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: taskKey(workspace, id), ConsistentRead: true }));
    return out.Item && toTask(out.Item);
  },

  /** A dataset's tasks, oldest first, `size` from `offset`, and how many it has. */
  async page(workspace: string, datasetId: string, offset: number, size: number): Promise<{ tasks: DatasetImportTask[]; count: number }> {
    const query = listQuery(tasksParent(workspace, datasetId));
    const [count, items] = await Promise.all([queryCount(query), size > 0 ? queryPage(query, offset, size) : Promise.resolve([])]);
    return { tasks: items.map(toTask), count };
  },

  /**
   * Writes the records and moves the task to `progress` in one transaction, while the dataset exists, the task is
   * RUNNING and its cursor is still `from`. "dataset-gone" when the dataset is not there; "moved" when another
   * run committed first or the task is over (nothing written either way).
   */
  async commit(task: Pick<DatasetImportTask, "workspace" | "id" | "datasetId">, from: number, progress: TaskProgress, records: DatasetRecord[], updatedAt: string): Promise<CommitOutcome> {
    const set = setFields({ ...progress, updatedAt });
    const out = await ifTransactionHolds(
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { ConditionCheck: { TableName: table(), Key: datasetKey(task.workspace, task.datasetId), ...exists } },
            ...records.map((record) => ({ Put: { TableName: table(), Item: recordItem(record), ConditionExpression: "attribute_not_exists(#sk)", ExpressionAttributeNames: { "#sk": "sk" } } })),
            {
              Update: {
                TableName: table(),
                Key: taskKey(task.workspace, task.id),
                ...set,
                ConditionExpression: "#cursor = :from AND #status = :running",
                ExpressionAttributeNames: { ...set.ExpressionAttributeNames, "#cursor": "cursor", "#status": "status" },
                ExpressionAttributeValues: { ...set.ExpressionAttributeValues, ":from": from, ":running": "RUNNING" },
              },
            },
          ],
        }),
      ),
    );
    if (out !== undefined) return "committed";
    const dataset = await documents.send(new GetCommand({ TableName: table(), Key: datasetKey(task.workspace, task.datasetId), ConsistentRead: true }));
    return dataset.Item ? "moved" : "dataset-gone";
  },

  /** Every RUNNING task of every workspace, for the local engine's restart recovery (infra/local/recovery.ts). */
  async listRunning(): Promise<DatasetImportTask[]> {
    const tasks: DatasetImportTask[] = [];
    let startKey: Item | undefined;
    do {
      const out = await documents.send(
        new QueryCommand({ TableName: table(), KeyConditionExpression: "pk = :running", ExpressionAttributeValues: { ":running": RUNNING_PARTITION }, ExclusiveStartKey: startKey }),
      );
      for (const marker of out.Items ?? []) {
        const task = await datasetTaskStore.get(marker.workspace as string, marker.taskId as string);
        if (task?.status === "RUNNING") tasks.push(task);
        else await documents.send(new DeleteCommand({ TableName: table(), Key: runningKey(marker.workspace as string, marker.taskId as string) }));
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return tasks;
  },

  /** RUNNING → a final status with its message; undefined when the task is gone or over already. */
  async finish(workspace: string, id: string, status: Exclude<TaskStatus, "RUNNING">, message: string, updatedAt: string): Promise<DatasetImportTask | undefined> {
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: taskKey(workspace, id),
          UpdateExpression: "SET #status = :status, #message = :message, #updated = :updated",
          ConditionExpression: "#status = :running",
          ExpressionAttributeNames: { "#status": "status", "#message": "message", "#updated": "updatedAt" },
          ExpressionAttributeValues: { ":status": status, ":message": message, ":updated": updatedAt, ":running": "RUNNING" },
          ReturnValues: "ALL_NEW",
        }),
      ),
    );
    if (out?.Attributes) await documents.send(new DeleteCommand({ TableName: table(), Key: runningKey(workspace, id) }));
    return out?.Attributes && toTask(out.Attributes);
  },
};

/** Every record of a dataset, oldest first, page by page (an export streams them without holding them all). */
export async function* recordsOfDataset(workspace: string, datasetId: string): AsyncGenerator<DatasetRecord> {
  let startKey: Item | undefined;
  do {
    const out = await documents.send(new QueryCommand({ ...listQuery(recordsParent(workspace, datasetId)), ExclusiveStartKey: startKey }));
    for (const item of out.Items ?? []) yield toRecord(item);
    startKey = out.LastEvaluatedKey;
  } while (startKey);
}

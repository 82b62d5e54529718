import { TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import type { ParentTask } from "../../domain/workflows/records.js";
import { documents, ifConditionHolds } from "../client.js";
import { queryAll } from "../query.js";
import { runKey } from "./runs.js";

/**
 * The lifecycle fields of a run and a parent's children (docs/workflows.md, "Continue-as-new, retries,
 * child workflows"); the next run of an execution is `runStore.start(run, deadline, follows)`.
 */
const table = () => tableName("executions");

export const runChainStore = {
  /** Records `platform:continue_as_new`'s input on a running run (false when it is no longer running). */
  async setContinueAsNew(workspace: string, runId: string, input: unknown): Promise<boolean> {
    return setWhileRunning(workspace, runId, "continueAsNew", { input: input ?? null });
  },

  /** Links a child's run to the parent Task waiting for it. */
  async setParentTask(workspace: string, runId: string, parentTask: ParentTask): Promise<boolean> {
    return setWhileRunning(workspace, runId, "parentTask", parentTask);
  },
};

async function setWhileRunning(workspace: string, runId: string, field: string, value: unknown): Promise<boolean> {
  const out = await ifConditionHolds(
    documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: runKey(workspace, runId),
        UpdateExpression: "SET #field = :value",
        ConditionExpression: "attribute_exists(sk) AND #status = :running",
        ExpressionAttributeNames: { "#field": field, "#status": "status" },
        ExpressionAttributeValues: { ":value": value, ":running": "RUNNING" },
      }),
    ),
  );
  return out !== undefined;
}

const childKey = (workspace: string, parentRunId: string, childExecutionId: string) => ({ pk: `WS#${workspace}`, sk: `CHILD#${parentRunId}#${childExecutionId}` });

/** The child executions a run started (`CHILD#<parentRunId>#<childExecutionId>`), and the flag on the parent run that it has some. */
export const childStore = {
  async add(workspace: string, parentRunId: string, childExecutionId: string): Promise<void> {
    await documents.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table(), Item: { ...childKey(workspace, parentRunId, childExecutionId), parentRunId, childExecutionId } } },
          { Update: { TableName: table(), Key: runKey(workspace, parentRunId), UpdateExpression: "SET hasChildren = :yes", ConditionExpression: "attribute_exists(sk)", ExpressionAttributeValues: { ":yes": true } } },
        ],
      }),
    );
  },

  async list(workspace: string, parentRunId: string): Promise<string[]> {
    const items = await queryAll({
      TableName: table(),
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      ExpressionAttributeValues: { ":pk": `WS#${workspace}`, ":prefix": `CHILD#${parentRunId}#` },
    });
    return items.map((item) => String(item.childExecutionId));
  },
};

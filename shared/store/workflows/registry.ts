import * as z from "zod";
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import type { DeploymentRecord, Registrant, RegistrationRecord, WorkerRecord, WorkflowRecord } from "../../domain/workflows/records.js";
import { InvalidPageToken } from "../../domain/errors.js";
import { keyFits } from "../../domain/storage-limits.js";
import { documents, ifConditionHolds, ifTransactionHolds, setFields } from "../client.js";
import { encodeCursor, readCursor } from "../cursor.js";
import { queryAll } from "../query.js";

/**
 * Workflows, their registrations and published versions, deployments and workers (docs/workflows.md,
 * `workflows` table). A workspace's workflows, registrations and deployments share its partition; each
 * deployment's workers have their own.
 */
const table = () => tableName("workflows");
const ws = (workspace: string) => `WS#${workspace}`;
const workflowKey = (workspace: string, id: string) => ({ pk: ws(workspace), sk: `WF#${id}` });
const nameKey = (workspace: string, name: string) => ({ pk: ws(workspace), sk: `WFNAME#${name}` });
const registrationKey = (workspace: string, id: string) => ({ pk: ws(workspace), sk: `REG#${id}` });
const registrationIdentity = (workspace: string, workflowId: string, deployment: string, hash: string) => ({
  pk: ws(workspace),
  sk: `REGKEY#${workflowId}#${deployment}#${hash}`,
});
const versionKey = (workflowId: string, hash: string) => ({ pk: `MACHINE#${workflowId}`, sk: `VERSION#${hash}` });
const deploymentKey = (workspace: string, name: string) => ({ pk: ws(workspace), sk: `DEP#${name}` });
const workerKey = (workspace: string, deployment: string, name: string) => ({ pk: `${ws(workspace)}#DEP#${deployment}`, sk: `WORKER#${name}` });

/** Sort keys of the workflows' local indexes (only workflow items carry them). */
const createdKey = (w: Pick<WorkflowRecord, "createdAt" | "id">) => `${w.createdAt}#${w.id}`;
const displayNameKey = (w: Pick<WorkflowRecord, "displayName" | "id">) => `${w.displayName.toLowerCase().slice(0, 200)}\u0001${w.id}`;

/** What a workflows cursor holds: the sort and order it belongs to, and the last item's keys. */
const workflowCursor = z.strictObject({
  s: z.enum(["created", "display_name"]),
  o: z.enum(["asc", "desc"]),
  sk: z.string().startsWith("WF#").max(300),
  k: z.string().min(1).max(600),
});

const KEYS = ["pk", "sk", "createdKey", "nameKey", "ttl"];
function strip<T>(item: Record<string, unknown>): T {
  const copy = { ...item };
  for (const key of KEYS) delete copy[key];
  return copy as T;
}

async function getItem<T>(key: Record<string, string>): Promise<T | undefined> {
  // A name or id too long to be a key names nothing (rather than DynamoDB's ValidationException).
  if (!keyFits(key.pk, "partition") || !keyFits(key.sk, "sort")) return undefined;
  const out = await documents.send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }));
  return out.Item ? strip<T>(out.Item) : undefined;
}

/** How long a worker record outlives its last heartbeat (the liveness window is much shorter). */
const WORKER_RETENTION_SECONDS = 7 * 24 * 3600;

export const workflowRegistry = {
  /**
   * The workspace's workflow named `workflow.name`, creating it (with its name claim, in one transaction)
   * when there is none. Concurrent first registrations of one name end with one workflow.
   */
  async ensureWorkflow(workflow: WorkflowRecord): Promise<WorkflowRecord> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const owner = await getItem<{ workflowId: string }>(nameKey(workflow.workspace, workflow.name));
      if (owner) {
        const existing = await workflowRegistry.getWorkflow(workflow.workspace, owner.workflowId);
        if (existing) return existing;
      }
      const written = await ifTransactionHolds(
        documents.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: table(), Item: { ...nameKey(workflow.workspace, workflow.name), workflowId: workflow.id }, ConditionExpression: "attribute_not_exists(sk)" } },
              {
                Put: {
                  TableName: table(),
                  Item: { ...workflowKey(workflow.workspace, workflow.id), ...workflow, createdKey: createdKey(workflow), nameKey: displayNameKey(workflow) },
                  ConditionExpression: "attribute_not_exists(sk)",
                },
              },
            ],
          }),
        ),
      );
      if (written) return workflow;
    }
    throw new Error(`Could not claim workflow name ${workflow.name}`);
  },

  getWorkflow: (workspace: string, id: string) => getItem<WorkflowRecord>(workflowKey(workspace, id)),

  /** A workflow by its id or its name (the API's `workflow_identifier`). */
  async findWorkflow(workspace: string, identifier: string): Promise<WorkflowRecord | undefined> {
    const byId = await workflowRegistry.getWorkflow(workspace, identifier);
    if (byId) return byId;
    const owner = await getItem<{ workflowId: string }>(nameKey(workspace, identifier));
    return owner ? workflowRegistry.getWorkflow(workspace, owner.workflowId) : undefined;
  },

  /** Changes the given fields; undefined when there is no such workflow. */
  async updateWorkflow(
    workspace: string,
    id: string,
    fields: Partial<Pick<WorkflowRecord, "displayName" | "description" | "tags" | "availableInChatAssistant" | "archived" | "updatedAt">>,
  ): Promise<WorkflowRecord | undefined> {
    const extra = fields.displayName !== undefined ? { nameKey: displayNameKey({ displayName: fields.displayName, id }) } : {};
    const set = setFields({ ...fields, ...extra });
    const out = await ifConditionHolds(
      documents.send(new UpdateCommand({ TableName: table(), Key: workflowKey(workspace, id), ...set, ConditionExpression: "attribute_exists(sk)", ReturnValues: "ALL_NEW" })),
    );
    return out?.Attributes ? strip<WorkflowRecord>(out.Attributes) : undefined;
  },

  /**
   * One page of a workspace's workflows, by creation or by display name. `after` is the `last` an earlier
   * page returned (an opaque cursor: anything else is refused with a 422 on `cursorParam`); `keep` drops
   * workflows a filter the index cannot express refuses (they are read, not counted).
   */
  async listWorkflows(
    workspace: string,
    options: {
      order: "asc" | "desc";
      sortBy: "created" | "display_name";
      limit: number;
      after?: string;
      filter?: Pick<QueryCommandInput, "FilterExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues">;
      keep?: (workflow: WorkflowRecord) => boolean;
      cursorParam?: string;
    },
  ): Promise<{ items: WorkflowRecord[]; last?: string }> {
    const index = options.sortBy === "display_name" ? { name: "byName", attribute: "nameKey" } : { name: "byCreated", attribute: "createdKey" };
    const position = options.after === undefined ? undefined : readCursor(options.after, workflowCursor, options.cursorParam ?? "cursor");
    // A cursor of the other order or sort names a position in another sequence: refused like any other foreign token.
    if (position && (position.s !== options.sortBy || position.o !== options.order)) throw new InvalidPageToken(options.cursorParam ?? "cursor");
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined = position ? { pk: ws(workspace), sk: position.sk, [index.attribute]: position.k } : undefined;
    let stoppedEarly = false;
    do {
      const out = await documents.send(
        new QueryCommand({
          TableName: table(),
          IndexName: index.name,
          KeyConditionExpression: "pk = :pk",
          ScanIndexForward: options.order === "asc",
          ExclusiveStartKey: startKey,
          Limit: Math.min(1000, options.limit - items.length),
          ...options.filter,
          ExpressionAttributeValues: { ...options.filter?.ExpressionAttributeValues, ":pk": ws(workspace) },
        }),
      );
      const page = out.Items ?? [];
      for (const [i, item] of page.entries()) {
        if (options.keep && !options.keep(strip<WorkflowRecord>(item))) continue;
        items.push(item);
        if (items.length === options.limit) {
          stoppedEarly = i < page.length - 1;
          break;
        }
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey && items.length < options.limit);
    const lastItem = items.at(-1);
    return {
      items: items.map((item) => strip<WorkflowRecord>(item)),
      last:
        (startKey || stoppedEarly) && lastItem
          ? encodeCursor({ s: options.sortBy, o: options.order, sk: lastItem.sk as string, k: lastItem[index.attribute] as string })
          : undefined,
    };
  },

  /** The published version of a workflow's program with this hash, if it was published. */
  async getVersion(workflowId: string, hash: string): Promise<string | undefined> {
    return (await getItem<{ versionArn: string }>(versionKey(workflowId, hash)))?.versionArn;
  },

  async putVersion(workflowId: string, hash: string, versionArn: string): Promise<void> {
    await documents.send(new PutCommand({ TableName: table(), Item: { ...versionKey(workflowId, hash), versionArn } }));
  },

  /**
   * The registration of (workflow, deployment, program hash), creating it when there is none: a worker
   * that registers the same program again every few seconds changes nothing.
   */
  async ensureRegistration(registration: RegistrationRecord): Promise<{ registration: RegistrationRecord; created: boolean }> {
    const identity = registrationIdentity(registration.workspace, registration.workflowId, registration.deploymentName, registration.programHash);
    const existing = await getItem<{ registrationId: string }>(identity);
    if (existing) {
      const found = await workflowRegistry.getRegistration(registration.workspace, existing.registrationId);
      if (found) return { registration: found, created: false };
    }
    const written = await ifTransactionHolds(
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: table(), Item: { ...identity, registrationId: registration.id }, ConditionExpression: "attribute_not_exists(sk)" } },
            { Put: { TableName: table(), Item: { ...registrationKey(registration.workspace, registration.id), ...registration }, ConditionExpression: "attribute_not_exists(sk)" } },
          ],
        }),
      ),
    );
    if (written) return { registration, created: true };
    // Another worker of the deployment registered it at the same moment: theirs is the one.
    const winner = await getItem<{ registrationId: string }>(identity);
    const found = winner && (await workflowRegistry.getRegistration(registration.workspace, winner.registrationId));
    if (!found) throw new Error("Registration vanished while it was being created");
    return { registration: found, created: false };
  },

  getRegistration: (workspace: string, id: string) => getItem<RegistrationRecord>(registrationKey(workspace, id)),

  /** Every registration in the workspace (registrations per workspace stay in the thousands). */
  async listRegistrations(workspace: string): Promise<RegistrationRecord[]> {
    const items = await queryAll({
      TableName: table(),
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :reg)",
      ExpressionAttributeValues: { ":pk": ws(workspace), ":reg": "REG#" },
    });
    return items.map((item) => strip<RegistrationRecord>(item));
  },

  /** The deployment, created (not stopped) when it does not exist yet. */
  async ensureDeployment(deployment: DeploymentRecord): Promise<DeploymentRecord> {
    await ifConditionHolds(
      documents.send(new PutCommand({ TableName: table(), Item: { ...deploymentKey(deployment.workspace, deployment.name), ...deployment }, ConditionExpression: "attribute_not_exists(sk)" })),
    );
    return (await workflowRegistry.getDeployment(deployment.workspace, deployment.name))!;
  },

  getDeployment: (workspace: string, name: string) => getItem<DeploymentRecord>(deploymentKey(workspace, name)),

  /** Writes a new deployment; false when one of that name exists. */
  async createDeployment(deployment: DeploymentRecord): Promise<boolean> {
    const out = await ifConditionHolds(
      documents.send(new PutCommand({ TableName: table(), Item: { ...deploymentKey(deployment.workspace, deployment.name), ...deployment }, ConditionExpression: "attribute_not_exists(sk)" })),
    );
    return out !== undefined;
  },

  /** Changes the given fields of an existing deployment; undefined when there is none. */
  async updateDeployment(
    workspace: string,
    name: string,
    fields: Partial<Pick<DeploymentRecord, "stopped" | "managed" | "principals" | "openedAt" | "restartedAt" | "rolloutStatus" | "updatedAt" | "updatedBy">>,
  ): Promise<DeploymentRecord | undefined> {
    const key = deploymentKey(workspace, name);
    if (!keyFits(key.pk, "partition") || !keyFits(key.sk, "sort")) return undefined;
    const out = await ifConditionHolds(
      documents.send(new UpdateCommand({ TableName: table(), Key: key, ...setFields(fields), ConditionExpression: "attribute_exists(sk)", ReturnValues: "ALL_NEW" })),
    );
    return out?.Attributes ? strip<DeploymentRecord>(out.Attributes) : undefined;
  },

  /**
   * Gives a legacy deployment (no principals, never opened on purpose) its authorized set; false when it is
   * not legacy any more (another register adopted it, or an admin changed it).
   */
  async adoptDeployment(workspace: string, name: string, principals: string[], at: string): Promise<boolean> {
    const key = deploymentKey(workspace, name);
    if (!keyFits(key.pk, "partition") || !keyFits(key.sk, "sort")) return false;
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: key,
          UpdateExpression: "SET #principals = :principals, #updated = :at",
          ConditionExpression: "attribute_exists(sk) AND (attribute_not_exists(#principals) OR size(#principals) = :zero) AND (attribute_not_exists(#opened) OR #opened = :null)",
          ExpressionAttributeNames: { "#principals": "principals", "#updated": "updatedAt", "#opened": "openedAt" },
          ExpressionAttributeValues: { ":principals": principals, ":at": at, ":zero": 0, ":null": null },
        }),
      ),
    );
    return out !== undefined;
  },

  /** Records who registered a registration made before registrants were recorded (once: never replaces one). */
  async setRegistrant(workspace: string, id: string, registrant: Registrant): Promise<boolean> {
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: registrationKey(workspace, id),
          UpdateExpression: "SET #by = :by",
          ConditionExpression: "attribute_exists(sk) AND (attribute_not_exists(#by) OR #by = :null)",
          ExpressionAttributeNames: { "#by": "registeredBy" },
          ExpressionAttributeValues: { ":by": registrant, ":null": null },
        }),
      ),
    );
    return out !== undefined;
  },

  /** Gives a workflow made before owners were recorded its owner (once: never replaces one). */
  async claimWorkflowOwner(workspace: string, id: string, owner: Registrant): Promise<boolean> {
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: workflowKey(workspace, id),
          UpdateExpression: "SET #owner = :owner",
          ConditionExpression: "attribute_exists(sk) AND (attribute_not_exists(#owner) OR #owner = :null)",
          ExpressionAttributeNames: { "#owner": "owner" },
          ExpressionAttributeValues: { ":owner": owner, ":null": null },
        }),
      ),
    );
    return out !== undefined;
  },

  /** Removes the deployment's record (its registrations stay for the runs that use them; routing skips them). */
  async deleteDeployment(workspace: string, name: string): Promise<boolean> {
    const key = deploymentKey(workspace, name);
    if (!keyFits(key.pk, "partition") || !keyFits(key.sk, "sort")) return false;
    const out = await ifConditionHolds(documents.send(new DeleteCommand({ TableName: table(), Key: key, ConditionExpression: "attribute_exists(sk)" })));
    return out !== undefined;
  },

  /** Asks each of the deployment's workers to restart: the flag stays until the worker registers again (a full put). */
  async flagWorkersForRestart(workspace: string, deployment: string): Promise<number> {
    const workers = await workflowRegistry.listWorkers(workspace, deployment);
    for (const worker of workers) {
      await ifConditionHolds(
        documents.send(
          new UpdateCommand({
            TableName: table(),
            Key: workerKey(workspace, deployment, worker.name),
            UpdateExpression: "SET #restart = :yes",
            ConditionExpression: "attribute_exists(sk)",
            ExpressionAttributeNames: { "#restart": "restartRequested" },
            ExpressionAttributeValues: { ":yes": true },
          }),
        ),
      );
    }
    return workers.length;
  },

  getWorker: (workspace: string, deployment: string, name: string) => getItem<WorkerRecord>(workerKey(workspace, deployment, name)),

  async listDeployments(workspace: string): Promise<DeploymentRecord[]> {
    const items = await queryAll({
      TableName: table(),
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :dep)",
      ExpressionAttributeValues: { ":pk": ws(workspace), ":dep": "DEP#" },
    });
    return items.map((item) => strip<DeploymentRecord>(item));
  },

  /** Records a worker's heartbeat (register, poll and task calls all count). */
  async heartbeat(worker: WorkerRecord): Promise<void> {
    await documents.send(
      new PutCommand({
        TableName: table(),
        Item: { ...workerKey(worker.workspace, worker.deploymentName, worker.name), ...worker, ttl: Math.floor(worker.lastHeartbeatMs / 1000) + WORKER_RETENTION_SECONDS },
      }),
    );
  },

  /**
   * A worker's heartbeat that knows nothing of its workflows (polls and task calls): the time and the
   * principal change, the workflows its last registration named stay.
   */
  async touchWorker(worker: Omit<WorkerRecord, "workflows">): Promise<void> {
    await documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: workerKey(worker.workspace, worker.deploymentName, worker.name),
        UpdateExpression: "SET #workspace = :workspace, #deployment = :deployment, #name = :name, #beat = :beat, #principal = :principal, #ttl = :ttl, #workflows = if_not_exists(#workflows, :none)",
        ExpressionAttributeNames: {
          "#workspace": "workspace",
          "#deployment": "deploymentName",
          "#name": "name",
          "#beat": "lastHeartbeatMs",
          "#principal": "principal",
          "#ttl": "ttl",
          "#workflows": "workflows",
        },
        ExpressionAttributeValues: {
          ":workspace": worker.workspace,
          ":deployment": worker.deploymentName,
          ":name": worker.name,
          ":beat": worker.lastHeartbeatMs,
          ":principal": worker.principal,
          ":ttl": Math.floor(worker.lastHeartbeatMs / 1000) + WORKER_RETENTION_SECONDS,
          ":none": [],
        },
      }),
    );
  },

  async listWorkers(workspace: string, deployment: string): Promise<WorkerRecord[]> {
    const items = await queryAll({
      TableName: table(),
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": workerKey(workspace, deployment, "").pk },
      ConsistentRead: true,
    });
    return items.map((item) => strip<WorkerRecord>(item));
  },
};

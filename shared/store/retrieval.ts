/**
 * The retrieval table (shared/store/tables.ts `retrievalTable`, docs/retrieval.md): deployments and
 * pipeline configurations by workspace, keyed by kind and name, found by id through the `byId` index.
 * Registration is one upsert on the name's key; counters change by `ADD`; every write that needs the item
 * to be the one the caller named carries the condition `id = :id`.
 */
import { DeleteCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import type { DeploymentRecord, PipelineRecord } from "../domain/retrieval.js";
import type { DeploymentStatus, VespaDeployment } from "../schemas/retrieval.js";
import { documents, ifConditionHolds } from "./client.js";
import { queryAll } from "./query.js";

const table = () => tableName("retrieval");

type Kind = "DEPLOYMENT" | "PIPELINE";
const nameKey = (workspace: string, kind: Kind, name: string) => ({ workspace, sk: `${kind}#${name}` });
const idKey = (kind: Kind, id: string) => `${kind}#${id}`;
type Item = Record<string, unknown>;

function withoutKeys(item: Item): Item {
  const { sk: _sk, idKey: _idKey, ...rest } = item;
  return rest;
}

const toDeployment = (item: Item): DeploymentRecord => withoutKeys(item) as unknown as DeploymentRecord;

function toPipeline(item: Item): PipelineRecord {
  const rest = withoutKeys(item);
  return { ...rest, lastRunTime: (rest.lastRunTime as string | undefined) ?? null } as unknown as PipelineRecord;
}

async function listKind(workspace: string, kind: Kind): Promise<Item[]> {
  return queryAll({
    TableName: table(),
    KeyConditionExpression: "#ws = :ws AND begins_with(#sk, :kind)",
    ExpressionAttributeNames: { "#ws": "workspace", "#sk": "sk" },
    ExpressionAttributeValues: { ":ws": workspace, ":kind": `${kind}#` },
    ConsistentRead: true,
  });
}

async function findById(workspace: string, kind: Kind, id: string): Promise<Item | undefined> {
  const out = await documents.send(
    new QueryCommand({
      TableName: table(),
      IndexName: "byId",
      KeyConditionExpression: "#ws = :ws AND #idKey = :idKey",
      ExpressionAttributeNames: { "#ws": "workspace", "#idKey": "idKey" },
      ExpressionAttributeValues: { ":ws": workspace, ":idKey": idKey(kind, id) },
      ConsistentRead: true,
    }),
  );
  return out.Items?.[0];
}

export interface DeploymentRegistration {
  workspace: string;
  name: string;
  status: DeploymentStatus;
  deployment: VespaDeployment;
  creatorId: string;
  /** The id a first registration takes; a re-registration keeps the stored one. */
  newId: string;
  now: string;
}

export interface PipelineRegistration {
  workspace: string;
  name: string;
  pipelineComposition: Record<string, string> | null;
  targetIndexes: PipelineRecord["targetIndexes"];
  authorId: string;
  newId: string;
  now: string;
}

export const retrievalStore = {
  async listDeployments(workspace: string): Promise<DeploymentRecord[]> {
    return (await listKind(workspace, "DEPLOYMENT")).map(toDeployment);
  },

  async findDeployment(workspace: string, id: string): Promise<DeploymentRecord | undefined> {
    const item = await findById(workspace, "DEPLOYMENT", id);
    return item && toDeployment(item);
  },

  /** Registers `name`, or replaces its definition and status: one upsert, so racing registrations of a name agree on one id. */
  async registerDeployment(r: DeploymentRegistration): Promise<DeploymentRecord> {
    const out = await documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: nameKey(r.workspace, "DEPLOYMENT", r.name),
        UpdateExpression:
          "SET #id = if_not_exists(#id, :id), #idKey = if_not_exists(#idKey, :idKey), #name = :name, #status = :status, #deployment = :deployment, " +
          "#creatorId = if_not_exists(#creatorId, :creatorId), #createdAt = if_not_exists(#createdAt, :now), #modifiedAt = :now, " +
          "#documentCount = if_not_exists(#documentCount, :zero), #indexCounts = if_not_exists(#indexCounts, :noCounts) ADD #revision :one",
        ExpressionAttributeNames: {
          "#id": "id",
          "#idKey": "idKey",
          "#name": "name",
          "#status": "status",
          "#deployment": "deployment",
          "#creatorId": "creatorId",
          "#createdAt": "createdAt",
          "#modifiedAt": "modifiedAt",
          "#documentCount": "documentCount",
          "#indexCounts": "indexCounts",
          "#revision": "revision",
        },
        ExpressionAttributeValues: {
          ":id": r.newId,
          ":idKey": idKey("DEPLOYMENT", r.newId),
          ":name": r.name,
          ":status": r.status,
          ":deployment": r.deployment,
          ":creatorId": r.creatorId,
          ":now": r.now,
          ":zero": 0,
          ":noCounts": {},
          ":one": 1,
        },
        ReturnValues: "ALL_NEW",
      }),
    );
    return toDeployment(out.Attributes!);
  },

  /** Removes the deployment `record` read, unless it is gone or its name now belongs to another registration. */
  async deleteDeployment(record: DeploymentRecord): Promise<boolean> {
    const out = await ifConditionHolds(
      documents.send(
        new DeleteCommand({
          TableName: table(),
          Key: nameKey(record.workspace, "DEPLOYMENT", record.name),
          ConditionExpression: "#id = :id",
          ExpressionAttributeNames: { "#id": "id" },
          ExpressionAttributeValues: { ":id": record.id },
        }),
      ),
    );
    return out !== undefined;
  },

  /**
   * Sets the status and, when given, the counts (replacing every index's). With `revision`, only while the
   * definition is the one the counts were checked against; false when that or the deployment is gone.
   */
  async setMetrics(
    record: DeploymentRecord,
    change: { status: DeploymentStatus; documentCount?: number; indexCounts?: Record<string, number>; revision?: number; now: string },
  ): Promise<boolean> {
    const names: Record<string, string> = { "#id": "id", "#status": "status", "#modifiedAt": "modifiedAt" };
    const values: Record<string, unknown> = { ":id": record.id, ":status": change.status, ":now": change.now };
    const sets = ["#status = :status", "#modifiedAt = :now"];
    if (change.documentCount !== undefined) {
      names["#documentCount"] = "documentCount";
      values[":documentCount"] = change.documentCount;
      sets.push("#documentCount = :documentCount");
    }
    if (change.indexCounts !== undefined) {
      names["#indexCounts"] = "indexCounts";
      values[":indexCounts"] = change.indexCounts;
      sets.push("#indexCounts = :indexCounts");
    }
    let condition = "#id = :id";
    if (change.revision !== undefined) {
      names["#revision"] = "revision";
      values[":revision"] = change.revision;
      condition += " AND #revision = :revision";
    }
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: nameKey(record.workspace, "DEPLOYMENT", record.name),
          UpdateExpression: `SET ${sets.join(", ")}`,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
    return out !== undefined;
  },

  async listPipelines(workspace: string): Promise<PipelineRecord[]> {
    return (await listKind(workspace, "PIPELINE")).map(toPipeline);
  },

  async findPipeline(workspace: string, id: string): Promise<PipelineRecord | undefined> {
    const item = await findById(workspace, "PIPELINE", id);
    return item && toPipeline(item);
  },

  /** Registers `name`, or replaces its composition and targets: one upsert that keeps the id and the run counters. */
  async registerPipeline(r: PipelineRegistration): Promise<PipelineRecord> {
    const out = await documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: nameKey(r.workspace, "PIPELINE", r.name),
        UpdateExpression:
          "SET #id = if_not_exists(#id, :id), #idKey = if_not_exists(#idKey, :idKey), #name = :name, #composition = :composition, #targets = :targets, " +
          "#authorId = if_not_exists(#authorId, :authorId), #createdAt = if_not_exists(#createdAt, :now), #modifiedAt = :now, " +
          "#lastRunChunks = if_not_exists(#lastRunChunks, :zero), #totalChunks = if_not_exists(#totalChunks, :zero)",
        ExpressionAttributeNames: {
          "#id": "id",
          "#idKey": "idKey",
          "#name": "name",
          "#composition": "pipelineComposition",
          "#targets": "targetIndexes",
          "#authorId": "authorId",
          "#createdAt": "createdAt",
          "#modifiedAt": "modifiedAt",
          "#lastRunChunks": "lastRunChunksCount",
          "#totalChunks": "totalChunksCount",
        },
        ExpressionAttributeValues: {
          ":id": r.newId,
          ":idKey": idKey("PIPELINE", r.newId),
          ":name": r.name,
          ":composition": r.pipelineComposition,
          ":targets": r.targetIndexes,
          ":authorId": r.authorId,
          ":now": r.now,
          ":zero": 0,
        },
        ReturnValues: "ALL_NEW",
      }),
    );
    return toPipeline(out.Attributes!);
  },

  /**
   * Counts one run: `chunks` is added to the total (`ADD`, so concurrent reports all count), and the run
   * becomes the last one only if no later run was reported (a condition on the stored time, so it never
   * moves backwards). The configuration afterwards, or undefined when it is gone.
   */
  async recordRun(record: PipelineRecord, run: { at: string; chunks: number }): Promise<PipelineRecord | undefined> {
    const key = nameKey(record.workspace, "PIPELINE", record.name);
    const latest = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: key,
          UpdateExpression: "SET #lastRunTime = :at, #lastRunChunks = :chunks ADD #totalChunks :chunks",
          ConditionExpression: "#id = :id AND (attribute_not_exists(#lastRunTime) OR #lastRunTime <= :at)",
          ExpressionAttributeNames: { "#id": "id", "#lastRunTime": "lastRunTime", "#lastRunChunks": "lastRunChunksCount", "#totalChunks": "totalChunksCount" },
          ExpressionAttributeValues: { ":id": record.id, ":at": run.at, ":chunks": run.chunks },
          ReturnValues: "ALL_NEW",
        }),
      ),
    );
    if (latest) return toPipeline(latest.Attributes!);
    // A later run is already recorded (or the configuration is gone): count the chunks, keep the last run.
    const earlier = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: key,
          UpdateExpression: "ADD #totalChunks :chunks",
          ConditionExpression: "#id = :id",
          ExpressionAttributeNames: { "#id": "id", "#totalChunks": "totalChunksCount" },
          ExpressionAttributeValues: { ":id": record.id, ":chunks": run.chunks },
          ReturnValues: "ALL_NEW",
        }),
      ),
    );
    return earlier && toPipeline(earlier.Attributes!);
  },
};

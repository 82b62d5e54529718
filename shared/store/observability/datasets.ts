/**
 * Datasets and dataset records in the `datasets` table (shared/store/tables.ts `datasetsTable`):
 *
 * | pk | sk | parentKey (byParent) | createdKey | what |
 * |---|---|---|---|---|
 * | `WS#<ws>` | `DS#<id>` | `<ws>#DATASETS` | `<created>#<id>` | a dataset |
 * | `WS#<ws>` | `REC#<id>` | `<ws>#DS#<datasetId>` | `<created>#<id>` | a record of it |
 * | `WS#<ws>` | `TASK#<id>` | `<ws>#DS#<datasetId>#TASKS` | `<created>#<id>` | an import task (dataset-tasks.ts) |
 * | `RUNNING_IMPORTS` | `<ws>#<taskId>` | | | a RUNNING task's marker, for restart recovery |
 *
 * The workspace is in every key: a caller can only name items of its own workspace.
 */
import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import type { Dataset, DatasetRecord } from "../../domain/observability/datasets.js";
import { batchGetAll, documents, ifConditionHolds, ifTransactionHolds, setFields } from "../client.js";
import { queryAll, queryCount, queryPage } from "../query.js";

const table = () => tableName("datasets");
const pk = (workspace: string) => `WS#${workspace}`;
const datasetKey = (workspace: string, id: string) => ({ pk: pk(workspace), sk: `DS#${id}` });
const recordKey = (workspace: string, id: string) => ({ pk: pk(workspace), sk: `REC#${id}` });
const datasetsParent = (workspace: string) => `${workspace}#DATASETS`;
const recordsParent = (workspace: string, datasetId: string) => `${workspace}#DS#${datasetId}`;
type Item = Record<string, unknown>;

/** A transaction takes 100 actions; a BatchGetItem call 100 keys. */
const TRANSACTION = 100;
const BATCH_GET = 100;

function stripKeys(item: Item): Item {
  const { pk: _pk, sk: _sk, parentKey: _parent, createdKey: _created, ...rest } = item;
  return rest;
}
const toDataset = (item: Item) => stripKeys(item) as unknown as Dataset;
/**
 * A record's payload and properties are kept as JSON text: any JSON object the API accepts is stored as it came
 * (numbers beyond 2^53, empty keys, any depth), which DynamoDB maps and the marshaller would not all take.
 */
const toRecord = (item: Item): DatasetRecord => {
  const { payloadJson, propertiesJson, ...rest } = stripKeys(item);
  return { ...(rest as unknown as DatasetRecord), payload: JSON.parse(String(payloadJson)), properties: JSON.parse(String(propertiesJson)) };
};
const stored = (fields: Partial<Pick<DatasetRecord, "payload" | "properties">>) => ({
  payloadJson: fields.payload === undefined ? undefined : JSON.stringify(fields.payload),
  propertiesJson: fields.properties === undefined ? undefined : JSON.stringify(fields.properties),
});

const datasetItem = (dataset: Dataset): Item => ({
  ...dataset,
  ...datasetKey(dataset.workspace, dataset.id),
  parentKey: datasetsParent(dataset.workspace),
  createdKey: `${dataset.createdAt}#${dataset.id}`,
});
const recordItem = ({ payload, properties, ...record }: DatasetRecord): Item => ({
  ...record,
  ...stored({ payload, properties }),
  ...recordKey(record.workspace, record.id),
  parentKey: recordsParent(record.workspace, record.datasetId),
  createdKey: `${record.createdAt}#${record.id}`,
});

const listQuery = (parent: string, q?: string) => ({
  TableName: table(),
  IndexName: "byParent",
  KeyConditionExpression: "#parent = :parent",
  ExpressionAttributeNames: { "#parent": "parentKey", ...(q ? { "#name": "name" } : {}) },
  ExpressionAttributeValues: { ":parent": parent, ...(q ? { ":q": q } : {}) },
  ...(q ? { FilterExpression: "contains(#name, :q)" } : {}),
});

const exists = { ConditionExpression: "attribute_exists(#sk)", ExpressionAttributeNames: { "#sk": "sk" } };

export type DatasetChanges = Partial<Pick<Dataset, "name" | "description">> & { updatedAt: string };
export type RecordChanges = Partial<Pick<DatasetRecord, "payload" | "properties">> & { updatedAt: string };

export const datasetStore = {
  async get(workspace: string, id: string): Promise<Dataset | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: datasetKey(workspace, id), ConsistentRead: true }));
    return out.Item && toDataset(out.Item);
  },

  async create(dataset: Dataset): Promise<void> {
    await documents.send(new PutCommand({ TableName: table(), Item: datasetItem(dataset), ConditionExpression: "attribute_not_exists(#sk)", ExpressionAttributeNames: { "#sk": "sk" } }));
  },

  /** The workspace's datasets (whose name contains `q`, case-sensitive), oldest first, `size` from `offset`, and how many there are. */
  async page(workspace: string, offset: number, size: number, q?: string): Promise<{ datasets: Dataset[]; count: number }> {
    const query = listQuery(datasetsParent(workspace), q);
    const [count, items] = await Promise.all([queryCount(query), size > 0 ? queryPage(query, offset, size) : Promise.resolve([])]);
    return { datasets: items.map(toDataset), count };
  },

  /** The dataset after the change, or undefined when there is none. */
  async update(workspace: string, id: string, changes: DatasetChanges): Promise<Dataset | undefined> {
    const set = setFields(changes);
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({ TableName: table(), Key: datasetKey(workspace, id), ...set, ...exists, ExpressionAttributeNames: { ...set.ExpressionAttributeNames, ...exists.ExpressionAttributeNames }, ReturnValues: "ALL_NEW" }),
      ),
    );
    return out?.Attributes && toDataset(out.Attributes);
  },

  /** Deletes the dataset's records, then the dataset; false when there was no dataset. */
  async remove(workspace: string, id: string): Promise<boolean> {
    const records = await queryAll({ ...listQuery(recordsParent(workspace, id)), ProjectionExpression: "sk" });
    await deleteKeys(records.map((item) => ({ pk: pk(workspace), sk: item.sk })));
    const out = await documents.send(new DeleteCommand({ TableName: table(), Key: datasetKey(workspace, id), ReturnValues: "ALL_OLD" }));
    return out.Attributes !== undefined;
  },
};

/** Deletes by key in transactions of 100 (all of a call's ids in one when there are at most 100). */
async function deleteKeys(keys: Item[]): Promise<void> {
  for (let i = 0; i < keys.length; i += TRANSACTION) {
    await documents.send(new TransactWriteCommand({ TransactItems: keys.slice(i, i + TRANSACTION).map((Key) => ({ Delete: { TableName: table(), Key } })) }));
  }
}

export const recordStore = {
  async get(workspace: string, id: string): Promise<DatasetRecord | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: recordKey(workspace, id), ConsistentRead: true }));
    return out.Item && toRecord(out.Item);
  },

  /** The ids of these that exist in the workspace (BatchGetItem takes 100 keys a call). */
  async existing(workspace: string, ids: string[]): Promise<Set<string>> {
    const chunks = Array.from({ length: Math.ceil(ids.length / BATCH_GET) }, (_, i) => ids.slice(i * BATCH_GET, (i + 1) * BATCH_GET));
    const items = (
      await Promise.all(
        chunks.map((chunk) =>
          batchGetAll(
            table(),
            chunk.map((id) => recordKey(workspace, id)),
            { projection: "#sk", names: { "#sk": "sk" } },
          ),
        ),
      )
    ).flat();
    return new Set(items.map((item) => String(item.sk).slice("REC#".length)));
  },

  /** Writes the records, all or none, while their dataset exists; false when it does not (nothing written). */
  async create(workspace: string, datasetId: string, records: DatasetRecord[]): Promise<boolean> {
    if (records.length > TRANSACTION - 1) throw new Error(`At most ${TRANSACTION - 1} records are created at once`);
    const out = await ifTransactionHolds(
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { ConditionCheck: { TableName: table(), Key: datasetKey(workspace, datasetId), ...exists } },
            ...records.map((record) => ({ Put: { TableName: table(), Item: recordItem(record), ConditionExpression: "attribute_not_exists(#sk)", ExpressionAttributeNames: { "#sk": "sk" } } })),
          ],
        }),
      ),
    );
    return out !== undefined;
  },

  /** A dataset's records, oldest first, `size` from `offset`, and how many it has. */
  async page(workspace: string, datasetId: string, offset: number, size: number): Promise<{ records: DatasetRecord[]; count: number }> {
    const query = listQuery(recordsParent(workspace, datasetId));
    const [count, items] = await Promise.all([queryCount(query), size > 0 ? queryPage(query, offset, size) : Promise.resolve([])]);
    return { records: items.map(toRecord), count };
  },

  /** False when there is no such record (nothing written). */
  async update(workspace: string, id: string, { payload, properties, ...changes }: RecordChanges): Promise<boolean> {
    const set = setFields({ ...changes, ...stored({ payload, properties }) });
    const out = await ifConditionHolds(
      documents.send(new UpdateCommand({ TableName: table(), Key: recordKey(workspace, id), ...set, ...exists, ExpressionAttributeNames: { ...set.ExpressionAttributeNames, ...exists.ExpressionAttributeNames } })),
    );
    return out !== undefined;
  },

  /** False when there was no such record. */
  async remove(workspace: string, id: string): Promise<boolean> {
    const out = await documents.send(new DeleteCommand({ TableName: table(), Key: recordKey(workspace, id), ReturnValues: "ALL_OLD" }));
    return out.Attributes !== undefined;
  },

  /** Deletes these records (the caller checked they exist): in one transaction when there are at most 100. */
  async removeAll(workspace: string, ids: string[]): Promise<void> {
    await deleteKeys(ids.map((id) => recordKey(workspace, id)));
  },
};

/** For the sibling stores of the same table (dataset-tasks.ts): the keys and item forms, so they are spelled once. */
export const datasetItems = { table, pk, datasetKey, recordItem, toRecord, recordsParent, listQuery, exists };

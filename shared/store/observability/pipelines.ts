/**
 * Evaluation pipeline configurations in the `datasets` table (shared/store/tables.ts `datasetsTable`, decision 65),
 * beside the workspace's datasets and judges:
 *
 * | pk | sk | parentKey (byParent) | createdKey | what |
 * |---|---|---|---|---|
 * | `WS#<ws>` | `PIPELINE#<id>` | `<ws>#PIPELINES` | `<created>#<id>` | a configuration (`revision`) |
 * | `WS#<ws>` | `PIPELINEMARK#<id>` | | | its sweep state: a watermark per source, the running sweep's lease |
 * | `PIPELINES#ENABLED` | `<ws>#<id>` | | | the periodic sweep's list of enabled configurations |
 *
 * A configuration and its entry in the enabled list change together in one transaction, conditioned on the
 * configuration's `revision` (concurrent updates never lose one another). The sweep state is apart from the
 * configuration so that a sweep never conflicts with an update: a sweep holds a lease on it, and advances a
 * watermark only while it holds the lease (two sweeps never both advance it).
 */
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import type { PipelineConfig, SweptSource, Watermark } from "../../domain/observability/pipelines.js";
import type { PipelineKind } from "../../schemas/observability/pipelines.js";
import { documents, ifConditionHolds, ifTransactionHolds } from "../client.js";
import { queryCount, queryPage } from "../query.js";

const table = () => tableName("datasets");
const pk = (workspace: string) => `WS#${workspace}`;
const configKey = (workspace: string, id: string) => ({ pk: pk(workspace), sk: `PIPELINE#${id}` });
const markKey = (workspace: string, id: string) => ({ pk: pk(workspace), sk: `PIPELINEMARK#${id}` });
const ENABLED = "PIPELINES#ENABLED";
const enabledKey = (workspace: string, id: string) => ({ pk: ENABLED, sk: `${workspace}#${id}` });
const parent = (workspace: string) => `${workspace}#PIPELINES`;
type Item = Record<string, unknown>;

/** A configuration as read, with the revision its next change is conditioned on. */
export type StoredPipelineConfig = PipelineConfig & { revision: number };

/** A sweep's state: its watermarks, and the lease of the sweep running now (if any). */
export interface PipelineMark {
  watermarks: Partial<Record<SweptSource, Watermark>>;
  lease?: string;
  leaseUntil?: number;
}

const toConfig = (item: Item): StoredPipelineConfig => {
  const { pk: _pk, sk: _sk, parentKey: _parent, createdKey: _created, ...rest } = item;
  return rest as unknown as StoredPipelineConfig;
};
const configItem = (config: PipelineConfig, revision: number): Item => ({
  ...config,
  revision,
  ...configKey(config.workspace, config.id),
  parentKey: parent(config.workspace),
  createdKey: `${config.createdAt}#${config.id}`,
});
const atRevision = (revision: number) => ({ ConditionExpression: "#revision = :revision", ExpressionAttributeNames: { "#revision": "revision" }, ExpressionAttributeValues: { ":revision": revision } });
/** The enabled list follows `enabled`: put when on, deleted when off (a Delete of no item is no error). */
const enabledEntry = (config: PipelineConfig) =>
  config.enabled ? { Put: { TableName: table(), Item: { ...enabledKey(config.workspace, config.id), workspace: config.workspace, id: config.id } } } : { Delete: { TableName: table(), Key: enabledKey(config.workspace, config.id) } };

export interface PipelineFilter {
  kind?: PipelineKind;
  group?: string;
  enabled?: boolean;
  /** The name contains it (case-sensitive). */
  q?: string;
}

function listQuery(workspace: string, filter: PipelineFilter) {
  const names: Record<string, string> = { "#parent": "parentKey" };
  const values: Record<string, unknown> = { ":parent": parent(workspace) };
  const clauses: string[] = [];
  const equal = (attribute: string, value: unknown) => {
    names[`#${attribute}`] = attribute;
    values[`:${attribute}`] = value;
    clauses.push(`#${attribute} = :${attribute}`);
  };
  if (filter.kind) equal("pipelineKind", filter.kind);
  if (filter.group !== undefined) equal("group", filter.group);
  if (filter.enabled !== undefined) equal("enabled", filter.enabled);
  if (filter.q) {
    names["#name"] = "name";
    values[":q"] = filter.q;
    clauses.push("contains(#name, :q)");
  }
  return {
    TableName: table(),
    IndexName: "byParent",
    KeyConditionExpression: "#parent = :parent",
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ...(clauses.length ? { FilterExpression: clauses.join(" AND ") } : {}),
  };
}

export const pipelineStore = {
  async get(workspace: string, id: string): Promise<StoredPipelineConfig | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: configKey(workspace, id), ConsistentRead: true }));
    return out.Item && toConfig(out.Item);
  },

  async create(config: PipelineConfig): Promise<void> {
    const put = { Put: { TableName: table(), Item: configItem(config, 1), ConditionExpression: "attribute_not_exists(#sk)", ExpressionAttributeNames: { "#sk": "sk" } } };
    await documents.send(new TransactWriteCommand({ TransactItems: [put, enabledEntry(config)] }));
  },

  /** The workspace's configurations matching the filter, oldest first, `size` from `offset`, and how many match. */
  async page(workspace: string, filter: PipelineFilter, offset: number, size: number): Promise<{ configs: PipelineConfig[]; count: number }> {
    const query = listQuery(workspace, filter);
    const [count, items] = await Promise.all([queryCount(query), size > 0 ? queryPage(query, offset, size) : Promise.resolve([])]);
    return { configs: items.map(toConfig), count };
  },

  /** Replaces the configuration read as `current` by `next`; false when it changed or went meanwhile (nothing written). */
  async replace(current: StoredPipelineConfig, next: PipelineConfig): Promise<boolean> {
    const put = { Put: { TableName: table(), Item: configItem(next, current.revision + 1), ...atRevision(current.revision) } };
    return (await ifTransactionHolds(documents.send(new TransactWriteCommand({ TransactItems: [put, enabledEntry(next)] })))) !== undefined;
  },

  /** Deletes the configuration read as `current`, its sweep state and its entry in the enabled list; false when it changed or went meanwhile. */
  async remove(current: StoredPipelineConfig): Promise<boolean> {
    const remove = { Delete: { TableName: table(), Key: configKey(current.workspace, current.id), ...atRevision(current.revision) } };
    const state = { Delete: { TableName: table(), Key: markKey(current.workspace, current.id) } };
    const listed = { Delete: { TableName: table(), Key: enabledKey(current.workspace, current.id) } };
    return (await ifTransactionHolds(documents.send(new TransactWriteCommand({ TransactItems: [remove, state, listed] })))) !== undefined;
  },

  /** The enabled configurations of every workspace (the periodic sweep's list), a page at a time. */
  async enabledPage(startKey?: Record<string, unknown>): Promise<{ entries: { workspace: string; id: string }[]; next?: Record<string, unknown> }> {
    const out = await documents.send(new QueryCommand({ TableName: table(), KeyConditionExpression: "#pk = :pk", ExpressionAttributeNames: { "#pk": "pk" }, ExpressionAttributeValues: { ":pk": ENABLED }, ExclusiveStartKey: startKey, Limit: 100 }));
    return { entries: (out.Items ?? []).map((item) => ({ workspace: String(item.workspace), id: String(item.id) })), next: out.LastEvaluatedKey };
  },

  /**
   * Takes the sweep lease of a configuration until `until` (ms since the epoch): its state, or undefined
   * when another sweep holds an unexpired lease. The state item is made on the first sweep.
   */
  async lease(workspace: string, id: string, token: string, now: number, until: number): Promise<PipelineMark | undefined> {
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: markKey(workspace, id),
          // The watermarks' map is made on the first lease: a nested path is set only where its parent exists.
          UpdateExpression: "SET #lease = :lease, #until = :until, #watermarks = if_not_exists(#watermarks, :empty)",
          ConditionExpression: "(attribute_not_exists(#until) OR #until < :now)",
          ExpressionAttributeNames: { "#lease": "lease", "#until": "leaseUntil", "#watermarks": "watermarks" },
          ExpressionAttributeValues: { ":lease": token, ":until": until, ":now": now, ":empty": {} },
          ReturnValues: "ALL_NEW",
        }),
      ),
    );
    if (out === undefined) return undefined;
    return { watermarks: (out.Attributes?.watermarks as PipelineMark["watermarks"] | undefined) ?? {} };
  },

  /** Advances a source's watermark while `token` holds the lease; false when the lease was lost (nothing written). */
  async advance(workspace: string, id: string, token: string, source: SweptSource, mark: Watermark): Promise<boolean> {
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: markKey(workspace, id),
          UpdateExpression: "SET #watermarks.#source = :mark",
          ConditionExpression: "#lease = :lease",
          ExpressionAttributeNames: { "#watermarks": "watermarks", "#source": source, "#lease": "lease" },
          ExpressionAttributeValues: { ":mark": mark, ":lease": token },
        }),
      ),
    );
    return out !== undefined;
  },

  /** Gives the lease back (only `token`'s own). */
  async release(workspace: string, id: string, token: string): Promise<void> {
    await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: markKey(workspace, id),
          UpdateExpression: "REMOVE #lease, #until",
          ConditionExpression: "#lease = :lease",
          ExpressionAttributeNames: { "#lease": "lease", "#until": "leaseUntil" },
          ExpressionAttributeValues: { ":lease": token },
        }),
      ),
    );
  },
};

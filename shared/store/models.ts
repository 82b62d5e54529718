import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import type { ModelEntry } from "../domain/models.js";
import { batchGetAll, documents, ifConditionHolds } from "./client.js";

const table = () => tableName("models");
const BASE = "BASE";
const workspaceScope = (workspace: string) => `WS#${workspace}`;
const modelKey = (scope: string, id: string) => ({ scope, sk: `MODEL#${id}` });
const aliasKey = (scope: string, alias: string) => ({ scope, sk: `ALIAS#${alias}` });

const fromItem = (item: Record<string, unknown>): ModelEntry => {
  const { scope: _scope, sk: _sk, ...entry } = item;
  return entry as unknown as ModelEntry;
};

/** Every item of a scope whose sort key starts with `prefix` (all of them without one). */
async function queryScope(scope: string, prefix?: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await documents.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: prefix ? "#scope = :scope AND begins_with(sk, :prefix)" : "#scope = :scope",
        ExpressionAttributeNames: { "#scope": "scope" },
        ExpressionAttributeValues: prefix ? { ":scope": scope, ":prefix": prefix } : { ":scope": scope },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}

async function writeAll(requests: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < requests.length; i += 25) {
    let batch = requests.slice(i, i + 25);
    for (let attempt = 0; batch.length; attempt += 1) {
      if (attempt > 8) throw new Error("DynamoDB kept returning unprocessed catalog items");
      if (attempt) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
      const out = await documents.send(new BatchWriteCommand({ RequestItems: { [table()]: batch } }));
      batch = (out.UnprocessedItems?.[table()] ?? []) as Record<string, unknown>[];
    }
  }
}

export const modelStore = {
  /** Makes the stored base catalog equal `entries`: puts every model and alias, removes what is gone. */
  async replaceBase(entries: ModelEntry[]): Promise<void> {
    const wanted = new Map<string, Record<string, unknown>>();
    for (const entry of entries) {
      wanted.set(`MODEL#${entry.id}`, { ...modelKey(BASE, entry.id), ...entry });
      for (const alias of entry.aliases) wanted.set(`ALIAS#${alias}`, { ...aliasKey(BASE, alias), target: entry.id });
    }
    const existing = await queryScope(BASE);
    const stale = existing.filter((item) => !wanted.has(item.sk as string));
    await writeAll([
      ...[...wanted.values()].map((Item) => ({ PutRequest: { Item } })),
      ...stale.map((item) => ({ DeleteRequest: { Key: { scope: BASE, sk: item.sk } } })),
    ]);
  },

  /** A model by id or alias as `workspace` sees it: its own fine-tuned models and the base catalog. */
  async find(workspace: string, idOrAlias: string): Promise<ModelEntry | undefined> {
    const keys = [modelKey(workspaceScope(workspace), idOrAlias), modelKey(BASE, idOrAlias), aliasKey(BASE, idOrAlias)];
    const items = await batchGetAll(table(), keys);
    const bySk = (scope: string, sk: string) => items.find((i) => i.scope === scope && i.sk === sk);
    const direct = bySk(workspaceScope(workspace), `MODEL#${idOrAlias}`) ?? bySk(BASE, `MODEL#${idOrAlias}`);
    if (direct) return fromItem(direct);
    const alias = bySk(BASE, `ALIAS#${idOrAlias}`);
    if (!alias) return undefined;
    const target = await documents.send(new GetCommand({ TableName: table(), Key: modelKey(BASE, alias.target as string) }));
    return target.Item ? fromItem(target.Item) : undefined;
  },

  async listVisible(workspace: string): Promise<ModelEntry[]> {
    const [base, own] = await Promise.all([queryScope(BASE, "MODEL#"), queryScope(workspaceScope(workspace), "MODEL#")]);
    return [...base, ...own].map(fromItem);
  },

  /** Registers a fine-tuned model in its workspace; false when that id is taken there. */
  async putFineTuned(entry: ModelEntry & { workspace: string }): Promise<boolean> {
    const written = await ifConditionHolds(
      documents.send(
        new PutCommand({
          TableName: table(),
          Item: { ...modelKey(workspaceScope(entry.workspace), entry.id), ...entry },
          ConditionExpression: "attribute_not_exists(sk)",
        }),
      ),
    );
    return written !== undefined;
  },

  /** Sets fields of a fine-tuned model; undefined when it does not exist. */
  async updateFineTuned(workspace: string, id: string, fields: Partial<Pick<ModelEntry, "name" | "description" | "archived">>): Promise<ModelEntry | undefined> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets = Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([field, value]) => {
        names[`#${field}`] = field;
        values[`:${field}`] = value;
        return `#${field} = :${field}`;
      });
    if (!sets.length) {
      const out = await documents.send(new GetCommand({ TableName: table(), Key: modelKey(workspaceScope(workspace), id) }));
      return out.Item ? fromItem(out.Item) : undefined;
    }
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: modelKey(workspaceScope(workspace), id),
          UpdateExpression: `SET ${sets.join(", ")}`,
          ConditionExpression: "attribute_exists(sk)",
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: "ALL_NEW",
        }),
      ),
    );
    if (!out) return undefined;
    return out.Attributes ? fromItem(out.Attributes) : undefined;
  },

  /** False when there was no such fine-tuned model. */
  async removeFineTuned(workspace: string, id: string): Promise<boolean> {
    const out = await documents.send(
      new DeleteCommand({ TableName: table(), Key: modelKey(workspaceScope(workspace), id), ReturnValues: "ALL_OLD" }),
    );
    return Boolean(out.Attributes);
  },
};

/**
 * Saved judges in the `datasets` table (shared/store/tables.ts `datasetsTable`, decision 61), beside the workspace's
 * datasets and records:
 *
 * | pk | sk | parentKey (byParent) | createdKey | what |
 * |---|---|---|---|---|
 * | `WS#<ws>` | `JUDGE#<id>` | `<ws>#JUDGES` | `<created>#<id>` | a judge |
 * | `WS#<ws>` | `JUDGENAME#<name>` | | | its name's claim (`judgeId`): names are unique in a workspace |
 *
 * A judge and its name's claim change together in one transaction; the judge carries a `revision` so that
 * concurrent updates never lose one another.
 */
import { GetCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import type { Judge } from "../../domain/observability/judges.js";
import type { JudgeOutputType } from "../../schemas/observability/judges.js";
import { documents, ifTransactionHolds } from "../client.js";
import { queryCount, queryPage } from "../query.js";

const table = () => tableName("datasets");
const pk = (workspace: string) => `WS#${workspace}`;
const judgeKey = (workspace: string, id: string) => ({ pk: pk(workspace), sk: `JUDGE#${id}` });
const nameKey = (workspace: string, name: string) => ({ pk: pk(workspace), sk: `JUDGENAME#${name}` });
const judgesParent = (workspace: string) => `${workspace}#JUDGES`;
type Item = Record<string, unknown>;

/** A judge as read, with the revision its next change is conditioned on. */
export type StoredJudge = Judge & { revision: number };

const toJudge = (item: Item): StoredJudge => {
  const { pk: _pk, sk: _sk, parentKey: _parent, createdKey: _created, outputType: _type, ...rest } = item;
  return rest as unknown as StoredJudge;
};
const judgeItem = (judge: Judge, revision: number): Item => ({
  ...judge,
  revision,
  // The output's type beside the output, for the list's type filter.
  outputType: judge.output.type,
  ...judgeKey(judge.workspace, judge.id),
  parentKey: judgesParent(judge.workspace),
  createdKey: `${judge.createdAt}#${judge.id}`,
});
const claimOf = (judge: Pick<Judge, "workspace" | "id" | "name">) => ({
  Put: { TableName: table(), Item: { ...nameKey(judge.workspace, judge.name), judgeId: judge.id }, ConditionExpression: "attribute_not_exists(#sk)", ExpressionAttributeNames: { "#sk": "sk" } },
});
const releaseOf = (judge: Pick<Judge, "workspace" | "id" | "name">) => ({
  Delete: { TableName: table(), Key: nameKey(judge.workspace, judge.name), ConditionExpression: "#judge = :id", ExpressionAttributeNames: { "#judge": "judgeId" }, ExpressionAttributeValues: { ":id": judge.id } },
});
const atRevision = (revision: number) => ({ ConditionExpression: "#revision = :revision", ExpressionAttributeNames: { "#revision": "revision" }, ExpressionAttributeValues: { ":revision": revision } });

export interface JudgeFilter {
  /** The name contains it (case-sensitive). */
  q?: string;
  types?: JudgeOutputType[];
  models?: string[];
}

/** The list's query on `byParent`, with the filters as a FilterExpression (DynamoDB's `IN` takes 100 operands; the schema caps each filter there). */
function listQuery(workspace: string, filter: JudgeFilter) {
  const names: Record<string, string> = { "#parent": "parentKey" };
  const values: Record<string, unknown> = { ":parent": judgesParent(workspace) };
  const clauses: string[] = [];
  if (filter.q) {
    names["#name"] = "name";
    values[":q"] = filter.q;
    clauses.push("contains(#name, :q)");
  }
  const within = (attribute: string, key: string, list: string[] | undefined) => {
    if (!list?.length) return;
    names[`#${key}`] = attribute;
    const placeholders = [...new Set(list)].map((value, i) => {
      values[`:${key}${i}`] = value;
      return `:${key}${i}`;
    });
    clauses.push(`#${key} IN (${placeholders.join(", ")})`);
  };
  within("outputType", "type", filter.types);
  within("model_name", "model", filter.models);
  return {
    TableName: table(),
    IndexName: "byParent",
    KeyConditionExpression: "#parent = :parent",
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ...(clauses.length ? { FilterExpression: clauses.join(" AND ") } : {}),
  };
}

export const judgeStore = {
  async get(workspace: string, id: string): Promise<StoredJudge | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: judgeKey(workspace, id), ConsistentRead: true }));
    return out.Item && toJudge(out.Item);
  },

  /** The id of the workspace's judge of this name, if any. */
  async idByName(workspace: string, name: string): Promise<string | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: nameKey(workspace, name), ConsistentRead: true }));
    return out.Item?.judgeId as string | undefined;
  },

  /** Writes the judge and claims its name; false when the name is taken (nothing written). */
  async create(judge: Judge): Promise<boolean> {
    const put = { Put: { TableName: table(), Item: judgeItem(judge, 1), ConditionExpression: "attribute_not_exists(#sk)", ExpressionAttributeNames: { "#sk": "sk" } } };
    return (await ifTransactionHolds(documents.send(new TransactWriteCommand({ TransactItems: [put, claimOf(judge)] })))) !== undefined;
  },

  /** The workspace's judges matching the filter, oldest first, `size` from `offset`, and how many match. */
  async page(workspace: string, filter: JudgeFilter, offset: number, size: number): Promise<{ judges: Judge[]; count: number }> {
    const query = listQuery(workspace, filter);
    const [count, items] = await Promise.all([queryCount(query), size > 0 ? queryPage(query, offset, size) : Promise.resolve([])]);
    return { judges: items.map(toJudge), count };
  },

  /**
   * Replaces the judge read as `current` by `next` (same workspace and id), moving its name's claim when the name
   * changes; false when the judge changed or went meanwhile, or the new name is taken (nothing written).
   */
  async replace(current: StoredJudge, next: Judge): Promise<boolean> {
    const put = { Put: { TableName: table(), Item: judgeItem(next, current.revision + 1), ...atRevision(current.revision) } };
    const moves = next.name === current.name ? [] : [claimOf(next), releaseOf(current)];
    return (await ifTransactionHolds(documents.send(new TransactWriteCommand({ TransactItems: [put, ...moves] })))) !== undefined;
  },

  /** Deletes the judge read as `current` and its name's claim; false when it changed or went meanwhile. */
  async remove(current: StoredJudge): Promise<boolean> {
    const remove = { Delete: { TableName: table(), Key: judgeKey(current.workspace, current.id), ...atRevision(current.revision) } };
    return (await ifTransactionHolds(documents.send(new TransactWriteCommand({ TransactItems: [remove, releaseOf(current)] })))) !== undefined;
  },
};

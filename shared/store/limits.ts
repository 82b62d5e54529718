import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { keyFits, keyTooLong, storageProblem, storageRefusal } from "../domain/storage-limits.js";
import { tableName } from "../config.js";
import { tables } from "./tables.js";

interface KeyRoles {
  /** Key attributes of the table and its indexes, with their DynamoDB role. */
  all: [string, "partition" | "sort"][];
  /** The table's own key attributes. */
  primary: [string, "partition" | "sort"][];
}

let byPhysicalName: Map<string, KeyRoles> | undefined;
function keyRoles(table: string): KeyRoles | undefined {
  byPhysicalName ??= new Map(
    tables.map((def) => {
      const primary: KeyRoles["primary"] = [[def.partitionKey.name, "partition"], ...(("sortKey" in def ? [[def.sortKey.name, "sort"]] : []) as KeyRoles["primary"])];
      const indexes: KeyRoles["all"] = [
        ...("localIndexes" in def ? def.localIndexes.map((i) => [i.sortKey.name, "sort"] as [string, "sort"]) : []),
        ...("globalIndexes" in def ? def.globalIndexes.flatMap((i) => [[i.partitionKey.name, "partition"], ...("sortKey" in i ? [[i.sortKey.name, "sort"]] : [])] as KeyRoles["all"]) : []),
      ];
      let physical: string;
      try {
        physical = tableName(def.name);
      } catch {
        physical = def.name;
      }
      return [physical, { primary, all: [...primary, ...indexes] }];
    }),
  );
  return byPhysicalName.get(table);
}

const tooLongKey = (table: string, key: Record<string, unknown> | undefined, roles: "primary" | "all"): string | undefined => {
  const known = keyRoles(table);
  if (!known || !key) return undefined;
  return known[roles].find(([name, role]) => !keyFits(key[name], role))?.[0];
};

type Input = Record<string, any>;

/** Checks one write of an item (Put, or a transaction's Put) against the storage limits: throws the client's error. */
function checkPut(table: string, item: Input): void {
  const problem = storageProblem(item);
  if (problem) throw storageRefusal(problem);
  const attribute = tooLongKey(table, item, "all");
  if (attribute) throw keyTooLong(attribute);
}

function checkUpdate(table: string, input: Input): void {
  const attribute = tooLongKey(table, input.Key, "primary");
  if (attribute) throw keyTooLong(attribute);
  const values = input.ExpressionAttributeValues as Input | undefined;
  if (values) {
    const problem = storageProblem(values);
    if (problem && problem.kind !== "too_large") throw storageRefusal(problem);
    const known = keyRoles(table);
    const names = Object.values((input.ExpressionAttributeNames ?? {}) as Record<string, string>);
    // A SET of an index key attribute from a value too long for a key.
    for (const [name, role] of known?.all ?? []) {
      if (!names.includes(name) && !String(input.UpdateExpression ?? "").includes(name)) continue;
      if (Object.values(values).some((v) => !keyFits(v, role))) throw keyTooLong(name);
    }
  }
}

/**
 * DynamoDB's limits, checked on every command before it leaves (shared/domain/storage-limits.ts): a write
 * beyond them is the client's 413 or 422, never a ValidationException turned 500. A read whose key is
 * longer than any key can be finds nothing, which is what it is: no such record.
 */
export function installStorageLimits(stack: DynamoDBDocumentClient["middlewareStack"]): void {
  stack.add(
    (next, context) => async (args) => {
      const input = args.input as Input;
      // The document client's commands run as the low-level client's (GetItemCommand…), input still unmarshalled here.
      const command = (context as { commandName?: string }).commandName ?? "";
      const table = input.TableName as string;
      if (command === "PutItemCommand") checkPut(table, input.Item);
      else if (command === "UpdateItemCommand") checkUpdate(table, input);
      else if (command === "TransactWriteItemsCommand") {
        for (const item of input.TransactItems ?? []) {
          if (item.Put) checkPut(item.Put.TableName, item.Put.Item);
          if (item.Update) checkUpdate(item.Update.TableName, item.Update);
          for (const other of [item.Delete, item.ConditionCheck]) if (other && tooLongKey(other.TableName, other.Key, "primary")) throw keyTooLong(tooLongKey(other.TableName, other.Key, "primary")!);
        }
      } else if (command === "BatchWriteItemCommand") {
        for (const [name, requests] of Object.entries((input.RequestItems ?? {}) as Record<string, Input[]>)) {
          for (const request of requests) if (request.PutRequest) checkPut(name, request.PutRequest.Item);
        }
      } else if (command === "GetItemCommand" || command === "DeleteItemCommand") {
        if (tooLongKey(table, input.Key, "primary")) {
          if (input.ConditionExpression) throw new ConditionalCheckFailedException({ message: "No item can have this key", $metadata: {} });
          return { output: { $metadata: {} }, response: {} } as never;
        }
      } else if (command === "BatchGetItemCommand") {
        const requests = Object.entries((input.RequestItems ?? {}) as Record<string, Input>).map(
          ([name, request]) => [name, { ...request, Keys: (request.Keys as Input[]).filter((key) => !tooLongKey(name, key, "primary")) }] as const,
        );
        const asked = requests.filter(([, request]) => request.Keys.length);
        if (!asked.length) return { output: { Responses: {}, $metadata: {} }, response: {} } as never;
        return next({ ...args, input: { ...input, RequestItems: Object.fromEntries(asked) } });
      } else if (command === "QueryCommand") {
        const placeholders = String(input.KeyConditionExpression ?? "").match(/:\w+/g) ?? [];
        const values = (input.ExpressionAttributeValues ?? {}) as Input;
        if (placeholders.some((p) => !keyFits(values[p], "sort"))) return { output: { Items: [], Count: 0, ScannedCount: 0, $metadata: {} }, response: {} } as never;
      }
      return next(args);
    },
    { step: "initialize", name: "storageLimits", priority: "high" },
  );
}

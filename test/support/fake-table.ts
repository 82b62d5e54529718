import { ConditionalCheckFailedException, TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput, type BatchGetCommandInput, type DeleteCommandInput, type DynamoDBDocumentClient, type GetCommandInput, type PutCommandInput, type QueryCommandInput, type UpdateCommandInput } from "@aws-sdk/lib-dynamodb";
import type { AwsClientStub } from "aws-sdk-client-mock";
import { beforeEach } from "vitest";
import { localTableName } from "../../infra/local/env.js";
import { tableEnvVar, tables, type TableDefinition, type TableName } from "../../shared/store/tables.js";

type Item = Record<string, unknown>;

/** The name the functions know a table by: TABLE_<NAME> of their environment. */
export const physicalName = (name: TableName): string => process.env[tableEnvVar(name)] ?? localTableName(name);

const definitionOf = (physical: string | undefined): TableDefinition | undefined => tables.find((table) => physicalName(table.name) === physical);

/** The attributes of an item's primary key, as the table's definition names them. */
export function keyOf(table: TableDefinition, item: Item): Item {
  const key: Item = { [table.partitionKey.name]: item[table.partitionKey.name] };
  if (table.sortKey) key[table.sortKey.name] = item[table.sortKey.name];
  return key;
}

const sameKey = (table: TableDefinition, key: Item | undefined) => (item: Item) =>
  Object.entries(keyOf(table, key ?? {})).every(([name, value]) => item[name] === value);

export const conditionFailed = () => new ConditionalCheckFailedException({ message: "The conditional request failed", $metadata: {} });

/** Reads `#a.#b` paths of an item, and list elements `#a[0]`. */
const pathOf = (expression: string, names: Record<string, string>): (string | number)[] =>
  expression
    .trim()
    .split(".")
    .flatMap((part) => {
      const element = /^(.+)\[(\d+)\]$/.exec(part);
      return element ? [names[element[1]!] ?? element[1]!, Number(element[2])] : [names[part] ?? part];
    });
const read = (item: Item, path: (string | number)[]) => path.reduce<unknown>((value, key) => (value as Item | undefined)?.[key], item);
/** DynamoDB's type names, as attribute_type tests them. */
const typeOf = (value: unknown) =>
  value === null ? "NULL" : Array.isArray(value) ? "L" : typeof value === "number" ? "N" : typeof value === "string" ? "S" : typeof value === "boolean" ? "BOOL" : "M";
function write(item: Item, path: (string | number)[], value: unknown): void {
  const parent = path.slice(0, -1).reduce<Item>((at, key) => {
    key = String(key);
    if (typeof at[key] !== "object" || at[key] === null) throw new Error(`The document path ${path.join(".")} is invalid`);
    return at[key] as Item;
  }, item);
  parent[String(path.at(-1)!)] = value;
}

/**
 * Whether a condition the stores write holds for `item` (undefined: no item under the key): existence of
 * an attribute, `attribute_type(path, :type)`, `#status IN (…)`, `path = :value` and `path <= :value` (and <, >, >=),
 * `size(path) < :n` (and the others), list elements (`#list[0]`), joined by AND, and `(a OR b)` groups of them.
 */
export function holds(condition: string, item: Item | undefined, names: Record<string, string>, values: Record<string, unknown>): boolean {
  return condition.split(" AND ").every((clause) => {
    clause = clause.trim();
    const either = /^\((.+ OR .+)\)$/.exec(clause);
    if (either) return either[1]!.split(" OR ").some((alternative) => holds(alternative, item, names, values));
    const exists = /^attribute_(not_)?exists\((.+)\)$/.exec(clause);
    if (exists) {
      const present = item !== undefined && read(item, pathOf(exists[2]!, names)) !== undefined;
      return exists[1] ? !present : present;
    }
    if (!item) return false;
    const type = /^attribute_type\((\S+), (:\w+)\)$/.exec(clause);
    if (type) return typeOf(read(item, pathOf(type[1]!, names))) === values[type[2]!];
    const size = /^size\((\S+)\) (<|<=|>|>=|=) (:\w+)$/.exec(clause);
    if (size) {
      const value = read(item, pathOf(size[1]!, names));
      const length = Array.isArray(value) || typeof value === "string" ? value.length : value && typeof value === "object" ? Object.keys(value).length : undefined;
      if (length === undefined) return false;
      const given = values[size[3]!] as number;
      return { "<": length < given, "<=": length <= given, ">": length > given, ">=": length >= given, "=": length === given }[size[2]!]!;
    }
    const within = /^(\S+) IN \((.+)\)$/.exec(clause);
    if (within) return within[2]!.split(", ").some((placeholder) => values[placeholder] === read(item, pathOf(within[1]!, names)));
    const equals = /^(\S+) = (:\w+)$/.exec(clause);
    if (equals) return read(item, pathOf(equals[1]!, names)) === values[equals[2]!];
    const compare = /^(\S+) (<|<=|>|>=) (:\w+)$/.exec(clause);
    if (compare) {
      const [stored, given] = [read(item, pathOf(compare[1]!, names)) as string | number | undefined, values[compare[3]!] as string | number];
      if (stored === undefined || typeof stored !== typeof given) return false;
      return { "<": stored < given, "<=": stored <= given, ">": stored > given, ">=": stored >= given }[compare[2]!]!;
    }
    throw new Error(`fake table: unknown condition ${clause}`);
  });
}

/** Applies `SET a = :a, b = if_not_exists(b, :b), c = c - :n, d = list_append(d, :l)`, `ADD #n :n` and `REMOVE x, y, l[0]` as the stores write them. */
export function applyUpdate(item: Item, input: UpdateCommandInput): void {
  const names = input.ExpressionAttributeNames ?? {};
  const values = input.ExpressionAttributeValues ?? {};
  const expression = input.UpdateExpression ?? "";
  const set = /SET (.*?)(?= ADD | REMOVE |$)/.exec(expression)?.[1];
  for (const assignment of set?.split(/, (?![^(]*\))/) ?? []) {
    const [target, source] = assignment.split(" = ") as [string, string];
    const ifNotExists = /^if_not_exists\((\S+), (:\w+)\)$/.exec(source);
    const arithmetic = /^(\S+) ([+-]) (:\w+)$/.exec(source);
    const append = /^list_append\((\S+), (:\w+)\)$/.exec(source);
    const value = ifNotExists
      ? (read(item, pathOf(ifNotExists[1]!, names)) ?? values[ifNotExists[2]!])
      : arithmetic
        ? Number(read(item, pathOf(arithmetic[1]!, names))) + (arithmetic[2] === "+" ? 1 : -1) * Number(values[arithmetic[3]!])
        : append
          ? [...((read(item, pathOf(append[1]!, names)) as unknown[] | undefined) ?? []), ...(values[append[2]!] as unknown[])]
          : values[source];
    write(item, pathOf(target, names), value);
  }
  const add = /ADD (.*?)(?= REMOVE |$)/.exec(expression)?.[1];
  for (const term of add?.split(", ") ?? []) {
    const [name, value] = term.split(" ") as [string, string];
    item[names[name] ?? name] = Number(item[names[name] ?? name] ?? 0) + Number(values[value]);
  }
  const remove = /REMOVE (.*?)(?= SET | ADD |$)/.exec(expression)?.[1];
  for (const term of remove?.split(", ") ?? []) {
    const path = pathOf(term, names);
    const last = path.at(-1)!;
    const parent = read(item, path.slice(0, -1)) as Item | unknown[] | undefined;
    if (Array.isArray(parent) && typeof last === "number") parent.splice(last, 1);
    else if (parent) delete (parent as Item)[String(last)];
  }
}

/** The sort attribute a query orders by: its index's, or the table's. */
function sortKeyOf(table: TableDefinition, index: string | undefined): string | undefined {
  if (!index) return table.sortKey?.name;
  const found = [...(table.localIndexes ?? []), ...(table.globalIndexes ?? [])].find((i) => i.name === index);
  if (!found) throw new Error(`fake table: ${table.name} has no index ${index}`);
  return found.sortKey?.name;
}

/** The items a key condition (`p = :v`, optionally `AND` a sort-key comparison, BETWEEN or begins_with) selects. */
function keyCondition(input: QueryCommandInput): (item: Item) => boolean {
  const names = input.ExpressionAttributeNames ?? {};
  const values = input.ExpressionAttributeValues ?? {};
  const name = (token: string) => names[token] ?? token;
  const [, partition, partitionValue, rest] = /^(\S+) = (:\w+)(?: AND (.+))?$/.exec(input.KeyConditionExpression ?? "") ?? [];
  if (!partition) throw new Error(`fake table: unknown key condition ${input.KeyConditionExpression}`);
  const inPartition = (item: Item) => item[name(partition)] === values[partitionValue!];
  if (!rest) return inPartition;
  const prefix = /^begins_with\((\S+), (:\w+)\)$/.exec(rest);
  if (prefix) return (item) => inPartition(item) && String(item[name(prefix[1]!)]).startsWith(String(values[prefix[2]!]));
  const between = /^(\S+) BETWEEN (:\w+) AND (:\w+)$/.exec(rest);
  if (between) {
    const [low, high] = [values[between[2]!] as string | number, values[between[3]!] as string | number];
    return (item) => inPartition(item) && (item[name(between[1]!)] as string | number) >= low && (item[name(between[1]!)] as string | number) <= high;
  }
  const compare = /^(\S+) (=|<|<=|>|>=) (:\w+)$/.exec(rest);
  if (!compare) throw new Error(`fake table: unknown sort-key condition ${rest}`);
  const test: Record<string, (a: any, b: any) => boolean> = { "=": (a, b) => a === b, "<": (a, b) => a < b, "<=": (a, b) => a <= b, ">": (a, b) => a > b, ">=": (a, b) => a >= b };
  return (item) => inPartition(item) && item[name(compare[1]!)] !== undefined && test[compare[2]!]!(item[name(compare[1]!)], values[compare[3]!]);
}

export interface FakeTables {
  /** Puts items into a table, replacing those with the same key. */
  put(name: TableName, ...items: Item[]): void;
  /** A table's items now. */
  items(name: TableName): Item[];
}

/**
 * The tables of shared/store/tables.ts in memory behind the mocked DocumentClient, keyed as defined there.
 * Gets and batch gets find items by key; queries select by key condition on the table or an index (items
 * without the index's sort attribute are not in it), in the sort key's order either way, from an
 * ExclusiveStartKey, up to Limit, with a LastEvaluatedKey when more remain, or a Count for Select COUNT
 * (FilterExpression is not applied: tests look at it). With `writes`, puts, deletes and updates change the
 * items, under the stores' conditions; otherwise writes are left to the test. Tables not given hold nothing.
 */
export function serveTables(dynamo: AwsClientStub<DynamoDBDocumentClient>, contents: Partial<Record<TableName, Item[]>> = {}, options: { writes?: boolean } = {}): FakeTables {
  const held = new Map<string, Item[]>(tables.map((table) => [table.name, [...(contents[table.name] ?? [])]]));
  const itemsOf = (table: TableDefinition | undefined) => (table ? held.get(table.name)! : []);
  const put = (name: TableName, ...items: Item[]) => {
    const table = tables.find((t) => t.name === name)!;
    const rows = held.get(name)!;
    for (const item of items) {
      const at = rows.findIndex(sameKey(table, item));
      if (at >= 0) rows[at] = item;
      else rows.push(item);
    }
  };

  dynamo.on(GetCommand).callsFake((input: GetCommandInput) => {
    const table = definitionOf(input.TableName);
    return { Item: table ? itemsOf(table).find(sameKey(table, input.Key)) : undefined };
  });
  dynamo.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => ({
    Responses: Object.fromEntries(
      Object.entries(input.RequestItems ?? {}).map(([name, { Keys }]) => {
        const table = definitionOf(name);
        return [name, table ? itemsOf(table).filter((item) => (Keys ?? []).some((key) => sameKey(table, key)(item))) : []];
      }),
    ),
  }));
  dynamo.on(QueryCommand).callsFake((input: QueryCommandInput) => {
    const table = definitionOf(input.TableName);
    if (!table) return { Items: [], Count: 0 };
    const sortBy = sortKeyOf(table, input.IndexName);
    const selected = keyCondition(input);
    let rows = itemsOf(table)
      .filter((item) => selected(item) && (sortBy === undefined || item[sortBy] !== undefined))
      .toSorted((a, b) => (sortBy === undefined ? 0 : String(a[sortBy]).localeCompare(String(b[sortBy]))));
    if (input.ScanIndexForward === false) rows = rows.toReversed();
    if (input.ExclusiveStartKey) rows = rows.slice(rows.findIndex(sameKey(table, input.ExclusiveStartKey)) + 1);
    const page = rows.slice(0, input.Limit ?? rows.length);
    const last = page.at(-1);
    const more = page.length < rows.length && last ? { LastEvaluatedKey: { ...keyOf(table, last), ...(sortBy ? { [sortBy]: last[sortBy] } : {}) } } : {};
    if (input.Select === "COUNT") return { Count: page.length, ...more };
    return { Items: page, Count: page.length, ...more };
  });

  if (options.writes) {
    dynamo.on(PutCommand).callsFake((input: PutCommandInput) => {
      const table = definitionOf(input.TableName);
      if (!table) return {};
      const old = itemsOf(table).find(sameKey(table, input.Item));
      if (input.ConditionExpression && !holds(input.ConditionExpression, old, input.ExpressionAttributeNames ?? {}, input.ExpressionAttributeValues ?? {})) throw conditionFailed();
      put(table.name as TableName, input.Item!);
      return {};
    });
    dynamo.on(DeleteCommand).callsFake((input: DeleteCommandInput) => {
      const table = definitionOf(input.TableName);
      if (!table) return {};
      const rows = itemsOf(table);
      const at = rows.findIndex(sameKey(table, input.Key));
      if (input.ConditionExpression && !holds(input.ConditionExpression, rows[at], input.ExpressionAttributeNames ?? {}, input.ExpressionAttributeValues ?? {})) throw conditionFailed();
      if (at < 0) return {};
      const [old] = rows.splice(at, 1);
      return input.ReturnValues === "ALL_OLD" ? { Attributes: old } : {};
    });
    dynamo.on(UpdateCommand).callsFake((input: UpdateCommandInput) => {
      const table = definitionOf(input.TableName);
      if (!table) return {};
      const rows = itemsOf(table);
      const current = rows.find(sameKey(table, input.Key));
      if (input.ConditionExpression && !holds(input.ConditionExpression, current, input.ExpressionAttributeNames ?? {}, input.ExpressionAttributeValues ?? {})) throw conditionFailed();
      const item = current ?? { ...input.Key };
      if (!current) rows.push(item);
      applyUpdate(item, input);
      // UPDATED_NEW answers with the whole item: a superset of the updated attributes, which is all callers read.
      return input.ReturnValues === "ALL_NEW" || input.ReturnValues === "UPDATED_NEW" ? { Attributes: structuredClone(item) } : {};
    });
    // All or nothing, as DynamoDB does: every action is tried on a staged copy, kept only when all conditions hold.
    dynamo.on(TransactWriteCommand).callsFake((input: TransactWriteCommandInput) => {
      const staged = new Map([...held].map(([name, rows]) => [name, structuredClone(rows)]));
      for (const { Put, Update, Delete, ConditionCheck } of input.TransactItems ?? []) {
        const op = (Put ?? Update ?? Delete ?? ConditionCheck)!;
        const table = definitionOf(op.TableName);
        if (!table) continue;
        const rows = staged.get(table.name)!;
        const at = rows.findIndex(sameKey(table, Put ? (Put.Item as Item) : (op as { Key: Item }).Key));
        const current = at >= 0 ? rows[at] : undefined;
        if (op.ConditionExpression && !holds(op.ConditionExpression, current, op.ExpressionAttributeNames ?? {}, op.ExpressionAttributeValues ?? {})) {
          throw new TransactionCanceledException({ message: "Transaction cancelled", $metadata: {} });
        }
        if (Put) {
          if (at >= 0) rows[at] = Put.Item as Item;
          else rows.push(Put.Item as Item);
        } else if (Delete) {
          if (at >= 0) rows.splice(at, 1);
        } else if (Update) {
          const item = current ?? { ...Update.Key };
          if (!current) rows.push(item);
          applyUpdate(item, Update as UpdateCommandInput);
        }
      }
      for (const [name, rows] of staged) held.get(name)!.splice(0, held.get(name)!.length, ...rows);
      return {};
    });
  }

  return { put, items: (name) => held.get(name)! };
}

/** serveTables before each of this file's tests (after the mock's reset), as one handle for the file. */
export function useFakeTables(dynamo: AwsClientStub<DynamoDBDocumentClient>, contents: () => Partial<Record<TableName, Item[]>> = () => ({})): FakeTables {
  let current: FakeTables | undefined;
  beforeEach(() => {
    current = serveTables(dynamo, contents());
  });
  const now = () => {
    if (!current) throw new Error("The fake tables are not there yet: use them inside a test or a hook");
    return current;
  };
  return { put: (name, ...items) => now().put(name, ...items), items: (name) => now().items(name) };
}

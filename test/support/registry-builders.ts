import { randomUUID } from "node:crypto";
import { BatchGetCommand, GetCommand, QueryCommand, type BatchGetCommandInput, type DynamoDBDocumentClient, type GetCommandInput, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import type { AwsClientStub } from "aws-sdk-client-mock";
import type { Caller } from "../../shared/domain/caller.js";
import type { RegistryHead, RegistryVersion } from "../../shared/domain/registry/records.js";

export const REGISTRY_TABLE = "platform-registry";

/** A prompt head at version 1, private to its owner, unless told otherwise. */
export function aRegistryHead(overrides: Partial<RegistryHead> = {}): RegistryHead {
  return {
    kind: "prompt",
    workspace: randomUUID(),
    organization: randomUUID(),
    id: randomUUID(),
    name: "greeting",
    title: null,
    description: null,
    owner: randomUUID(),
    sharingScope: "private",
    workspaceRelation: null,
    createdAt: "2025-01-01T00:00:00.000Z",
    updatedAt: "2025-01-01T00:00:00.000Z",
    latestVersion: 1,
    latestHash: "hash-1",
    aliases: {},
    revision: 1,
    ...overrides,
  };
}

export function aRegistryVersion<D = { content: string; variables: { name: string }[] }>(overrides: Partial<RegistryVersion<D>> = {}): RegistryVersion<D> {
  return {
    id: randomUUID(),
    version: 1,
    definition: { content: "Hello {{name}}", variables: [{ name: "name" }] } as D,
    notes: null,
    createdAt: "2025-01-01T00:00:00.000Z",
    createdBy: randomUUID(),
    hash: "hash-1",
    ...overrides,
  };
}

const SEP = "\u0001";

/** A head as the registry table holds it: keys, the sort attributes of the four local indexes, no null fields. */
export function aHeadItem(head: RegistryHead): Record<string, unknown> {
  const { title, description, workspaceRelation, ...rest } = head;
  return {
    pk: `${head.kind}#${head.workspace}`,
    sk: `HEAD#${head.id}`,
    ...rest,
    ...(title === null ? {} : { title }),
    ...(description === null ? {} : { description }),
    ...(workspaceRelation === null ? {} : { workspaceRelation }),
    createdKey: `${head.createdAt}#${head.id}`,
    modifiedKey: `${head.updatedAt}#${head.id}`,
    nameKey: `${head.name.toLowerCase()}${SEP}${head.id}`,
    titleKey: `${(title ?? "").toLowerCase()}${SEP}${head.id}`,
  };
}

/** A version in its entry's own partition. */
export function aVersionItem(head: Pick<RegistryHead, "kind" | "workspace" | "id">, version: RegistryVersion): Record<string, unknown> {
  const { notes, ...rest } = version;
  return {
    pk: `${head.kind}#${head.workspace}#${head.id}`,
    sk: `V#${String(version.version).padStart(10, "0")}`,
    ...rest,
    id: head.id,
    ...(notes === null ? {} : { notes }),
  };
}

const INDEX_ATTRIBUTE: Record<string, string> = { byCreated: "createdKey", byModified: "modifiedKey", byName: "nameKey", byTitle: "titleKey" };

/**
 * Answers the registry's reads from `items` as DynamoDB would: gets and batch gets by key; queries on a
 * partition, in the order of the table's or an index's sort key, Limit counted before the filter, with
 * a LastEvaluatedKey when the partition goes on. The filter is the store's: visible to `:me`, and
 * holding `#alias` when asked; a ProjectionExpression keeps only the attributes it names. Returns the items, so a test can change them between calls.
 */
export function serveRegistry(dynamo: AwsClientStub<DynamoDBDocumentClient>, items: Record<string, unknown>[]): Record<string, unknown>[] {
  const at = (key: Record<string, unknown> | undefined) => (item: Record<string, unknown>) => item.pk === key?.pk && item.sk === key?.sk;
  dynamo.on(GetCommand).callsFake((input: GetCommandInput) => ({ Item: input.TableName === REGISTRY_TABLE ? items.find(at(input.Key)) : undefined }));
  dynamo.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => ({
    Responses: Object.fromEntries(
      Object.entries(input.RequestItems ?? {}).map(([name, { Keys }]) => [name, items.filter((item) => (Keys ?? []).some((key) => at(key)(item)))]),
    ),
  }));
  dynamo.on(QueryCommand).callsFake((input: QueryCommandInput) => {
    const values = input.ExpressionAttributeValues ?? {};
    const sortBy = input.IndexName ? INDEX_ATTRIBUTE[input.IndexName]! : "sk";
    const ordered = items
      .filter((item) => item.pk === values[":pk"] && item[sortBy] !== undefined)
      .sort((a, b) => (String(a[sortBy]) < String(b[sortBy]) ? -1 : 1));
    if (input.ScanIndexForward === false) ordered.reverse();
    const start = input.ExclusiveStartKey ? ordered.findIndex(at(input.ExclusiveStartKey)) + 1 : 0;
    const evaluated = ordered.slice(start, start + (input.Limit ?? Infinity));
    const alias = input.ExpressionAttributeNames?.["#alias"];
    const visible = (item: Record<string, unknown>) =>
      !input.FilterExpression ||
      ((item.sharingScope === values[":workspace"] || item.owner === values[":me"]) &&
        (alias === undefined || (item.aliases as Record<string, number>)[alias] !== undefined));
    const last = evaluated.at(-1);
    const more = start + evaluated.length < ordered.length && last;
    const names = input.ExpressionAttributeNames ?? {};
    const projected = input.ProjectionExpression?.split(",").map((p) => names[p.trim()] ?? p.trim());
    const project = (item: Record<string, unknown>) => (projected ? Object.fromEntries(projected.map((a) => [a, item[a]])) : item);
    return {
      Items: evaluated.filter(visible).map(project),
      ...(more ? { LastEvaluatedKey: { pk: last.pk, sk: last.sk, ...(input.IndexName ? { [sortBy]: last[sortBy] } : {}) } } : {}),
    };
  });
  return items;
}

/** A stored entry (head and its versions 1..latestVersion) as items for serveRegistry. */
export function anEntry(head: RegistryHead, versions: Partial<RegistryVersion>[] = []) {
  const all = Array.from({ length: head.latestVersion }, (_, i) => aRegistryVersion({ id: head.id, version: i + 1, ...versions[i] }));
  return { head, versions: all, items: [aHeadItem(head), ...all.map((v) => aVersionItem(head, v))] };
}

/**
 * An entry `caller` owns in their workspace (other head fields and versions as given), served to the
 * mocked client by serveRegistry; `items` are the served items, for a test to change between calls.
 */
export function aServedEntry(
  dynamo: AwsClientStub<DynamoDBDocumentClient>,
  caller: Pick<Caller, "workspace" | "principal">,
  head: Partial<RegistryHead> = {},
  versions: Partial<RegistryVersion>[] = [],
) {
  const entry = anEntry(aRegistryHead({ workspace: caller.workspace, owner: caller.principal, ...head }), versions);
  return { ...entry, items: serveRegistry(dynamo, entry.items) };
}

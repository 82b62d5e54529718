import { randomUUID } from "node:crypto";
import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type BatchGetCommandInput, type DeleteCommandInput, type DynamoDBDocumentClient, type GetCommandInput, type PutCommandInput, type QueryCommandInput, type UpdateCommandInput } from "@aws-sdk/lib-dynamodb";
import type { AwsClientStub } from "aws-sdk-client-mock";
import { isFinal, type BatchJobRecord } from "../../shared/domain/batch-rules.js";
import { catalogItems } from "./agents-table.js";
import { applyUpdate, conditionFailed, holds } from "./fake-table.js";

export const BATCH_TABLE = "platform-batch";

/** A queued chat job on `mistral-small-latest` over one input file, as the store keeps it. */
export function aBatchJob(overrides: Partial<BatchJobRecord> = {}): BatchJobRecord {
  const createdAt = overrides.createdAt ?? 1_700_000_000;
  const timeoutHours = overrides.timeoutHours ?? 24;
  return {
    id: randomUUID(),
    workspace: randomUUID(),
    organization: randomUUID(),
    owner: randomUUID(),
    endpoint: "/v1/chat/completions",
    model: "mistral-small-latest",
    agentId: null,
    metadata: null,
    inputFiles: [randomUUID()],
    inlineKey: null,
    status: "QUEUED",
    createdAt,
    startedAt: null,
    completedAt: null,
    timeoutHours,
    deadline: createdAt + timeoutHours * 3600,
    totalRequests: 0,
    completedRequests: 0,
    succeededRequests: 0,
    failedRequests: 0,
    outputFile: null,
    errorFile: null,
    errors: [],
    executionArn: `arn:aws:states:us-east-1:123456789012:execution:batch:${randomUUID()}`,
    ...overrides,
  };
}

/** The item of a job: the record plus its keys; only unfinished jobs carry the `active` index key. */
export const aBatchJobItem = (job: BatchJobRecord): Record<string, unknown> => ({
  ...job,
  sk: `JOB#${job.id}`,
  createdKey: `${String(job.createdAt * 1000).padStart(15, "0")}#${job.id}`,
  ...(isFinal(job.status) ? {} : { activeKey: "ACTIVE" }),
});

export interface ServedTables {
  /** Batch table items: kept and changed by puts, updates and deletes as DynamoDB would. */
  batch?: Record<string, unknown>[];
  files?: Record<string, unknown>[];
  agents?: Record<string, unknown>[];
  models?: Record<string, unknown>[];
}

/** Throws as DynamoDB does when a write's condition fails for `item`. */
function checkCondition(input: PutCommandInput | UpdateCommandInput, item: Record<string, unknown> | undefined): void {
  if (input.ConditionExpression && !holds(input.ConditionExpression, item, input.ExpressionAttributeNames ?? {}, input.ExpressionAttributeValues ?? {})) throw conditionFailed();
}

const matches = (key: Record<string, unknown> | undefined) => (item: Record<string, unknown>) =>
  Object.entries(key ?? {}).every(([k, v]) => item[k] === v);

/**
 * The tables a batch handler reads, served from memory: gets and batch gets by key on every table, the
 * batch table's writes applied with the store's conditions, and its byCreated queries answered in the
 * asked order (FilterExpression is not applied: tests look at it; Select COUNT counts the partition).
 * The models table defaults to the handler tests' catalog.
 */
export function serveBatchTables(dynamo: AwsClientStub<DynamoDBDocumentClient>, served: ServedTables = {}) {
  const tables: Record<string, Record<string, unknown>[]> = {
    [BATCH_TABLE]: served.batch ?? [],
    "platform-files": served.files ?? [],
    "platform-agents": served.agents ?? [],
    "platform-models": served.models ?? catalogItems(),
  };
  const tableOf = (name: string | undefined) => tables[name ?? ""] ?? [];
  const batch = tables[BATCH_TABLE]!;
  const indexOf = (key: Record<string, unknown> | undefined) => batch.findIndex(matches(key));

  dynamo.on(GetCommand).callsFake((input: GetCommandInput) => ({ Item: tableOf(input.TableName).find(matches(input.Key)) }));
  dynamo.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => ({
    Responses: Object.fromEntries(
      Object.entries(input.RequestItems ?? {}).map(([name, { Keys }]) => [name, tableOf(name).filter((item) => (Keys ?? []).some((key) => matches(key)(item)))]),
    ),
  }));
  dynamo.on(PutCommand).callsFake((input: PutCommandInput) => {
    if (input.TableName !== BATCH_TABLE) return {};
    const key = { workspace: input.Item!.workspace, sk: input.Item!.sk };
    checkCondition(input, batch[indexOf(key)]);
    batch.push(input.Item!);
    return {};
  });
  dynamo.on(UpdateCommand).callsFake((input: UpdateCommandInput) => {
    if (input.TableName !== BATCH_TABLE) return {};
    const at = indexOf(input.Key);
    checkCondition(input, batch[at]);
    batch[at] = { ...batch[at] };
    applyUpdate(batch[at], input);
    return input.ReturnValues === "ALL_NEW" ? { Attributes: batch[at] } : {};
  });
  dynamo.on(DeleteCommand).callsFake((input: DeleteCommandInput) => {
    if (input.TableName !== BATCH_TABLE) return {};
    const at = indexOf(input.Key);
    if (at < 0) return {};
    const [old] = batch.splice(at, 1);
    return input.ReturnValues === "ALL_OLD" ? { Attributes: old } : {};
  });
  dynamo.on(QueryCommand).callsFake((input: QueryCommandInput) => {
    const workspace = input.ExpressionAttributeValues?.[":workspace"];
    let rows = tableOf(input.TableName)
      .filter((item) => item.workspace === workspace && item.createdKey !== undefined)
      .toSorted((a, b) => String(a.createdKey).localeCompare(String(b.createdKey)));
    if (input.ScanIndexForward === false) rows = rows.toReversed();
    if (input.Select === "COUNT") return { Count: rows.length };
    return { Items: rows.slice(0, input.Limit ?? rows.length) };
  });

  return {
    /** The batch table's items now. */
    jobs: batch,
    job: (workspace: string, id: string) => batch.find(matches({ workspace, sk: `JOB#${id}` })),
  };
}

/** The batch-table calls of one command type, as their inputs. */
export const batchCalls = <T>(dynamo: AwsClientStub<DynamoDBDocumentClient>, command: abstract new (...args: never[]) => T) =>
  dynamo
    .commandCalls(command as never)
    .map((c) => c.args[0].input as Record<string, any>)
    .filter((input) => input.TableName === BATCH_TABLE);

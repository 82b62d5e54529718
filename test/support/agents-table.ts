import { randomUUID } from "node:crypto";
import { BatchGetCommand, BatchWriteCommand, DeleteCommand, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type BatchGetCommandInput, type DynamoDBDocumentClient, type GetCommandInput, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import type { AwsClientStub } from "aws-sdk-client-mock";
import type { AgentHead, AgentVersion } from "../../shared/domain/agents.js";
import { aModelEntry, aModelItem } from "./builders.js";

export const AGENTS_TABLE = "platform-agents";
const MODELS_TABLE = "platform-models";

/** An agent's head as the store keeps it: version 1 of a chat agent on `mistral-small-latest`. */
export function anAgentHead(overrides: Partial<AgentHead> = {}): AgentHead {
  return {
    id: randomUUID(),
    workspace: randomUUID(),
    organization: randomUUID(),
    ownerId: randomUUID(),
    source: "api",
    createdAt: "2025-01-01T00:00:00.000Z",
    updatedAt: "2025-01-01T00:00:00.000Z",
    version: 1,
    latestVersion: 1,
    name: "helper",
    model: "mistral-small-latest",
    instructions: null,
    description: null,
    tools: [],
    completion_args: {},
    guardrails: null,
    handoffs: null,
    metadata: null,
    deployment_chat: false,
    version_message: null,
    ...overrides,
  };
}

/** Version `n` of an agent: its head's fields unless told otherwise. */
export function anAgentVersion(head: AgentHead, version: number, overrides: Partial<AgentVersion> = {}): AgentVersion {
  const { workspace: _w, organization: _o, ownerId: _owner, source: _s, createdAt: _c, updatedAt: _u, version: _v, latestVersion: _l, ...config } = head;
  return { ...config, version, createdAt: `2025-01-0${Math.min(version, 9)}T00:00:00.000Z`, ...overrides };
}

export const agentHeadItem = (head: AgentHead): Record<string, unknown> => ({
  ...head,
  pk: `WS#${head.workspace}`,
  sk: `AGENT#${head.id}`,
  createdKey: `${String(Date.parse(head.createdAt)).padStart(15, "0")}#${head.id}`,
  nameLower: head.name.toLowerCase(),
});

export const agentVersionItem = (workspace: string, version: AgentVersion): Record<string, unknown> => ({
  ...version,
  pk: `WS#${workspace}#AGENT#${version.id}`,
  sk: `V#${String(version.version).padStart(10, "0")}`,
});

export const agentAliasItem = (workspace: string, agentId: string, alias: string, version: number): Record<string, unknown> => ({
  pk: `WS#${workspace}#AGENT#${agentId}`,
  sk: `ALIAS#${alias}`,
  alias,
  version,
  createdAt: "2025-02-01T00:00:00.000Z",
  updatedAt: "2025-02-02T00:00:00.000Z",
});

/** An agent as the table holds it: its head item, then the versions given (number: field overrides), then its aliases (name: version). */
export const anAgentsItems = (head: AgentHead, stored: { versions?: Record<number, Partial<AgentVersion>>; aliases?: Record<string, number> } = {}): Record<string, unknown>[] => [
  agentHeadItem(head),
  ...Object.entries(stored.versions ?? {}).map(([n, overrides]) => agentVersionItem(head.workspace, anAgentVersion(head, Number(n), overrides))),
  ...Object.entries(stored.aliases ?? {}).map(([alias, version]) => agentAliasItem(head.workspace, head.id, alias, version)),
];

/** The offline catalog's models as handler tests need them: two chat models and an embeddings one. */
export const catalogItems = () => [
  aModelItem(aModelEntry({ id: "mistral-small-latest", endpoints: ["chat"], maxContextLength: 32768 })),
  aModelItem(aModelEntry({ id: "codestral-latest", endpoints: ["chat", "fim"], maxContextLength: 32768 })),
  aModelItem(aModelEntry({ id: "tiny-context", endpoints: ["chat"], maxContextLength: 40 })),
  aModelItem(aModelEntry({ id: "mistral-embed", endpoints: ["embeddings"], tokenizer: "v1" })),
];

/**
 * Answers reads of the agents table from `items` as DynamoDB would: gets by key, queries by partition
 * (sort-key prefix or range, or the byCreated index in either order, from an ExclusiveStartKey, up to
 * Limit; FilterExpression is not applied: tests look at it), and the models table from `models`.
 * Writes resolve with nothing unless a test says otherwise.
 */
export function serveAgentsTable(dynamo: AwsClientStub<DynamoDBDocumentClient>, items: Record<string, unknown>[], models = catalogItems()): void {
  const tableOf = (name: string | undefined) => (name === AGENTS_TABLE ? items : name === MODELS_TABLE ? models : []);
  const matches = (key: Record<string, unknown> | undefined) => (item: Record<string, unknown>) =>
    Object.entries(key ?? {}).every(([k, v]) => item[k] === v);
  dynamo.on(GetCommand).callsFake((input: GetCommandInput) => ({ Item: tableOf(input.TableName).find(matches(input.Key)) }));
  dynamo.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => ({
    Responses: Object.fromEntries(Object.entries(input.RequestItems ?? {}).map(([name, { Keys }]) => [name, tableOf(name).filter((item) => (Keys ?? []).some((key) => matches(key)(item)))])),
  }));
  dynamo.on(QueryCommand).callsFake((input: QueryCommandInput) => {
    const values = input.ExpressionAttributeValues ?? {};
    if (input.TableName === MODELS_TABLE) {
      return { Items: models.filter((m) => m.scope === values[":scope"] && String(m.sk).startsWith(String(values[":prefix"] ?? ""))) };
    }
    const sortBy = input.IndexName === "byCreated" ? "createdKey" : "sk";
    let rows = tableOf(input.TableName)
      .filter((item) => item.pk === values[":pk"] && item[sortBy] !== undefined)
      .filter((item) => (values[":prefix"] === undefined ? true : String(item.sk).startsWith(String(values[":prefix"]))))
      .filter((item) => (values[":low"] === undefined ? true : String(item.sk) >= String(values[":low"]) && String(item.sk) <= String(values[":high"])))
      .toSorted((a, b) => String(a[sortBy]).localeCompare(String(b[sortBy])));
    if (input.ScanIndexForward === false) rows = rows.toReversed();
    if (input.ExclusiveStartKey) rows = rows.slice(rows.findIndex((r) => r.sk === input.ExclusiveStartKey!.sk) + 1);
    const page = rows.slice(0, input.Limit ?? rows.length);
    const more = page.length < rows.length;
    const last = page.at(-1);
    return { Items: page, ...(more && last ? { LastEvaluatedKey: { pk: last.pk, sk: last.sk, ...(sortBy === "createdKey" ? { createdKey: last.createdKey } : {}) } } : {}) };
  });
  dynamo.on(TransactWriteCommand).resolves({});
  dynamo.on(UpdateCommand).resolves({});
  dynamo.on(DeleteCommand).resolves({});
  dynamo.on(BatchWriteCommand).resolves({});
}

/** The agents-table calls of one command type, as their inputs. */
export const agentCalls = <T>(dynamo: AwsClientStub<DynamoDBDocumentClient>, command: abstract new (...args: never[]) => T) =>
  dynamo
    .commandCalls(command as never)
    .map((c) => c.args[0].input as Record<string, any>)
    .filter((input) => input.TableName === AGENTS_TABLE || input.TransactItems || input.RequestItems?.[AGENTS_TABLE]);

import { randomUUID } from "node:crypto";
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from "aws-lambda";
import type { APIGatewayRequestAuthorizerEvent } from "aws-lambda";
import type { ApiKeyRecord } from "../../shared/domain/api-keys.js";
import type { FileRecord, PendingUpload } from "../../shared/domain/file-rules.js";
import { objectKeyFor } from "../../shared/domain/file-rules.js";
import type { Caller } from "../../shared/domain/caller.js";
import { toCallerContext } from "../../shared/http/caller.js";
import type { RouteHandler } from "../../shared/http/route.js";
import type { ModelEntry } from "../../shared/domain/models.js";
import type { UsageRecord } from "../../shared/domain/usage.js";
import { BatchWriteCommand, PutCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { AwsClientStub } from "aws-sdk-client-mock";
import { ResponseStream, type Metadata } from "../../infra/local/lambda-streaming.js";
import { routes } from "../../functions/routes.js";
import { routeMatcher } from "../../infra/local/route-matcher.js";
import { renameParameters } from "../../shared/http/resource-paths.js";
import { serveTables } from "./fake-table.js";

export function aCaller(overrides: Partial<Caller> = {}): Caller {
  return {
    organization: randomUUID(),
    workspace: randomUUID(),
    principal: randomUUID(),
    principalType: "user",
    // A member of the workspace who may use and build everything in it (not administer it).
    roles: ["workspace_contributor"],
    admin: false,
    keyId: "0123456789abcdef",
    ...overrides,
  };
}

/** One model call's usage record, of a random workspace. */
export function aUsageRecord(overrides: Partial<UsageRecord> = {}): UsageRecord {
  const caller = aCaller();
  return {
    workspace: caller.workspace,
    organization: caller.organization,
    principal: caller.principal,
    requestId: randomUUID(),
    model: "mistral-small-latest",
    route: "POST /v1/chat/completions",
    promptTokens: 12,
    completionTokens: 5,
    latencyMs: 3,
    status: 200,
    backend: "offline",
    keyId: caller.keyId,
    costMicros: 17,
    at: new Date().toISOString(),
    ...overrides,
  };
}

/** The identity of a file or upload: its id, a random workspace and owner, and where its bytes live. */
function anObjectIdentity(overrides: { id?: string; workspace?: string }) {
  const id = overrides.id ?? randomUUID();
  const workspace = overrides.workspace ?? randomUUID();
  return { id, workspace, organization: randomUUID(), owner: randomUUID(), objectKey: objectKeyFor(workspace, id) };
}

export function aFile(overrides: Partial<FileRecord> = {}): FileRecord {
  return {
    ...anObjectIdentity(overrides),
    filename: "train.jsonl",
    bytes: 16,
    createdAt: 1_700_000_000,
    purpose: "fine-tune",
    sampleType: "instruct",
    source: "upload",
    mimetype: "application/jsonl",
    numLines: 2,
    signature: null,
    expiresAt: null,
    visibility: "workspace",
    ...overrides,
  };
}

export interface EventInput {
  method?: string;
  path?: string;
  resource?: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string | string[]>;
  headers?: Record<string, string>;
  body?: string | null;
  isBase64Encoded?: boolean;
  /** null: no authorizer context (a public route, or a test of the missing-caller path). */
  caller?: Caller | null;
}

const matchRoute = routeMatcher(routes);

/** An API Gateway REST proxy event as the authorizer-fronted integration delivers it. */
export function anEvent(input: EventInput = {}): APIGatewayProxyEvent {
  const query = input.query ?? {};
  const multi = Object.fromEntries(Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]));
  const single = Object.fromEntries(Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? v[v.length - 1]! : v]));
  const path = input.path ?? "/v1/files";
  const caller = input.caller === undefined ? aCaller() : input.caller;
  // API Gateway names the matched resource (the row's path with one variable name per level) and sends the
  // parameters under its names; the handler chain finds the row by it and renames them back (decision 0032).
  // Parameters given under the row's names are sent as API Gateway would; an explicit `resource` is sent as given.
  const matched = input.resource === undefined ? matchRoute(input.method ?? "GET", path) : undefined;
  const resource = input.resource ?? (matched?.row ? matched.resource : path);
  const pathParameters = matched?.row ? renameParameters(input.pathParameters, matched.row.path, matched.resource) : (input.pathParameters ?? null);
  return {
    resource,
    path,
    httpMethod: input.method ?? "GET",
    headers: { Host: "api.example.test", "X-Forwarded-Proto": "https", ...input.headers },
    multiValueHeaders: {},
    queryStringParameters: Object.keys(single).length ? single : null,
    multiValueQueryStringParameters: Object.keys(multi).length ? multi : null,
    pathParameters,
    stageVariables: null,
    body: input.body ?? null,
    isBase64Encoded: input.isBase64Encoded ?? false,
    requestContext: {
      accountId: "123456789012",
      apiId: "api",
      authorizer: caller ? { ...toCallerContext(caller), principalId: caller.principal } : null,
      domainName: "api.example.test",
      httpMethod: input.method ?? "GET",
      identity: { sourceIp: "203.0.113.1" } as APIGatewayProxyEvent["requestContext"]["identity"],
      path: `/prod${path}`,
      protocol: "HTTP/1.1",
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: "res",
      resourcePath: resource,
      stage: "prod",
    },
  };
}

/** A multipart/form-data body as API Gateway hands it over: base64, binary media type. */
export function multipartEvent(fields: Record<string, string | string[] | { filename: string; content: string | Buffer; type?: string }>, input: EventInput = {}) {
  const boundary = "----testboundary1234567890";
  const parts: Buffer[] = [];
  // A list is the same field repeated, as the SDKs send lists.
  const entries = Object.entries(fields).flatMap(([name, value]) => (Array.isArray(value) ? value.map((v) => [name, v] as const) : [[name, value] as const]));
  for (const [name, value] of entries) {
    if (typeof value === "string") {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    } else {
      parts.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${value.filename}"\r\nContent-Type: ${value.type ?? "application/octet-stream"}\r\n\r\n`,
        ),
        Buffer.from(value.content),
        Buffer.from("\r\n"),
      );
    }
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return anEvent({
    method: "POST",
    ...input,
    headers: { "Content-Type": `multipart/form-data; boundary=${boundary}`, ...input.headers },
    body: Buffer.concat(parts).toString("base64"),
    isBase64Encoded: true,
  });
}

export const aContext = (): Context =>
  ({
    functionName: "test",
    functionVersion: "$LATEST",
    invokedFunctionArn: "arn:aws:lambda:us-east-1:123456789012:function:test",
    memoryLimitInMB: "512",
    awsRequestId: randomUUID(),
    logGroupName: "test",
    logStreamName: "test",
    getRemainingTimeInMillis: () => 29_000,
    callbackWaitsForEmptyEventLoop: false,
  }) as Context;

/** What `fn` throws, when it is a `kind`; anything else it throws is thrown on, and throwing nothing fails. */
export function thrownBy<E>(fn: () => unknown, kind: abstract new (...args: never[]) => E): E {
  try {
    fn();
  } catch (error) {
    if (error instanceof kind) return error;
    throw error;
  }
  throw new Error(`expected ${/^[AEIOU]/.test(kind.name) ? "an" : "a"} ${kind.name}`);
}

/** Calls a handler and parses a JSON body when there is one. */
export async function invoke(handler: RouteHandler, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult & { json: any }> {
  const result = await handler(event, aContext());
  const type = String(result.headers?.["content-type"] ?? "");
  return { ...result, json: type.includes("json") && result.body ? JSON.parse(result.body) : undefined };
}

/** A JSON request as API Gateway delivers it: POST by default, `content-type: application/json`. */
export function aJsonEvent(body: unknown, input: EventInput = {}): APIGatewayProxyEvent {
  return anEvent({
    method: "POST",
    ...input,
    headers: { "Content-Type": "application/json", ...input.headers },
    body: JSON.stringify(body),
  });
}

/** A file record as the files table holds it: the record plus its keys and index attributes. */
export function aFileItem(file: FileRecord, createdAtMs = file.createdAt * 1000): Record<string, unknown> {
  const { expiresAt, ...rest } = file;
  return {
    ...rest,
    sk: `FILE#${file.id}`,
    createdKey: `${String(createdAtMs).padStart(15, "0")}#${file.id}`,
    filenameLower: file.filename.toLowerCase(),
    // Files that never expire have no expiresAt (it keys the sparse byExpiry index) and no ttl.
    ...(expiresAt === null ? {} : { expiresAt, ttl: expiresAt }),
  };
}

/** Where the URL-signing secret lives in the tenancy table (version 1). */
export const SIGNING_KEY = { pk: "#SYSTEM", sk: "URL_SIGNING_KEY#1" };

/** The URL-signing secret's item in the tenancy table. */
export const aSigningKeyItem = (secret: Buffer): Record<string, unknown> => ({ ...SIGNING_KEY, secret: secret.toString("base64") });

export function aPendingUpload(overrides: Partial<PendingUpload> = {}): PendingUpload {
  return {
    ...anObjectIdentity(overrides),
    s3UploadId: "s3-upload-id",
    filename: "train.jsonl",
    bytes: 20 * 1024 * 1024,
    purpose: "fine-tune",
    visibility: "workspace",
    expiryHours: null,
    mimetype: "application/jsonl",
    partSize: 8 * 1024 * 1024,
    partCount: 3,
    expiresAt: Math.floor(Date.now() / 1000) + 3600,
    ...overrides,
  };
}

/** The stored item of a pending upload. */
/** As the store keeps it: the part-URL deadline under `urlsExpireAt`, never `expiresAt` (the files-only index key). */
export const aPendingUploadItem = ({ expiresAt, ...upload }: PendingUpload): Record<string, unknown> => ({
  ...upload,
  sk: `UPLOAD#${upload.id}`,
  urlsExpireAt: expiresAt,
  ttl: expiresAt,
});

export function anApiKeyRecord(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    keyId: "0123456789abcdef",
    hash: "0".repeat(64),
    name: "test",
    organization: randomUUID(),
    workspace: randomUUID(),
    principal: randomUUID(),
    principalType: "service_account",
    roles: [],
    admin: false,
    createdAt: "2024-01-01T00:00:00.000Z",
    revokedAt: null,
    preview: "pak_0123…",
    ...overrides,
  };
}

/** What API Gateway hands a REQUEST authorizer. */
export function anAuthorizerEvent(input: { headers?: Record<string, string> | null; methodArn?: string } = {}): APIGatewayRequestAuthorizerEvent {
  return {
    type: "REQUEST",
    methodArn: input.methodArn ?? "arn:aws:execute-api:us-east-1:123456789012:abcdef1234/prod/GET/v1/files",
    resource: "/v1/files",
    path: "/v1/files",
    httpMethod: "GET",
    headers: input.headers === undefined ? {} : input.headers,
    multiValueHeaders: null,
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    requestContext: anEvent().requestContext,
  } as APIGatewayRequestAuthorizerEvent;
}

/** A model as the catalog keeps it; a base chat model served by the offline provider unless told otherwise. */
export function aModelEntry(overrides: Partial<ModelEntry> = {}): ModelEntry {
  return {
    id: `model-${randomUUID().slice(0, 8)}`,
    type: "base",
    aliases: [],
    provider: "offline",
    upstream: "offline-echo",
    endpoints: ["chat"],
    capabilities: { function_calling: true, vision: false, fine_tuning: false, classification: false },
    maxContextLength: 32768,
    tokenizer: "v3",
    ownedBy: "offline",
    created: 1_700_000_000,
    name: null,
    description: null,
    dimensions: null,
    defaultTemperature: null,
    archived: false,
    ...overrides,
  };
}

/** A fine-tuned model registered in a workspace, tuned from `root` by a fine-tuning job. */
export function aFineTunedModelEntry(overrides: Partial<ModelEntry> & { workspace?: string } = {}): ModelEntry & { workspace: string } {
  const workspace = overrides.workspace ?? randomUUID();
  const root = overrides.root ?? "mistral-small-latest";
  const suffix = randomUUID().slice(0, 8);
  return {
    ...aModelEntry({ aliases: [], ownedBy: workspace, created: 1_710_000_000 }),
    id: `ft:${root}:${suffix}:20240301:${suffix}`,
    type: "fine-tuned",
    upstream: `ft-upstream-${suffix}`,
    workspace,
    root,
    rootVersion: "offline-echo",
    job: randomUUID(),
    ...overrides,
  };
}

/** A model's item in the models table: base models under scope BASE, fine-tuned ones under their workspace. */
export function aModelItem(model: ModelEntry): Record<string, unknown> {
  const scope = model.type === "fine-tuned" ? `WS#${model.workspace}` : "BASE";
  return { scope, sk: `MODEL#${model.id}`, ...model };
}

/** A base-catalog alias: a pointer item to the model it names. */
export const anAliasItem = (alias: string, target: string): Record<string, unknown> => ({ scope: "BASE", sk: `ALIAS#${alias}`, target });

/**
 * Answers the models table reads of modelStore from `items` as DynamoDB would (serveTables): batch gets
 * and gets by key, queries by scope and sort-key prefix. Reads of any other table find nothing.
 */
export function serveModelsTable(dynamo: AwsClientStub<DynamoDBDocumentClient>, items: Record<string, unknown>[]): void {
  serveTables(dynamo, { models: items });
}

export interface StreamedResult {
  /** What the handler attached before its first byte (status and headers). */
  metadata: Metadata | undefined;
  body: string;
  /** The body parsed, when the metadata says it is JSON. */
  json: any;
}

/** Calls a streaming handler as the Lambda runtime does, with a response stream that collects everything. */
export async function invokeStream(handler: RouteHandler, event: APIGatewayProxyEvent): Promise<StreamedResult> {
  const chunks: Buffer[] = [];
  const stream = new ResponseStream(
    () => undefined,
    (chunk) => chunks.push(Buffer.from(chunk)),
  );
  const streaming = handler as unknown as (event: APIGatewayProxyEvent, stream: ResponseStream, context: Context) => Promise<void>;
  await streaming(event, stream, aContext());
  const body = Buffer.concat(chunks).toString("utf8");
  const type = String(stream.metadata?.headers?.["content-type"] ?? "");
  return { metadata: stream.metadata, body, json: type.includes("json") && body ? JSON.parse(body) : undefined };
}

/** The payloads of a server-sent events body (`data: <payload>\n\n` frames), in order. */
export const ssePayloads = (body: string): string[] =>
  body
    .split("\n\n")
    .filter(Boolean)
    .map((frame) => frame.replace(/^data: /, ""));

/** The chunks of a streamed completion's SSE body, without the closing [DONE]. */
export const sseChunks = (body: string) =>
  ssePayloads(body)
    .filter((p) => p !== "[DONE]")
    .map((p) => JSON.parse(p));

/** The text a streamed completion's chunks carry, every choice's deltas joined. */
export const streamedContent = (body: string) =>
  sseChunks(body)
    .map((c) => c.choices.map((choice: { delta: { content?: string } }) => choice.delta.content ?? "").join(""))
    .join("");

/** The usage records the mocked client was asked to write. */
export const usageRecordsWritten = (dynamo: AwsClientStub<DynamoDBDocumentClient>): { args: [{ input: { TableName: string; Item: Record<string, any> } }] }[] => [
  ...dynamo.commandCalls(PutCommand).filter((c) => c.args[0].input.TableName === "platform-usage").map((c) => ({ args: [{ input: { TableName: "platform-usage", Item: c.args[0].input.Item as Record<string, any> } }] as [{ input: { TableName: string; Item: Record<string, any> } }] })),
  // Records of calls that ended together go in one BatchWriteItem (shared/services/inference/usage-writes.ts).
  ...dynamo.commandCalls(BatchWriteCommand).flatMap((c) =>
    ((c.args[0].input.RequestItems?.["platform-usage"] ?? []) as { PutRequest?: { Item: Record<string, any> } }[])
      .filter((r) => r.PutRequest)
      .map((r) => ({ args: [{ input: { TableName: "platform-usage", Item: r.PutRequest!.Item } }] as [{ input: { TableName: string; Item: Record<string, any> } }] })),
  ),
];

/** What a usage record says of who made the call and which request it was. */
export const usageCallerOf = (caller: Caller, event: APIGatewayProxyEvent) => ({
  workspace: caller.workspace,
  organization: caller.organization,
  principal: caller.principal,
  requestId: event.requestContext.requestId,
});

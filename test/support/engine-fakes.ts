import { Readable } from "node:stream";
import { DeleteObjectsCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, type DeleteObjectsCommandInput, type GetObjectCommandInput, type PutObjectCommandInput, type S3Client } from "@aws-sdk/client-s3";
import { BatchGetCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand, type BatchGetCommandInput, type DynamoDBDocumentClient, type GetCommandInput, type TransactWriteCommandInput, type UpdateCommandInput } from "@aws-sdk/lib-dynamodb";
import type { AwsClientStub } from "aws-sdk-client-mock";
import type { BatchJobRecord } from "../../shared/domain/batch-rules.js";
import { aBatchJobItem, BATCH_TABLE } from "./batch-table.js";
import { applyUpdate, conditionFailed, holds } from "./fake-table.js";

/** An S3 body as the SDK gives it: iterable chunks, and transformToString. */
export const bodyOf = (text: string) => Object.assign(Readable.from([Buffer.from(text)]), { transformToString: async () => text });

/** The files bucket in memory: gets, puts and batch deletes, with NoSuchKey for a missing key. */
export function fakeBucket(s3: AwsClientStub<S3Client>, initial: Record<string, string> = {}): Map<string, string> {
  const objects = new Map(Object.entries(initial));
  s3.on(GetObjectCommand).callsFake((input: GetObjectCommandInput) => {
    const text = objects.get(input.Key!);
    if (text === undefined) throw new NoSuchKey({ message: "The specified key does not exist.", $metadata: {} });
    return { Body: bodyOf(text) };
  });
  s3.on(PutObjectCommand).callsFake((input: PutObjectCommandInput) => {
    objects.set(input.Key!, Buffer.isBuffer(input.Body) ? input.Body.toString("utf8") : String(input.Body));
    return {};
  });
  s3.on(DeleteObjectsCommand).callsFake((input: DeleteObjectsCommandInput) => {
    for (const { Key } of input.Delete?.Objects ?? []) objects.delete(Key!);
    return {};
  });
  return objects;
}

export interface FakeTables {
  /** The job's item as it is now (undefined once gone). */
  job(): Record<string, unknown> | undefined;
  /** File records created. */
  files: Record<string, unknown>[];
}

/**
 * One batch job's item, with the batch stores' updates and conditions applied as DynamoDB would; the
 * models table from `models`; usage and file writes accepted (file records kept).
 */
export function fakeTables(dynamo: AwsClientStub<DynamoDBDocumentClient>, job: BatchJobRecord | undefined, models: Record<string, unknown>[] = []): FakeTables {
  let item: Record<string, unknown> | undefined = job ? structuredClone(aBatchJobItem(job)) : undefined;
  const files: Record<string, unknown>[] = [];
  const modelAt = (key: Record<string, unknown> | undefined) => models.find((m) => m.scope === key?.scope && m.sk === key?.sk);
  dynamo.on(GetCommand).callsFake((input: GetCommandInput) => {
    if (input.TableName === BATCH_TABLE) return { Item: item && item.sk === input.Key?.sk ? structuredClone(item) : undefined };
    if (input.TableName === "platform-models") return { Item: modelAt(input.Key) };
    return {};
  });
  dynamo.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => ({
    Responses: Object.fromEntries(Object.entries(input.RequestItems ?? {}).map(([name, { Keys }]) => [name, name === "platform-models" ? (Keys ?? []).map(modelAt).filter(Boolean) : []])),
  }));
  dynamo.on(UpdateCommand).callsFake((input: UpdateCommandInput) => {
    if (input.TableName !== BATCH_TABLE) throw new Error(`fake table: update of ${input.TableName}`);
    const names = input.ExpressionAttributeNames ?? {};
    const values = input.ExpressionAttributeValues ?? {};
    const target = item && item.sk === input.Key?.sk ? item : undefined;
    if (input.ConditionExpression && !holds(input.ConditionExpression, target, names, values)) throw conditionFailed();
    if (!target) throw new Error("fake table: update of a missing item without a condition");
    applyUpdate(target, input);
    return input.ReturnValues === "ALL_NEW" ? { Attributes: structuredClone(target) } : {};
  });
  dynamo.on(PutCommand).resolves({});
  dynamo.on(TransactWriteCommand).callsFake((input: TransactWriteCommandInput) => {
    for (const write of input.TransactItems ?? []) if (write.Put?.TableName === "platform-files") files.push(write.Put.Item!);
    return {};
  });
  return { job: () => item, files };
}

import {
  DescribeTableCommand,
  DynamoDBClient,
  RestoreTableToPointInTimeCommand,
  UpdateContinuousBackupsCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import { BatchWriteCommand, DynamoDBDocumentClient, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { CopyObjectCommand, DeleteObjectCommand, ListObjectVersionsCommand, S3Client } from "@aws-sdk/client-s3";
import { tables, type TableDefinition, type TableName } from "../../shared/store/tables.js";

/**
 * The calls of the restore runbook (docs/operations.md "Restore"), one function per step, on clients the
 * caller gives (the CLI's real ones; aws-sdk-client-mock's in test/unit/scripts/restore.test.ts, since DynamoDB
 * Local has no point-in-time recovery).
 */
export interface RestoreClients {
  dynamo: DynamoDBClient;
  s3: S3Client;
  /** Polls between DescribeTable calls (tests pass a no-op). */
  sleep?: (ms: number) => Promise<void>;
}

const definition = (name: TableName): TableDefinition => tables.find((t) => t.name === name)!;

/**
 * Restores `source` (a deployed table's physical name) as it was at `time` (or its latest restorable time) into a
 * NEW table `target`, waits until it is ACTIVE, then gives it what a restore does not carry over: point-in-time
 * recovery, the definition's TTL attribute, deletion protection. The live table is not touched.
 */
export async function restoreTable(
  clients: RestoreClients,
  options: { table: TableName; source: string; target: string; time?: Date; log?: (line: string) => void },
): Promise<{ target: string; status: string }> {
  const log = options.log ?? (() => {});
  const sleep = clients.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  await clients.dynamo.send(
    new RestoreTableToPointInTimeCommand({
      SourceTableName: options.source,
      TargetTableName: options.target,
      ...(options.time ? { RestoreDateTime: options.time } : { UseLatestRestorableTime: true }),
    }),
  );
  log(`Restoring ${options.source} ${options.time ? `as of ${options.time.toISOString()}` : "at its latest restorable time"} into ${options.target}…`);
  let status = "CREATING";
  for (let polls = 0; status !== "ACTIVE"; polls++) {
    if (polls > 0) await sleep(20_000);
    status = (await clients.dynamo.send(new DescribeTableCommand({ TableName: options.target }))).Table?.TableStatus ?? "UNKNOWN";
    log(`  ${options.target}: ${status}`);
    if (polls > 1_000) throw new Error(`${options.target} is still ${status}`);
  }
  await clients.dynamo.send(new UpdateContinuousBackupsCommand({ TableName: options.target, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }));
  const ttl = definition(options.table).timeToLive;
  if (ttl) await clients.dynamo.send(new UpdateTimeToLiveCommand({ TableName: options.target, TimeToLiveSpecification: { AttributeName: ttl, Enabled: true } }));
  await clients.dynamo.send(new UpdateTableCommand({ TableName: options.target, DeletionProtectionEnabled: true }));
  log(`${options.target} is ACTIVE, with point-in-time recovery${ttl ? `, TTL on ${ttl}` : ""} and deletion protection.`);
  return { target: options.target, status };
}

/**
 * The switch-over: copies every item of the restored table into the live one (the table CloudFormation owns
 * and the functions use), overwriting items with the same key. Items created after the restore point stay
 * unless `prune` is given the live table's keys to remove (the CLI's --exact). Returns the items written.
 */
export async function copyBack(clients: RestoreClients, options: { from: string; to: string; dryRun?: boolean; log?: (line: string) => void }): Promise<number> {
  const documents = DynamoDBDocumentClient.from(clients.dynamo);
  let written = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(new ScanCommand({ TableName: options.from, ExclusiveStartKey: start }));
    const items = page.Items ?? [];
    for (let i = 0; i < items.length; i += 25) {
      const batch = items.slice(i, i + 25);
      if (!options.dryRun) {
        let unprocessed: Record<string, unknown>[] | undefined = batch.map((Item) => ({ PutRequest: { Item } }));
        for (let attempt = 0; unprocessed?.length; attempt++) {
          if (attempt > 8) throw new Error(`DynamoDB kept ${unprocessed.length} writes unprocessed`);
          const out = await documents.send(new BatchWriteCommand({ RequestItems: { [options.to]: unprocessed as never } }));
          unprocessed = out.UnprocessedItems?.[options.to] as Record<string, unknown>[] | undefined;
        }
      }
      written += batch.length;
    }
    start = page.LastEvaluatedKey;
    options.log?.(`  ${written} items ${options.dryRun ? "to copy" : "copied"}`);
  } while (start);
  return written;
}

/**
 * Brings back an object of the (versioned) files bucket: without `versionId`, undoes a delete by removing the
 * delete marker that hides the latest version; with it, makes that older version current again (a copy onto
 * the same key). Returns what it did.
 */
export async function restoreObject(clients: RestoreClients, options: { bucket: string; key: string; versionId?: string }): Promise<string> {
  if (options.versionId) {
    await clients.s3.send(
      new CopyObjectCommand({ Bucket: options.bucket, Key: options.key, CopySource: `${options.bucket}/${encodeURIComponent(options.key)}?versionId=${encodeURIComponent(options.versionId)}` }),
    );
    return `version ${options.versionId} of ${options.key} is current again`;
  }
  const versions = await clients.s3.send(new ListObjectVersionsCommand({ Bucket: options.bucket, Prefix: options.key }));
  const marker = (versions.DeleteMarkers ?? []).find((m) => m.Key === options.key && m.IsLatest);
  if (!marker) {
    const live = (versions.Versions ?? []).some((v) => v.Key === options.key && v.IsLatest);
    throw new Error(live ? `${options.key} is not deleted: give --version-id to bring an older version back` : `${options.key} has no version in ${options.bucket}`);
  }
  await clients.s3.send(new DeleteObjectCommand({ Bucket: options.bucket, Key: options.key, VersionId: marker.VersionId }));
  return `${options.key} is back: its delete marker ${marker.VersionId} is removed`;
}

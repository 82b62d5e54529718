/**
 * The restore runbook's calls (docs/operations.md "Restore"), against aws-sdk-client-mock: DynamoDB Local has
 * no point-in-time recovery, so what the script sends is what is tested.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  DescribeTableCommand,
  DynamoDBClient,
  RestoreTableToPointInTimeCommand,
  UpdateContinuousBackupsCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import { CopyObjectCommand, DeleteObjectCommand, ListObjectVersionsCommand, S3Client } from "@aws-sdk/client-s3";
import { BatchWriteCommand, DynamoDBDocumentClient, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { ROOT_DIR } from "../../../infra/local/stack.js";
import { copyBack, restoreObject, restoreTable } from "../../../scripts/restore/operations.js";

const dynamo = mockClient(DynamoDBClient);
const documents = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);
const clients = () => ({ dynamo: new DynamoDBClient({ region: "eu-west-1" }), s3: new S3Client({ region: "eu-west-1" }), sleep: async () => {} });

beforeEach(() => {
  dynamo.reset();
  documents.reset();
  s3.reset();
});

describe("restore -- table", () => {
  it("restores the live table as of the time into a new table, waits for ACTIVE, then turns on PITR, TTL and deletion protection", async () => {
    dynamo.on(DescribeTableCommand).resolvesOnce({ Table: { TableStatus: "CREATING" } }).resolves({ Table: { TableStatus: "ACTIVE" } });
    const time = new Date("2026-11-23T09:00:00Z");

    const result = await restoreTable(clients(), { table: "files", source: "Platform-prod-Data-FilesTable-ABC", target: "files-restored", time });

    expect(result).toEqual({ target: "files-restored", status: "ACTIVE" });
    expect(dynamo.commandCalls(RestoreTableToPointInTimeCommand)[0]!.args[0].input).toEqual({
      SourceTableName: "Platform-prod-Data-FilesTable-ABC",
      TargetTableName: "files-restored",
      RestoreDateTime: time,
    });
    expect(dynamo.commandCalls(DescribeTableCommand)).toHaveLength(2);
    expect(dynamo.commandCalls(UpdateContinuousBackupsCommand)[0]!.args[0].input).toEqual({ TableName: "files-restored", PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } });
    expect(dynamo.commandCalls(UpdateTimeToLiveCommand)[0]!.args[0].input).toEqual({ TableName: "files-restored", TimeToLiveSpecification: { AttributeName: "ttl", Enabled: true } });
    expect(dynamo.commandCalls(UpdateTableCommand)[0]!.args[0].input).toEqual({ TableName: "files-restored", DeletionProtectionEnabled: true });
  });

  it("takes the latest restorable time when none is given, and sets no TTL on a table without one", async () => {
    dynamo.on(DescribeTableCommand).resolves({ Table: { TableStatus: "ACTIVE" } });

    await restoreTable(clients(), { table: "tenancy", source: "live", target: "copy" });

    expect(dynamo.commandCalls(RestoreTableToPointInTimeCommand)[0]!.args[0].input).toEqual({ SourceTableName: "live", TargetTableName: "copy", UseLatestRestorableTime: true });
    expect(dynamo.commandCalls(UpdateTimeToLiveCommand)).toHaveLength(0);
  });
});

describe("restore -- copy-back", () => {
  it("copies every page of the restored table into the live one, 25 items a batch, retrying unprocessed writes", async () => {
    const items = Array.from({ length: 30 }, (_, i) => ({ pk: `K${i}`, sk: "#" }));
    documents.on(ScanCommand).resolvesOnce({ Items: items.slice(0, 27), LastEvaluatedKey: { pk: "K26", sk: "#" } }).resolves({ Items: items.slice(27) });
    documents
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { live: [{ PutRequest: { Item: items[0]! } }] } })
      .resolves({});

    const count = await copyBack(clients(), { from: "restored", to: "live" });

    expect(count).toBe(30);
    expect(documents.commandCalls(ScanCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: "restored", ExclusiveStartKey: undefined },
      { TableName: "restored", ExclusiveStartKey: { pk: "K26", sk: "#" } },
    ]);
    const writes = documents.commandCalls(BatchWriteCommand).map((c) => c.args[0].input.RequestItems!.live!.length);
    expect(writes).toEqual([25, 1, 2, 3]);
  });

  it("writes nothing on a dry run", async () => {
    documents.on(ScanCommand).resolves({ Items: [{ pk: "a", sk: "b" }] });

    expect(await copyBack(clients(), { from: "restored", to: "live", dryRun: true })).toBe(1);
    expect(documents.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });
});

describe("restore -- object", () => {
  it("undoes a delete by removing the latest delete marker", async () => {
    s3.on(ListObjectVersionsCommand).resolves({ DeleteMarkers: [{ Key: "workspaces/w/files/f", VersionId: "dm1", IsLatest: true }], Versions: [{ Key: "workspaces/w/files/f", VersionId: "v1", IsLatest: false }] });

    expect(await restoreObject(clients(), { bucket: "files", key: "workspaces/w/files/f" })).toMatch(/is back/);
    expect(s3.commandCalls(DeleteObjectCommand)[0]!.args[0].input).toEqual({ Bucket: "files", Key: "workspaces/w/files/f", VersionId: "dm1" });
  });

  it("makes an older version current again by copying it onto the key", async () => {
    await restoreObject(clients(), { bucket: "files", key: "workspaces/w/files/f", versionId: "v1" });

    expect(s3.commandCalls(CopyObjectCommand)[0]!.args[0].input).toEqual({ Bucket: "files", Key: "workspaces/w/files/f", CopySource: "files/workspaces%2Fw%2Ffiles%2Ff?versionId=v1" });
  });

  it("refuses to guess when the object is not deleted", async () => {
    s3.on(ListObjectVersionsCommand).resolves({ Versions: [{ Key: "k", VersionId: "v2", IsLatest: true }] });

    await expect(restoreObject(clients(), { bucket: "files", key: "k" })).rejects.toThrow(/not deleted: give --version-id/);
    expect(s3.commandCalls(DeleteObjectCommand)).toHaveLength(0);
  });
});

describe("npm run restore -- --help", () => {
  it("prints the three commands and where the runbook is", async () => {
    const { stdout } = await promisify(execFile)(join(ROOT_DIR, "node_modules/.bin/tsx"), ["scripts/restore.ts", "--help"], { cwd: ROOT_DIR });

    expect(stdout).toMatch(/restore -- table --table NAME/);
    expect(stdout).toMatch(/restore -- copy-back/);
    expect(stdout).toMatch(/restore -- object/);
    expect(stdout).toContain("docs/operations.md#restore");
  });
});

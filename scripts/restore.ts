/**
 * The restore runbook's tool (docs/operations.md "Restore"), against a deployment (AWS credentials and region;
 * table names from the Data stack's outputs as TABLE_<NAME>, the bucket as BUCKET_FILES):
 *
 *   npm run restore -- table --table files [--time 2026-11-23T09:00:00Z] [--target NAME]
 *   npm run restore -- copy-back --table files --from RESTORED_TABLE [--dry-run]
 *   npm run restore -- object --key workspaces/<ws>/files/<id> [--version-id V]
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { S3Client } from "@aws-sdk/client-s3";
import { FILES_BUCKET_ENV } from "../shared/config.js";
import { tableEnvVar, tables, type TableName } from "../shared/store/tables.js";
import { cliArgs, fail } from "./cli-target.js";
import { copyBack, restoreObject, restoreTable } from "./restore/operations.js";

const USAGE = `Usage:
  npm run restore -- table --table NAME [--time ISO-8601] [--target NEW_TABLE]
      Point-in-time restore of a table into a NEW table (the live one is untouched), as of --time (default: the
      latest restorable time, about 5 minutes ago); waits until it is ACTIVE, then turns on its point-in-time
      recovery, TTL and deletion protection. Default target: <live name>-restored-<time>.
  npm run restore -- copy-back --table NAME --from RESTORED_TABLE [--dry-run]
      The switch-over: copies every item of the restored table into the live table (same keys overwritten),
      which CloudFormation keeps owning and the functions keep using. --dry-run counts only.
  npm run restore -- object --key OBJECT_KEY [--version-id VERSION]
      The files bucket is versioned: undoes a delete (removes the delete marker), or with --version-id makes
      that older version current again.

NAME is a table of shared/store/tables.ts: ${tables.map((t) => t.name).join(", ")}.
The live table's physical name comes from TABLE_<NAME> (the Data stack's <Name>TableName output), the
bucket from BUCKET_FILES; AWS credentials and region as usual. Runbook: docs/operations.md#restore.`;

const { positionals, values } = cliArgs(USAGE, {
  table: { type: "string" },
  time: { type: "string" },
  target: { type: "string" },
  from: { type: "string" },
  "dry-run": { type: "boolean", default: false },
  key: { type: "string" },
  "version-id": { type: "string" },
});

const [command] = positionals;
if (!command || !["table", "copy-back", "object"].includes(command)) fail(`${command ? `Unknown command '${command}'.\n\n` : ""}${USAGE}`);
const clients = { dynamo: new DynamoDBClient({}), s3: new S3Client({}) };
const log = (line: string) => console.log(line);

function liveTable(): { name: TableName; physical: string } {
  const name = (values.table ?? fail(`${command} needs --table NAME\n\n${USAGE}`)) as TableName;
  if (!tables.some((t) => t.name === name)) fail(`No table ${name}: one of ${tables.map((t) => t.name).join(", ")}`);
  const physical = process.env[tableEnvVar(name)] ?? fail(`Set ${tableEnvVar(name)} to the live table's name (the Data stack's output)`);
  return { name, physical };
}

switch (command) {
  case "table": {
    const { name, physical } = liveTable();
    const time = values.time ? new Date(values.time) : undefined;
    if (time && Number.isNaN(time.getTime())) fail(`--time ${values.time}: use an ISO-8601 time, e.g. 2026-11-23T09:00:00Z`);
    const target = values.target ?? `${physical}-restored-${(time ?? new Date()).toISOString().replace(/[:.]/g, "-")}`;
    await restoreTable(clients, { table: name, source: physical, target, time, log });
    console.log(`Next: check it (aws dynamodb scan --table-name ${target} --max-items 5), then npm run restore -- copy-back --table ${name} --from ${target}`);
    break;
  }
  case "copy-back": {
    const { physical } = liveTable();
    const from = values.from ?? fail("copy-back needs --from RESTORED_TABLE");
    const count = await copyBack(clients, { from, to: physical, dryRun: values["dry-run"], log });
    console.log(values["dry-run"] ? `${count} items would be copied from ${from} into ${physical}` : `Copied ${count} items from ${from} into ${physical}`);
    break;
  }
  case "object": {
    const bucket = process.env[FILES_BUCKET_ENV] ?? fail(`Set ${FILES_BUCKET_ENV} to the files bucket (the Data stack's FilesBucketName output)`);
    const key = values.key ?? fail("object needs --key OBJECT_KEY");
    console.log(await restoreObject(clients, { bucket, key, versionId: values["version-id"] }));
    break;
  }
}

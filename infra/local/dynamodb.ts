import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  CreateTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type CreateTableCommandInput,
} from "@aws-sdk/client-dynamodb";
import type { TableDefinition } from "../../shared/store/tables.js";
import { DYNAMODB_JVM_OPTIONS, loopbackLaunch } from "./dynamodb-launcher.js";
import { freePort, waitFor } from "./net.js";

export interface RunningDynamo {
  endpoint: string;
  stop(): Promise<void>;
}

export const JAVA_MISSING =
  "DynamoDB Local needs Java 17 or newer and `java` was not found on PATH.\n" +
  "Install it, then run npm start again:\n" +
  "  Debian/Ubuntu: sudo apt-get install -y openjdk-17-jdk-headless\n" +
  "  macOS:         brew install openjdk@17";

export const DYNAMODB_HOST = "127.0.0.1";
/** The JVM, then DynamoDB Local: ~3 s on an idle machine, over a minute on a loaded one. */
const READY_MS = 180_000;

/**
 * DynamoDB Local (AWS's own engine) from the amplify-dynamodb-simulator package, run with the java on PATH
 * through the loopback launcher (java runs a .java file as a program since Java 11), without telemetry.
 */
export async function startDynamo(options: { dataDir?: string }): Promise<RunningDynamo> {
  const emulator = join(dirname(createRequire(import.meta.url).resolve("amplify-dynamodb-simulator/package.json")), "emulator");
  const port = await freePort();
  const storage = options.dataDir ? ["-dbPath", mkdirP(options.dataDir)] : ["-inMemory"];
  const java = [...DYNAMODB_JVM_OPTIONS, "-Djava.library.path=./DynamoDBLocal_lib", ...(await loopbackLaunch(DYNAMODB_HOST, emulator))];
  const child = spawn("java", [...java, "-port", String(port), "-sharedDb", "-disableTelemetry", ...storage], {
    cwd: emulator,
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Never outlive the process that started it, however that process ends.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  child.once("exit", () => process.removeListener("exit", killOnExit));
  const output: string[] = [];
  child.stdout?.on("data", (d) => output.push(String(d)));
  child.stderr?.on("data", (d) => output.push(String(d)));
  const spawnError = new Promise<never>((_, reject) =>
    child.once("error", (e: NodeJS.ErrnoException) => reject(new Error(e.code === "ENOENT" ? JAVA_MISSING : e.message))),
  );
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`DynamoDB Local exited (${code}):\n${output.join("")}`))),
  );
  const endpoint = `http://${DYNAMODB_HOST}:${port}`;
  const client = localDynamoClient(endpoint);
  await Promise.race([spawnError, exited, waitFor(() => client.send(new ListTablesCommand({})), READY_MS, "DynamoDB Local")]);
  client.destroy();
  exited.catch(() => undefined);
  return { endpoint, stop: () => stopChild(child) };
}

function mkdirP(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await gone;
  clearTimeout(timer);
}

export const localDynamoClient = (endpoint: string) =>
  new DynamoDBClient({ endpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });

/** The CreateTable request for one of our table definitions: the same definition CDK deploys. */
export function createTableInput(definition: TableDefinition, physicalName: string): CreateTableCommandInput {
  const attributes = new Map<string, AttributeDefinition>();
  const add = (a: { name: string; type: "S" | "N" }) => attributes.set(a.name, { AttributeName: a.name, AttributeType: a.type });
  const keySchema = (pk: { name: string }, sk?: { name: string }) => [
    { AttributeName: pk.name, KeyType: "HASH" as const },
    ...(sk ? [{ AttributeName: sk.name, KeyType: "RANGE" as const }] : []),
  ];
  add(definition.partitionKey);
  if (definition.sortKey) add(definition.sortKey);
  definition.globalIndexes?.forEach((i) => (add(i.partitionKey), i.sortKey && add(i.sortKey)));
  definition.localIndexes?.forEach((i) => add(i.sortKey));
  return {
    TableName: physicalName,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [...attributes.values()],
    KeySchema: keySchema(definition.partitionKey, definition.sortKey),
    GlobalSecondaryIndexes: definition.globalIndexes?.map((i) => ({
      IndexName: i.name,
      KeySchema: keySchema(i.partitionKey, i.sortKey),
      Projection: { ProjectionType: "ALL" },
    })),
    LocalSecondaryIndexes: definition.localIndexes?.map((i) => ({
      IndexName: i.name,
      KeySchema: keySchema(definition.partitionKey, i.sortKey),
      Projection: { ProjectionType: "ALL" },
    })),
  };
}

/** Creates each table unless it exists already (data in PLATFORM_DATA_DIR survives restarts). */
export async function createTables(endpoint: string, definitions: readonly TableDefinition[], physicalName: (d: TableDefinition) => string): Promise<void> {
  const client = localDynamoClient(endpoint);
  try {
    for (const definition of definitions) {
      try {
        await client.send(new CreateTableCommand(createTableInput(definition, physicalName(definition))));
        if (definition.timeToLive) {
          await client.send(
            new UpdateTimeToLiveCommand({
              TableName: physicalName(definition),
              TimeToLiveSpecification: { AttributeName: definition.timeToLive, Enabled: true },
            }),
          );
        }
      } catch (error) {
        if (!(error instanceof ResourceInUseException)) throw error;
      }
    }
  } finally {
    client.destroy();
  }
}

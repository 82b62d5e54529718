/**
 * Everything a workspace holds in the embedded backends, as one comparable digest: the items of its
 * partitions in every table and its objects in the bucket. A rejected write must leave it as it was.
 */
import { createHash } from "node:crypto";
import { Agent, request } from "node:http";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { tableName } from "../../shared/config.js";
import type { Caller } from "../../shared/domain/caller.js";

const s3 = new S3Client({ forcePathStyle: true, requestChecksumCalculation: "WHEN_REQUIRED" });

/**
 * One partition's items, read with DynamoDB's JSON protocol over a kept-alive connection rather than through the
 * SDK's client. The fuzz ring reads a footprint (16 queries) before and after every refused write, ~670 a share,
 * and the SDK's work per command (serde, signing, endpoint, retries) was 36 ms of CPU a footprint: half of a share's
 * CPU (docs/testing.md). The embedded DynamoDB Local (`-sharedDb`) only checks that a request names an access key.
 * The items are unmarshalled as the document client does, so a footprint and its digest are the same either way.
 */
const connections = new Agent({ keepAlive: true, maxSockets: 16 });
const AUTHORIZATION = "AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0";

function query(input: Record<string, unknown>): Promise<{ Items?: Record<string, AttributeValue>[]; LastEvaluatedKey?: Record<string, AttributeValue> }> {
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;
  if (!endpoint) throw new Error("AWS_ENDPOINT_URL_DYNAMODB is not set: footprints read the embedded DynamoDB Local");
  const body = JSON.stringify(input);
  return new Promise((resolve, reject) => {
    const sent = request(endpoint, { method: "POST", agent: connections, headers: { authorization: AUTHORIZATION, "content-type": "application/x-amz-json-1.0", "x-amz-target": "DynamoDB_20120810.Query", "content-length": Buffer.byteLength(body) } }, (reply) => {
      const chunks: Buffer[] = [];
      reply.on("data", (chunk: Buffer) => chunks.push(chunk));
      reply.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        if (reply.statusCode === 200) resolve(JSON.parse(text));
        else reject(new Error(`DynamoDB Local refused a footprint query (${reply.statusCode}): ${text.slice(0, 300)}`));
      });
      reply.on("error", reject);
    });
    sent.on("error", reject);
    sent.end(body);
  });
}

async function partition(table: Parameters<typeof tableName>[0], key: string, value: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const out = await query({ TableName: tableName(table), KeyConditionExpression: "#k = :v", ExpressionAttributeNames: { "#k": key }, ExpressionAttributeValues: { ":v": { S: value } }, ExclusiveStartKey: start, ConsistentRead: true });
    items.push(...(out.Items ?? []).map((item) => unmarshall(item)));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Connectors live in their organization's partition: the ones made in this workspace, and their connections. */
async function connectors(organization: string, workspace: string): Promise<Record<string, unknown>[][]> {
  const heads = (await partition("connectors", "pk", `ORG#${organization}`))
    .filter((item) => item.workspace === workspace && String(item.sk).startsWith("C#"))
    .sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
  return [heads, ...(await Promise.all(heads.map((head) => partition("connectors", "pk", `CONN#${head.id}`))))];
}

async function objects(workspace: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const out = await s3.send(new ListObjectsV2Command({ Bucket: process.env.BUCKET_FILES, Prefix: `workspaces/${workspace}/`, ContinuationToken: token }));
    keys.push(...(out.Contents ?? []).map((o) => `${o.Key} ${o.ETag} ${o.Size}`));
    token = out.NextContinuationToken;
  } while (token);
  return keys;
}

const idsUnder = (items: Record<string, unknown>[], prefix: string) =>
  items.map((item) => String(item.sk)).filter((sk) => sk.startsWith(prefix)).map((sk) => sk.slice(prefix.length));

/**
 * The workspace's records and objects. Usage records are left out: a refused model call is still a
 * call, and its usage record (with the status the caller saw) is written by design (shared/services/inference/usage.ts).
 */
export async function footprint({ organization, workspace }: Pick<Caller, "organization" | "workspace">): Promise<Record<string, unknown>> {
  const [files, batch, models, agentHeads, prompts, skills, retrieval, audio, stored, connectorItems, datasets, libraryEntries, conversationHeads] = await Promise.all([
    partition("files", "workspace", workspace),
    partition("batch", "workspace", workspace),
    partition("models", "scope", `WS#${workspace}`),
    partition("agents", "pk", `WS#${workspace}`),
    partition("registry", "pk", `prompt#${workspace}`),
    partition("registry", "pk", `skill#${workspace}`),
    partition("retrieval", "workspace", workspace),
    partition("audio", "workspace", workspace),
    objects(workspace),
    connectors(organization, workspace),
    partition("datasets", "pk", `WS#${workspace}`),
    // The workspace's libraries: its grantee entries, then each library's partition (head, accesses).
    partition("libraries", "pk", `ORG#${organization}#GRANTEE#Workspace#${workspace}`),
    partition("conversations", "pk", `WS#${workspace}`),
  ]);
  const [agentParts, promptParts, skillParts, libraryParts, conversationParts] = await Promise.all([
    Promise.all(idsUnder(agentHeads, "AGENT#").map((id) => partition("agents", "pk", `WS#${workspace}#AGENT#${id}`))),
    Promise.all(idsUnder(prompts, "HEAD#").map((id) => partition("registry", "pk", `prompt#${workspace}#${id}`))),
    Promise.all(idsUnder(skills, "HEAD#").map((id) => partition("registry", "pk", `skill#${workspace}#${id}`))),
    Promise.all(idsUnder(libraryEntries, "LIB#").map((id) => partition("libraries", "pk", `ORG#${organization}#LIB#${id}`))),
    Promise.all(idsUnder(conversationHeads, "CONV#").map((id) => partition("conversations", "pk", `WS#${workspace}#CONV#${id}`))),
  ]);
  return { files, batch, models, agents: [agentHeads, ...agentParts], prompts: [prompts, ...promptParts], skills: [skills, ...skillParts], retrieval, audio, connectors: connectorItems, datasets, libraries: [libraryEntries, ...libraryParts], conversations: [conversationHeads, ...conversationParts], objects: stored.sort() };
}

const stable = (value: unknown): unknown =>
  Array.isArray(value) ? value.map(stable) : value && typeof value === "object" ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, stable(v)])) : value;

export const digest = (value: unknown): string => createHash("sha256").update(JSON.stringify(stable(value))).digest("hex");

/** What changed between two footprints, named by section (for a failure message). */
export function changedSections(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return Object.keys({ ...before, ...after }).filter((k) => digest(before[k]) !== digest(after[k]));
}

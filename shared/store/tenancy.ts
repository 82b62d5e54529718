import { randomBytes } from "node:crypto";
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import type { ApiKeyRecord } from "../domain/api-keys.js";
import { SIGNING_SECRET_CACHE_SECONDS } from "../domain/signed-urls.js";
import type { PrincipalType } from "../domain/caller.js";
import type { Organization, Workspace } from "../domain/identity/records.js";
import { documents, ifConditionHolds, setFields } from "./client.js";
import { queryAll } from "./query.js";

const table = () => tableName("tenancy");

export interface Principal {
  id: string;
  organization: string;
  type: PrincipalType;
  name: string;
  createdAt: string;
}

export type { Organization, Workspace } from "../domain/identity/records.js";

export const strip = <T>(item: Record<string, unknown>): T => {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, ...rest } = item;
  return rest as T;
};

async function putOnce(item: Record<string, unknown>): Promise<boolean> {
  const written = await ifConditionHolds(
    documents.send(new PutCommand({ TableName: table(), Item: item, ConditionExpression: "attribute_not_exists(pk)" })),
  );
  return written !== undefined;
}

export const tenancyStore = {
  /** Idempotent: an existing organization is kept as it is. */
  async putOrganization(org: Organization): Promise<void> {
    await putOnce({ pk: `ORG#${org.id}`, sk: "#ORG", gsi1pk: "ORGS", gsi1sk: org.id, ...org });
  },

  async listOrganizations(): Promise<Organization[]> {
    const out = await documents.send(
      new QueryCommand({ TableName: table(), IndexName: "gsi1", KeyConditionExpression: "gsi1pk = :p", ExpressionAttributeValues: { ":p": "ORGS" } }),
    );
    return (out.Items ?? []).map((i) => strip<Organization>(i));
  },

  async getOrganization(id: string): Promise<Organization | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: { pk: `ORG#${id}`, sk: "#ORG" } }));
    return out.Item ? strip<Organization>(out.Item) : undefined;
  },

  async putWorkspace(ws: Workspace): Promise<void> {
    await putOnce({ pk: `ORG#${ws.organization}`, sk: `WS#${ws.id}`, ...ws });
  },

  /** `consistent`: read after a write of one's own (administration); the request path reads eventually. */
  async getWorkspace(organization: string, id: string, options: { consistent?: boolean } = {}): Promise<Workspace | undefined> {
    const key = { pk: `ORG#${organization}`, sk: `WS#${id}` };
    const out = await documents.send(new GetCommand({ TableName: table(), Key: key, ...(options.consistent ? { ConsistentRead: true } : {}) }));
    return out.Item ? strip<Workspace>(out.Item) : undefined;
  },

  /** Changes the given fields of an existing workspace; undefined when there is none. */
  async updateWorkspace(organization: string, id: string, fields: Partial<Pick<Workspace, "name" | "description" | "icon" | "archivedAt" | "spendLimit" | "telemetryContentCapture" | "responseCacheTtlSeconds" | "defaultGuardrails" | "updatedAt">>): Promise<Workspace | undefined> {
    if (Object.values(fields).every((v) => v === undefined)) return this.getWorkspace(organization, id, { consistent: true });
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: { pk: `ORG#${organization}`, sk: `WS#${id}` },
          ...setFields(fields),
          ConditionExpression: "attribute_exists(pk)",
          ReturnValues: "ALL_NEW",
        }),
      ),
    );
    return out?.Attributes ? strip<Workspace>(out.Attributes) : undefined;
  },

  /** Every workspace of the organization, archived ones too (all pages of the query). */
  async listWorkspaces(organization: string): Promise<Workspace[]> {
    const items = await queryAll({ TableName: table(), KeyConditionExpression: "pk = :p AND begins_with(sk, :ws)", ExpressionAttributeValues: { ":p": `ORG#${organization}`, ":ws": "WS#" } });
    return items.map((i) => strip<Workspace>(i));
  },

  async putPrincipal(principal: Principal): Promise<void> {
    await putOnce({ pk: `ORG#${principal.organization}`, sk: `PRINCIPAL#${principal.id}`, ...principal });
  },

  /** A key's principal as its key's creation recorded it (libraries check that a user they are shared with exists). */
  async getPrincipal(organization: string, id: string): Promise<Principal | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: { pk: `ORG#${organization}`, sk: `PRINCIPAL#${id}` } }));
    return out.Item ? strip<Principal>(out.Item) : undefined;
  },

  /** The key record and its by-id pointer are written together. */
  async putApiKey(key: ApiKeyRecord): Promise<void> {
    await documents.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: table(),
              Item: { pk: `KEY#${key.hash}`, sk: "#KEY", gsi1pk: `KEYS#${key.organization}`, gsi1sk: key.keyId, ...key },
              ConditionExpression: "attribute_not_exists(pk)",
            },
          },
          {
            Put: {
              TableName: table(),
              Item: { pk: `KEYID#${key.keyId}`, sk: "#KEY", hash: key.hash },
              ConditionExpression: "attribute_not_exists(pk)",
            },
          },
        ],
      }),
    );
  },

  async getApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: { pk: `KEY#${hash}`, sk: "#KEY" } }));
    return out.Item ? strip<ApiKeyRecord>(out.Item) : undefined;
  },

  /** A key record by its id (revoked or not), through its by-id pointer. */
  async getApiKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const pointer = await documents.send(new GetCommand({ TableName: table(), Key: { pk: `KEYID#${keyId}`, sk: "#KEY" } }));
    const hash = pointer.Item?.hash as string | undefined;
    return hash ? this.getApiKeyByHash(hash) : undefined;
  },

  /** Every key of the organization, revoked or not: all pages of its key index (the keys CLI, the admin key routes). */
  async listApiKeys(organization: string): Promise<ApiKeyRecord[]> {
    const items = await queryAll({ TableName: table(), IndexName: "gsi1", KeyConditionExpression: "gsi1pk = :p", ExpressionAttributeValues: { ":p": `KEYS#${organization}` } });
    return items.map((i) => strip<ApiKeyRecord>(i));
  },

  /** Sets and removes fields of a live key (its limits); undefined when there is no such key or it is revoked. */
  async updateApiKey(hash: string, set: Record<string, unknown>, remove: readonly string[]): Promise<ApiKeyRecord | undefined> {
    const sets = Object.entries(set);
    const clauses = [
      ...(sets.length ? [`SET ${sets.map((_, i) => `#s${i} = :s${i}`).join(", ")}`] : []),
      ...(remove.length ? [`REMOVE ${remove.map((_, i) => `#r${i}`).join(", ")}`] : []),
    ];
    if (!clauses.length) return this.getApiKeyByHash(hash);
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: { pk: `KEY#${hash}`, sk: "#KEY" },
          UpdateExpression: clauses.join(" "),
          ConditionExpression: "attribute_exists(pk) AND (attribute_not_exists(revokedAt) OR revokedAt = :null)",
          ExpressionAttributeNames: { ...Object.fromEntries(sets.map(([name], i) => [`#s${i}`, name])), ...Object.fromEntries(remove.map((name, i) => [`#r${i}`, name])) },
          ExpressionAttributeValues: { ":null": null, ...Object.fromEntries(sets.map(([, value], i) => [`:s${i}`, value])) },
          ReturnValues: "ALL_NEW",
        }),
      ),
    );
    return out?.Attributes ? strip<ApiKeyRecord>(out.Attributes) : undefined;
  },

  /** Returns the revoked key, or undefined when no key has that id. Revoking twice keeps the first time. */
  async revokeApiKey(keyId: string, at: string): Promise<ApiKeyRecord | undefined> {
    const pointer = await documents.send(new GetCommand({ TableName: table(), Key: { pk: `KEYID#${keyId}`, sk: "#KEY" } }));
    const hash = pointer.Item?.hash as string | undefined;
    if (!hash) return undefined;
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: { pk: `KEY#${hash}`, sk: "#KEY" },
          UpdateExpression: "SET revokedAt = :at",
          ConditionExpression: "attribute_exists(pk) AND (attribute_not_exists(revokedAt) OR revokedAt = :null)",
          ExpressionAttributeValues: { ":at": at, ":null": null },
          ReturnValues: "ALL_NEW",
        }),
      ),
    );
    if (!out) return this.getApiKeyByHash(hash);
    return out.Attributes ? strip<ApiKeyRecord>(out.Attributes) : undefined;
  },
};

/**
 * The HMAC secrets behind signed file URLs: the current one signs, the previous one (kept by a rotation with
 * overlap) still verifies. Bootstrap (the keys CLI, or `npm start`) creates the item once; `npm run keys --
 * rotate-url-secret` rotates it; functions read it and reuse it for SIGNING_SECRET_CACHE_SECONDS.
 */
const SIGNING_KEY = { pk: "#SYSTEM", sk: "URL_SIGNING_KEY#1" };
let cached: { at: number; secrets: UrlSigningSecrets } | undefined;

export interface UrlSigningSecrets {
  current: Buffer;
  previous?: Buffer;
  /** Unix seconds of the last rotation, if any. */
  rotatedAt?: number;
}

const newSecret = () => randomBytes(32).toString("base64");

export const secretStore = {
  async ensureUrlSigningSecret(): Promise<void> {
    await putOnce({ ...SIGNING_KEY, secret: newSecret(), createdAt: new Date().toISOString() });
  },

  async urlSigningSecrets(): Promise<UrlSigningSecrets> {
    // An entry read "later" than now (a clock that went back: a correction, a test's fake clock) is read again.
    const age = cached ? Date.now() - cached.at : -1;
    if (cached && age >= 0 && age < SIGNING_SECRET_CACHE_SECONDS * 1000) return cached.secrets;
    const out = await documents.send(new GetCommand({ TableName: table(), Key: SIGNING_KEY }));
    const secret = out.Item?.secret as string | undefined;
    if (!secret) throw new Error("The URL signing secret is missing: run `npm run keys -- bootstrap` against this deployment");
    const previous = out.Item?.previous as string | undefined;
    const rotatedAt = out.Item?.rotatedAt as number | undefined;
    const secrets: UrlSigningSecrets = { current: Buffer.from(secret, "base64"), ...(previous ? { previous: Buffer.from(previous, "base64") } : {}), ...(rotatedAt ? { rotatedAt } : {}) };
    cached = { at: Date.now(), secrets };
    return secrets;
  },

  /** The secret that signs new URLs. */
  async urlSigningSecret(): Promise<Buffer> {
    return (await this.urlSigningSecrets()).current;
  },

  /**
   * A new current secret. With `overlap` the old one becomes `previous` (URLs it signed keep working until they
   * expire); without, it is dropped (every issued URL stops working: for a leaked secret). Returns false when
   * there is no secret to rotate (bootstrap first).
   */
  async rotateUrlSigningSecret(options: { overlap: boolean; now: number }): Promise<boolean> {
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: SIGNING_KEY,
          // Names, not words: some attribute names are DynamoDB reserved words.
          UpdateExpression: options.overlap ? "SET #previous = #secret, #secret = :secret, #rotatedAt = :now" : "SET #secret = :secret, #rotatedAt = :now REMOVE #previous",
          ConditionExpression: "attribute_exists(#secret)",
          ExpressionAttributeNames: { "#secret": "secret", "#previous": "previous", "#rotatedAt": "rotatedAt" },
          ExpressionAttributeValues: { ":secret": newSecret(), ":now": options.now },
        }),
      ),
    );
    cached = undefined;
    return out !== undefined;
  },
};

import { createHash } from "node:crypto";
import { BatchGetCommand, GetCommand, type BatchGetCommandInput } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/auth/authorizer.js";
import type { ApiKeyRecord } from "../../../shared/domain/api-keys.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { anApiKeyRecord, anAuthorizerEvent } from "../../support/builders.js";

const dynamo = mockDynamo({ resolves: {} });

const KEY = "pak_3q2-7wAbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const METHOD_ARN = "arn:aws:execute-api:eu-west-1:123456789012:a1b2c3d4e5/prod/POST/v1/files/uploads";

/** A key record stored under the hash of KEY, in a live workspace, with `principal` items beside it (user, membership, service account). */
function storedKey(overrides: Partial<ApiKeyRecord> = {}, principal: Record<string, unknown>[] = [], workspace: Record<string, unknown> = {}): ApiKeyRecord {
  const record = anApiKeyRecord({ hash: sha256(KEY), ...overrides });
  dynamo.on(GetCommand, { Key: { pk: `KEY#${record.hash}`, sk: "#KEY" } }).resolves({
    Item: { pk: `KEY#${record.hash}`, sk: "#KEY", gsi1pk: `KEYS#${record.organization}`, gsi1sk: record.keyId, ...record },
  });
  const items = [{ pk: `ORG#${record.organization}`, sk: `WS#${record.workspace}`, id: record.workspace, organization: record.organization, name: "w", isDefault: false, createdAt: "2026-01-01T00:00:00.000Z", ...workspace }, ...principal];
  dynamo.on(BatchGetCommand).callsFake((input: BatchGetCommandInput) => {
    const [table, request] = Object.entries(input.RequestItems!)[0]!;
    return { Responses: { [table]: items.filter((i) => request.Keys!.some((k) => k.pk === i.pk && k.sk === i.sk)) } };
  });
  return record;
}

const withAuthorization = (value: string, name = "Authorization") => anAuthorizerEvent({ headers: { [name]: value }, methodArn: METHOD_ARN });

describe("the API key authorizer", () => {
  it("allows the whole API to the key's principal", async () => {
    const record = storedKey();

    const result = await handler(withAuthorization(`Bearer ${KEY}`));

    expect(result.principalId).toBe(record.principal);
    expect(result.policyDocument).toStrictEqual({
      Version: "2012-10-17",
      Statement: [{ Action: "execute-api:Invoke", Effect: "Allow", Resource: "arn:aws:execute-api:eu-west-1:123456789012:a1b2c3d4e5/prod/*" }],
    });
  });

  it("passes the caller on as context strings", async () => {
    const record = storedKey({ roles: ["workspace_admin", "organization_admin"], admin: true, principalType: "user" });

    const result = await handler(withAuthorization(`Bearer ${KEY}`));

    expect(result.context).toStrictEqual({
      organization: record.organization,
      workspace: record.workspace,
      principal: record.principal,
      principalType: "user",
      roles: "workspace_admin,organization_admin",
      admin: "true",
      keyId: record.keyId,
    });
  });

  it("passes a key without roles, admin rights or a registered principal as a workspace contributor, as every key was before roles", async () => {
    storedKey({ roles: [], admin: false });

    const result = await handler(withAuthorization(`Bearer ${KEY}`));

    expect(result.context).toMatchObject({ roles: "workspace_contributor", admin: "false" });
  });

  it("resolves a registered user's roles from the membership of the key's workspace and the organization", async () => {
    const record = anApiKeyRecord({ hash: sha256(KEY), principalType: "user" });
    storedKey(record, [
      { pk: `ORG#${record.organization}`, sk: `USER#${record.principal}`, id: record.principal, organization: record.organization, email: "a@example.test", organizationRoles: ["billing_manager"] },
      { pk: `WS#${record.workspace}`, sk: `MEMBER#${record.principal}`, workspace: record.workspace, user: record.principal, roles: ["observability_viewer"] },
    ]);

    const result = await handler(withAuthorization(`Bearer ${KEY}`));

    expect(result.context).toMatchObject({ roles: "observability_viewer,billing_manager", admin: "false" });
  });

  it("makes a registered organization admin an admin caller", async () => {
    const record = anApiKeyRecord({ hash: sha256(KEY), admin: false, principalType: "user" });
    storedKey(record, [{ pk: `ORG#${record.organization}`, sk: `USER#${record.principal}`, id: record.principal, organization: record.organization, organizationRoles: ["organization_admin"] }]);

    expect((await handler(withAuthorization(`Bearer ${KEY}`))).context).toMatchObject({ roles: "organization_admin", admin: "true" });
  });

  it("refuses the key of a user who is no longer a member of its workspace", async () => {
    const record = anApiKeyRecord({ hash: sha256(KEY), principalType: "user" });
    storedKey(record, [{ pk: `ORG#${record.organization}`, sk: `USER#${record.principal}`, id: record.principal, organization: record.organization, organizationRoles: ["member"] }]);

    await expect(handler(withAuthorization(`Bearer ${KEY}`))).rejects.toThrow("Unauthorized");
  });

  it("refuses the keys of an archived workspace", async () => {
    storedKey({}, [], { archivedAt: "2026-02-01T00:00:00.000Z" });

    await expect(handler(withAuthorization(`Bearer ${KEY}`))).rejects.toThrow("Unauthorized");
  });

  it("refuses the keys of a deleted service account, and passes a live one's roles", async () => {
    const record = anApiKeyRecord({ hash: sha256(KEY), principalType: "service_account" });
    const account = { pk: `ORG#${record.organization}`, sk: `SA#${record.principal}`, id: record.principal, organization: record.organization, workspace: record.workspace, roles: ["workflow_executor"], deletedAt: null };
    storedKey(record, [account]);
    expect((await handler(withAuthorization(`Bearer ${KEY}`))).context).toMatchObject({ roles: "workflow_executor", principalType: "service_account" });

    storedKey(record, [{ ...account, deletedAt: "2026-02-01T00:00:00.000Z" }]);
    await expect(handler(withAuthorization(`Bearer ${KEY}`))).rejects.toThrow("Unauthorized");
  });

  it("looks the key up by its SHA-256, never by the key itself", async () => {
    storedKey();

    await handler(withAuthorization(`Bearer ${KEY}`));

    const reads = dynamo.commandCalls(GetCommand);
    expect(reads).toHaveLength(1);
    expect(reads[0]!.args[0].input).toStrictEqual({ TableName: "platform-tenancy", Key: { pk: `KEY#${sha256(KEY)}`, sk: "#KEY" } });
    expect(JSON.stringify(reads[0]!.args[0].input)).not.toContain(KEY);
  });

  it("reads the header whatever its case", async () => {
    storedKey();

    const result = await handler(withAuthorization(`Bearer ${KEY}`, "authorization"));

    expect(result.policyDocument.Statement[0]!.Effect).toBe("Allow");
  });

  it("accepts the Bearer scheme in any case", async () => {
    storedKey();

    const result = await handler(withAuthorization(`bEARER ${KEY}`));

    expect(result.policyDocument.Statement[0]!.Effect).toBe("Allow");
  });

  it("refuses a request without an Authorization header", async () => {
    await expect(handler(anAuthorizerEvent({ headers: {} }))).rejects.toThrow(/^Unauthorized$/);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("refuses a request without any headers", async () => {
    await expect(handler(anAuthorizerEvent({ headers: null }))).rejects.toThrow(/^Unauthorized$/);
  });

  it.each([
    ["another scheme", `Basic ${KEY}`],
    ["a scheme without a key", "Bearer"],
    ["a key without a scheme", KEY],
    ["a key too short to be one", "Bearer pak_1"],
    ["a key with a space in it", "Bearer pak_12345 6789"],
  ])("refuses %s without a lookup", async (_, header) => {
    storedKey();

    await expect(handler(withAuthorization(header))).rejects.toThrow(/^Unauthorized$/);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("refuses an unknown key", async () => {
    await expect(handler(withAuthorization(`Bearer ${KEY}`))).rejects.toThrow(/^Unauthorized$/);
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(1);
  });

  it("refuses a revoked key", async () => {
    storedKey({ revokedAt: "2024-06-01T00:00:00.000Z" });

    await expect(handler(withAuthorization(`Bearer ${KEY}`))).rejects.toThrow(/^Unauthorized$/);
  });

  it("fails with another error than Unauthorized when the key store fails, so API Gateway answers 500", async () => {
    dynamo.on(GetCommand).rejects(new Error("DynamoDB unavailable"));

    await expect(handler(withAuthorization(`Bearer ${KEY}`))).rejects.toThrow("DynamoDB unavailable");
  });
});

describe("the key as x-api-key (rows that take it: the SDK's beta.users)", () => {
  it("is read when no Authorization header came", async () => {
    const record = storedKey();

    const result = await handler(anAuthorizerEvent({ headers: { "X-Api-Key": KEY }, methodArn: METHOD_ARN }));

    expect(result.principalId).toBe(record.principal);
  });

  it("is ignored beside an Authorization header, whatever that header holds", async () => {
    storedKey();

    await expect(handler(anAuthorizerEvent({ headers: { Authorization: "Bearer unknown-key-0000", "x-api-key": KEY }, methodArn: METHOD_ARN }))).rejects.toThrow("Unauthorized");
  });
});

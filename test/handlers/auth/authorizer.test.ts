import { createHash } from "node:crypto";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/auth/authorizer.js";
import type { ApiKeyRecord } from "../../../shared/domain/api-keys.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { anApiKeyRecord, anAuthorizerEvent } from "../../support/builders.js";

const dynamo = mockDynamo({ resolves: {} });

const KEY = "pak_3q2-7wAbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const METHOD_ARN = "arn:aws:execute-api:eu-west-1:123456789012:a1b2c3d4e5/prod/POST/v1/files/uploads";

/** A key record stored under the hash of KEY. */
function storedKey(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const record = anApiKeyRecord({ hash: sha256(KEY), ...overrides });
  dynamo.on(GetCommand, { Key: { pk: `KEY#${record.hash}`, sk: "#KEY" } }).resolves({
    Item: { pk: `KEY#${record.hash}`, sk: "#KEY", gsi1pk: `KEYS#${record.organization}`, gsi1sk: record.keyId, ...record },
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

  it("passes a key without roles or admin rights as empty roles and admin \"false\"", async () => {
    storedKey({ roles: [], admin: false });

    const result = await handler(withAuthorization(`Bearer ${KEY}`));

    expect(result.context).toMatchObject({ roles: "", admin: "false" });
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

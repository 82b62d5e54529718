import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from "@aws-sdk/client-kms";
import { mockClient } from "aws-sdk-client-mock";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SECRETS_KEY_FILE_ENV, SECRETS_KEY_ID_ENV } from "../../../shared/config.js";
import { open, seal } from "../../../shared/store/connectors/secrets.js";

const kms = mockClient(KMSClient);
const saved = { id: process.env[SECRETS_KEY_ID_ENV], file: process.env[SECRETS_KEY_FILE_ENV] };
beforeEach(() => kms.reset());
afterEach(() => {
  if (saved.id === undefined) delete process.env[SECRETS_KEY_ID_ENV];
  else process.env[SECRETS_KEY_ID_ENV] = saved.id;
  process.env[SECRETS_KEY_FILE_ENV] = saved.file;
});

const context = { organization: "org", connector: "c1" };

describe("connector secrets, in the cloud (KMS envelope encryption)", () => {
  it("seals with a fresh data key from KMS under the record's encryption context, and opens through KMS Decrypt", async () => {
    process.env[SECRETS_KEY_ID_ENV] = "arn:aws:kms:eu-west-1:123456789012:key/abc";
    const dataKey = randomBytes(32);
    kms.on(GenerateDataKeyCommand).resolves({ Plaintext: new Uint8Array(dataKey), CiphertextBlob: new Uint8Array(Buffer.from("wrapped-key")) });
    kms.on(DecryptCommand).resolves({ Plaintext: new Uint8Array(dataKey) });

    const sealed = await seal("the token", context);

    expect(sealed).toMatch(/^v1\./);
    expect(Buffer.from(sealed.slice(3), "base64url").toString()).not.toContain("the token");
    expect(kms.commandCalls(GenerateDataKeyCommand)[0]!.args[0].input).toEqual({ KeyId: process.env[SECRETS_KEY_ID_ENV], KeySpec: "AES_256", EncryptionContext: context });
    expect(await open(sealed, context)).toBe("the token");
    const decrypt = kms.commandCalls(DecryptCommand)[0]!.args[0].input;
    expect(Buffer.from(decrypt.CiphertextBlob!).toString()).toBe("wrapped-key");
    expect(decrypt.EncryptionContext).toEqual(context);
    await expect(open(sealed, { ...context, connector: "c2" })).rejects.toThrow();
  });
});

describe("connector secrets, locally (a key in the data directory)", () => {
  it("makes the key file on first use (mode 0600) and seals without KMS", async () => {
    delete process.env[SECRETS_KEY_ID_ENV];
    const file = join(mkdtempSync(join(tmpdir(), "secrets-")), "connector-secrets.key");
    process.env[SECRETS_KEY_FILE_ENV] = file;

    const sealed = await seal("local secret", context);

    expect(readFileSync(file, "utf8")).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await open(sealed, context)).toBe("local secret");
    expect(kms.calls()).toHaveLength(0);
    const tampered = `v1.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(sealed.slice(3), "base64url").toString()), c: Buffer.from("other").toString("base64url") })).toString("base64url")}`;
    await expect(open(tampered, context)).rejects.toThrow();
  });
});

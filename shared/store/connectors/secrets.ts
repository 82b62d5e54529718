/**
 * Envelope encryption of connector secrets (credentials, OAuth tokens, secret headers). Each secret gets
 * its own 256-bit data key and is sealed with AES-256-GCM; the data key is kept only wrapped:
 * - in the cloud by KMS (`CONNECTOR_SECRETS_KEY_ID`: GenerateDataKey / Decrypt, with the encryption
 *   context naming what the secret belongs to, so a sealed value moved to another record does not open);
 * - locally by a 256-bit key kept in the data directory (`CONNECTOR_SECRETS_KEY_FILE`, made on first use, mode 0600).
 * Sealed values are `v1.<base64url JSON>`; nothing here logs a plaintext.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from "@aws-sdk/client-kms";

import { SECRETS_KEY_FILE_ENV, SECRETS_KEY_ID_ENV } from "../../config.js";

/** What a sealed value is bound to (the KMS encryption context; the GCM additional data). */
export type SecretContext = Record<string, string>;

interface Sealed {
  /** `kms` or `local`: who wrapped the data key. */
  w: "kms" | "local";
  /** The wrapped data key. */
  k: string;
  /** For `local`: the wrapping's nonce and tag. */
  kn?: string;
  kt?: string;
  n: string;
  t: string;
  c: string;
}

let kms: KMSClient | undefined;
const kmsClient = () => (kms ??= new KMSClient({}));

const aad = (context: SecretContext) => Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b))));

function gcmSeal(key: Buffer, plaintext: Buffer, additional: Buffer): { n: string; t: string; c: string } {
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  cipher.setAAD(additional);
  const c = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { n: nonce.toString("base64url"), t: cipher.getAuthTag().toString("base64url"), c: c.toString("base64url") };
}

function gcmOpen(key: Buffer, sealed: { n: string; t: string; c: string }, additional: Buffer): Buffer {
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(sealed.n, "base64url"));
  decipher.setAAD(additional);
  decipher.setAuthTag(Buffer.from(sealed.t, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(sealed.c, "base64url")), decipher.final()]);
}

let localKey: Buffer | undefined;
let localKeyFile: string | undefined;

/** The local wrapping key: read from the data directory, made there on first use. */
function localWrappingKey(): Buffer {
  const file = process.env[SECRETS_KEY_FILE_ENV];
  if (!file) throw new Error(`Connector secrets need ${SECRETS_KEY_ID_ENV} (a KMS key) or ${SECRETS_KEY_FILE_ENV} (a local key file)`);
  if (localKey && localKeyFile === file) return localKey;
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
    } catch (error) {
      // Another process made it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  const key = Buffer.from(readFileSync(file, "utf8").trim(), "hex");
  if (key.length !== 32) throw new Error(`${file} does not hold a 256-bit key`);
  localKey = key;
  localKeyFile = file;
  return key;
}

/** Seals `plaintext` for the record `context` names. */
export async function seal(plaintext: string, context: SecretContext): Promise<string> {
  const keyId = process.env[SECRETS_KEY_ID_ENV];
  let dataKey: Buffer;
  let wrapped: Omit<Sealed, "n" | "t" | "c">;
  if (keyId) {
    const out = await kmsClient().send(new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: "AES_256", EncryptionContext: context }));
    dataKey = Buffer.from(out.Plaintext!);
    wrapped = { w: "kms", k: Buffer.from(out.CiphertextBlob!).toString("base64url") };
  } else {
    dataKey = randomBytes(32);
    const wrap = gcmSeal(localWrappingKey(), dataKey, aad(context));
    wrapped = { w: "local", k: wrap.c, kn: wrap.n, kt: wrap.t };
  }
  const body = gcmSeal(dataKey, Buffer.from(plaintext, "utf8"), aad(context));
  dataKey.fill(0);
  return `v1.${Buffer.from(JSON.stringify({ ...wrapped, ...body } satisfies Sealed)).toString("base64url")}`;
}

/** Opens a sealed value; throws if it was sealed for another context or tampered with. */
export async function open(sealedValue: string, context: SecretContext): Promise<string> {
  if (!sealedValue.startsWith("v1.")) throw new Error("Not a sealed connector secret");
  const sealed = JSON.parse(Buffer.from(sealedValue.slice(3), "base64url").toString("utf8")) as Sealed;
  let dataKey: Buffer;
  if (sealed.w === "kms") {
    const out = await kmsClient().send(new DecryptCommand({ CiphertextBlob: Buffer.from(sealed.k, "base64url"), EncryptionContext: context, KeyId: process.env[SECRETS_KEY_ID_ENV] }));
    dataKey = Buffer.from(out.Plaintext!);
  } else {
    dataKey = gcmOpen(localWrappingKey(), { n: sealed.kn!, t: sealed.kt!, c: sealed.k }, aad(context));
  }
  try {
    return gcmOpen(dataKey, sealed, aad(context)).toString("utf8");
  } finally {
    dataKey.fill(0);
  }
}

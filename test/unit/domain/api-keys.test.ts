import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bearerKey, hashApiKey, newApiKey, previewOf } from "../../../shared/domain/api-keys.js";

describe("bearerKey", () => {
  it("takes the key from a Bearer header", () => {
    expect(bearerKey("Bearer pak_abcdefgh")).toBe("pak_abcdefgh");
  });

  it.each(["bearer", "BEARER", "bEaReR"])("accepts the scheme spelled %s", (scheme) => {
    expect(bearerKey(`${scheme} pak_abcdefgh`)).toBe("pak_abcdefgh");
  });

  it("tolerates several spaces and surrounding whitespace", () => {
    expect(bearerKey("  Bearer   pak_abcdefgh \t")).toBe("pak_abcdefgh");
  });

  it.each([undefined, "", "Bearer", "Bearer "])("refuses the missing key %j", (header) => {
    expect(bearerKey(header)).toBeUndefined();
  });

  it.each(["Basic pak_abcdefgh", "Token pak_abcdefgh", "pak_abcdefgh", "Bearerpak_abcdefgh"])("refuses %j", (header) => {
    expect(bearerKey(header)).toBeUndefined();
  });

  it("refuses a key shorter than 8 characters", () => {
    expect(bearerKey("Bearer 1234567")).toBeUndefined();
  });

  it("accepts a key of 8 characters", () => {
    expect(bearerKey("Bearer 12345678")).toBe("12345678");
  });

  it("refuses a key longer than 512 characters", () => {
    expect(bearerKey(`Bearer ${"k".repeat(513)}`)).toBeUndefined();
  });

  it("refuses a key with inner spaces or non-ASCII characters", () => {
    expect(bearerKey("Bearer pak_abcd efgh")).toBeUndefined();
    expect(bearerKey("Bearer pak_abcdéfgh")).toBeUndefined();
  });
});

describe("hashApiKey", () => {
  it("is the hex SHA-256 of the key", () => {
    expect(hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("hashes the key as UTF-8", () => {
    expect(hashApiKey("pak_é")).toBe(createHash("sha256").update(Buffer.from("pak_é", "utf8")).digest("hex"));
  });
});

describe("newApiKey", () => {
  it("is pak_ followed by 256 random bits in base64url", () => {
    const key = newApiKey();

    expect(key).toMatch(/^pak_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice(4), "base64url")).toHaveLength(32);
  });

  it("never repeats", () => {
    const keys = new Set(Array.from({ length: 100 }, newApiKey));

    expect(keys.size).toBe(100);
  });

  it("is accepted as a bearer key", () => {
    const key = newApiKey();

    expect(bearerKey(`Bearer ${key}`)).toBe(key);
  });
});

describe("previewOf", () => {
  it("shows the first 8 characters only", () => {
    expect(previewOf("pak_abcdefghijkl")).toBe("pak_abcd…");
  });
});

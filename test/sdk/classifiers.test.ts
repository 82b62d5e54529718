/** The SDK's classifiers (moderate, moderateChat, classify, classifyChat) against the extension routes. */
import { Mistral } from "@mistralai/mistralai";
import { SDKError } from "@mistralai/mistralai/models/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
beforeAll(() => {
  client = sdkClient(api, tenant.key);
});

const THREAT = "I will kill you tomorrow";
const model = "mistral-moderation-latest";

describe("classifiers.moderate (POST /v1/moderations)", () => {
  it("answers a ModerationResponse the SDK parses, one result per input", async () => {
    const out = await client.classifiers.moderate({ model, inputs: ["hello", THREAT] });

    expect(out.id).toMatch(/^mod-/);
    expect(out.results.map((r) => r.categories?.violence_and_threats)).toEqual([false, true]);
    expect(out.results[1]!.categoryScores?.violence_and_threats).toBe(1);
  });

  it("rejects a chat model with a 400 SDKError", async () => {
    const error = await errorOf(client.classifiers.moderate({ model: "mistral-small-latest", inputs: "x" }), SDKError);
    expect(error.statusCode).toBe(400);
  });
});

describe("classifiers.moderateChat (POST /v1/chat/moderations)", () => {
  it("moderates a conversation", async () => {
    const out = await client.classifiers.moderateChat({ model, inputs: [{ role: "user", content: "hi" }, { role: "assistant", content: THREAT }] });

    expect(out.results).toHaveLength(1);
    expect(out.results[0]!.categories?.violence_and_threats).toBe(true);
  });
});

describe("classifiers.classify (POST /v1/classifications)", () => {
  it("answers a ClassificationResponse with the moderation target", async () => {
    const out = await client.classifiers.classify({ model, inputs: [THREAT] });

    expect(out.results[0]!.moderation!.scores.violence_and_threats).toBe(1);
  });
});

describe("classifiers.classifyChat (POST /v1/chat/classifications)", () => {
  it("classifies an InstructRequest", async () => {
    const out = await client.classifiers.classifyChat({ model, input: { messages: [{ role: "user", content: THREAT }] } });

    expect(out.results[0]!.moderation!.scores.violence_and_threats).toBe(1);
  });
});

import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { filesClient } from "../../support/files-client.js";
import { usageRecordsOf } from "../../support/inference-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const client = filesClient(api, tenant);
const post = (path: string, json: unknown) => client.request("POST", path, { json });

const THREAT = "I will kill you tomorrow";
const MODEL = "mistral-moderation-latest";

describe("POST /v1/moderations", () => {
  it("answers one result per input, with the backend header and a usage record under the route", async () => {
    const reply = await post("/v1/moderations", { model: MODEL, input: ["hello", THREAT] });

    expect(reply.status).toBe(200);
    expect(reply.headers.get("x-inference-backend")).toBe("offline");
    expect(reply.body.results.map((r: { categories: Record<string, boolean> }) => r.categories.violence_and_threats)).toEqual([false, true]);
    const [record] = await usageRecordsOf(tenant.caller.workspace, reply.headers.get("x-request-id")!);
    expect(record).toMatchObject({ route: "POST /v1/moderations", model: MODEL, status: 200 });
  });

  it("refuses a missing key (401) and a chat model (400)", async () => {
    expect((await fetch(`${api.url}/v1/moderations`, { method: "POST", body: "{}" })).status).toBe(401);
    expect((await post("/v1/moderations", { model: "mistral-small-latest", input: "x" })).status).toBe(400);
  });
});

describe("POST /v1/chat/moderations", () => {
  it("moderates each conversation as one input", async () => {
    const reply = await post("/v1/chat/moderations", { model: MODEL, input: [[{ role: "user", content: "hi" }], [{ role: "user", content: THREAT }]] });

    expect(reply.status).toBe(200);
    expect(reply.body.results.map((r: { categories: Record<string, boolean> }) => r.categories.violence_and_threats)).toEqual([false, true]);
  });
});

describe("POST /v1/classifications", () => {
  it("answers the moderation target's scores per input", async () => {
    const reply = await post("/v1/classifications", { model: MODEL, input: THREAT });

    expect(reply.status).toBe(200);
    expect(reply.body.results[0].moderation.scores.violence_and_threats).toBe(1);
  });
});

describe("POST /v1/chat/classifications", () => {
  it("classifies {messages} inputs, and a fine-tuned model of another workspace is unknown here", async () => {
    const reply = await post("/v1/chat/classifications", { model: MODEL, input: [{ messages: [{ role: "user", content: THREAT }] }] });
    expect(reply.status).toBe(200);
    expect(reply.body.results[0].moderation.scores.violence_and_threats).toBe(1);

    const other = await newTenant();
    const { registerFineTuned } = await import("../../../shared/services/models/catalog.js");
    const theirs = `ft:${MODEL}:other:${other.caller.workspace.slice(0, 6)}`;
    await registerFineTuned({ workspace: other.caller.workspace, id: theirs, root: MODEL });
    expect((await post("/v1/chat/classifications", { model: theirs, input: { messages: [{ role: "user", content: "x" }] } })).status).toBe(400);
  });
});

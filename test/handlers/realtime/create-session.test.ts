import { randomBytes } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/realtime/create-session.js";
import { verifyClientSession } from "../../../shared/domain/realtime/client-sessions.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, aModelEntry, aModelItem, aSigningKeyItem, invoke } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";

const dynamo = mockDynamo();
const SECRET = randomBytes(32);
const caller = aCaller({ roles: ["workspace_contributor"] });
const realtime = aModelEntry({ id: "voxtral-mini-transcribe-realtime-2602", aliases: [], endpoints: ["realtime_transcriptions"], tokenizer: "tekken" });
const chat = aModelEntry({ id: "mistral-small-latest", endpoints: ["chat"] });
let tables: FakeTables;
beforeEach(() => {
  tables = serveTables(dynamo, { models: [aModelItem(realtime), aModelItem(chat)], tenancy: [aSigningKeyItem(SECRET)] }, { writes: true });
});

const create = (body: unknown, who = caller) => aJsonEvent(body, { path: "/v1/client/sessions", resource: "/v1/client/sessions", caller: who });
const audits = () => tables.items("audit").map((i) => ({ operation: i.operation, workspace: i.workspace, targets: i.targets, after: i.after }));

describe("POST /v1/client/sessions", () => {
  it("answers 201 with an rt_ secret sealed for the caller and the model, expiring after ttl_seconds, and records it in the audit log", async () => {
    const before = Math.floor(Date.now() / 1000);
    const response = await invoke(handler, create({ purpose: "realtime", model: realtime.id, ttl_seconds: 300 }));

    expect(response.statusCode).toBe(201);
    expect(response.json).toMatchObject({ object: "client.session", purpose: "realtime", model: realtime.id });
    expect(response.json.client_secret.expires_at).toBe(response.json.expires_at);
    const check = verifyClientSession([SECRET], response.json.client_secret.value, before);
    expect(check.ok && check.grant).toMatchObject({ id: response.json.id, workspace: caller.workspace, principal: caller.principal, keyId: caller.keyId, model: realtime.id });
    expect(check.ok && check.grant.expiresAt - before).toBeGreaterThanOrEqual(300);
    expect(check.ok && check.grant.expiresAt - before).toBeLessThanOrEqual(301);
    expect(audits()).toEqual([{ operation: "client-session.create", workspace: caller.workspace, targets: [{ type: "client_session", id: response.json.id }], after: { purpose: "realtime", model: realtime.id, expires_at: response.json.expires_at } }]);
    expect(JSON.stringify(tables.items("audit"))).not.toContain(response.json.client_secret.value);
  });

  it("lives 60 s when ttl_seconds is unset or null", async () => {
    const now = Math.floor(Date.now() / 1000);
    const response = await invoke(handler, create({ purpose: "realtime", model: realtime.id, ttl_seconds: null }));

    const expires = Date.parse(response.json.expires_at) / 1000;
    expect(expires - now).toBeGreaterThanOrEqual(59);
    expect(expires - now).toBeLessThanOrEqual(61);
  });

  it.each([
    ["another purpose", { purpose: "chat", model: realtime.id }],
    ["no model", { purpose: "realtime" }],
    ["a ttl of 0", { purpose: "realtime", model: realtime.id, ttl_seconds: 0 }],
    ["a ttl over an hour", { purpose: "realtime", model: realtime.id, ttl_seconds: 3601 }],
  ])("answers 422 for %s, and records nothing", async (_, body) => {
    const response = await invoke(handler, create(body));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toBeDefined();
    expect(audits()).toEqual([]);
  });

  it("answers 400 for a model that does not serve realtime transcription, and for one the key may not call", async () => {
    const chatModel = await invoke(handler, create({ purpose: "realtime", model: chat.id }));
    const limited = await invoke(handler, create({ purpose: "realtime", model: realtime.id }, aCaller({ ...caller, models: [chat.id] })));

    expect(chatModel.statusCode).toBe(400);
    expect(chatModel.json.code).toBe("model_capability_missing");
    expect(limited.statusCode).toBeGreaterThanOrEqual(400);
    expect(limited.statusCode).toBeLessThan(500);
    expect(audits()).toEqual([]);
  });

  it("answers 403 to a key without inference:invoke", async () => {
    const response = await invoke(handler, create({ purpose: "realtime", model: realtime.id }, aCaller({ roles: ["workspace_viewer"] })));

    expect(response.statusCode).toBe(403);
    expect(audits()).toEqual([]);
  });
});

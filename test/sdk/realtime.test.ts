/**
 * Realtime transcription through the official, unmodified SDK against the local server: `client.realtime.sessions.create`
 * (POST /v1/client/sessions) and the `RealtimeTranscription` WebSocket on /v1/audio/transcriptions/realtime, with an
 * API key and with a client secret (as the SDK's bearer, and as a browser's subprotocol).
 */
import { Mistral } from "@mistralai/mistralai";
import { RealtimeTranscription, type RealtimeEvent } from "@mistralai/mistralai/extra/realtime";
// The SDK's realtime index does not re-export its error classes; the package exports every module by path.
import { RealtimeTranscriptionWSError } from "@mistralai/mistralai/extra/realtime/errors.js";
import { SDKError } from "@mistralai/mistralai/models/errors";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { tenancyStore } from "../../shared/store/tenancy.js";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";
import { newTenant } from "../support/tenant.js";

const MODEL = "voxtral-mini-transcribe-realtime-2602";
const { api, tenant } = useEmbeddedApi({ tenant: "per-test" });
/** The SDK as the test's own tenant (a fresh one each test). */
const client = (): Mistral => sdkClient(api, tenant.key);

/** `seconds` of 16 kHz 16-bit silence, in the 4 KiB chunks the SDK's example reads a file in. */
async function* pcm(seconds: number, chunk = 4096): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.alloc(seconds * 16_000 * 2);
  for (let at = 0; at < bytes.length; at += chunk) yield bytes.subarray(at, at + chunk);
}

const transcriber = (apiKey: string) => new RealtimeTranscription({ apiKey, serverURL: api.url });

async function eventsOf(stream: AsyncIterable<RealtimeEvent>): Promise<RealtimeEvent[]> {
  const events: RealtimeEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("client.realtime.sessions.create: POST /v1/client/sessions", () => {
  it("mints an rt_ client secret for the model that expires after ttl_seconds", async () => {
    const before = Date.now();
    const session = await client().realtime.sessions.create({ purpose: "realtime", model: MODEL, ttlSeconds: 120 });

    expect(session).toMatchObject({ object: "client.session", purpose: "realtime" });
    expect(session.clientSecret.value).toMatch(/^rt_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(session.expiresAt.getTime()).toBe(session.clientSecret.expiresAt.getTime());
    expect(session.expiresAt.getTime() - before).toBeGreaterThan(115_000);
    expect(session.expiresAt.getTime() - before).toBeLessThanOrEqual(121_000);
  });

  it("refuses a model that does not serve realtime transcription (400) and an unknown one (400 invalid_model)", async () => {
    const chat = await errorOf(client().realtime.sessions.create({ purpose: "realtime", model: "mistral-small-latest" }), SDKError);
    const unknown = await errorOf(client().realtime.sessions.create({ purpose: "realtime", model: "no-such-model" }), SDKError);

    expect(chat.statusCode).toBe(400);
    expect(chat.body).toContain("model_capability_missing");
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain("invalid_model");
  });
});

describe("RealtimeTranscription on /v1/audio/transcriptions/realtime", () => {
  it("transcribes a stream with an API key: session.created, the offline placeholder as a text delta, transcription.done with the audio's real duration", async () => {
    const events = await eventsOf(transcriber(tenant.key).transcribeStream(pcm(3), MODEL, { audioFormat: { encoding: "pcm_s16le", sampleRate: 16_000 } }));

    const types = events.map((e) => e.type);
    expect(types[0]).toBe("session.created");
    expect(types).toContain("session.updated");
    expect(types.at(-1)).toBe("transcription.done");
    const delta = events.find((e) => e.type === "transcription.text.delta") as { text: string };
    expect(delta.text).toContain("[offline]");
    expect(delta.text).toContain("3.0 s");
    const done = events.at(-1) as { model: string; text: string; usage: { promptAudioSeconds?: number } };
    expect(done.model).toBe(MODEL);
    expect(done.text).toBe(delta.text);
    expect(done.usage.promptAudioSeconds).toBe(3);
  });

  it("measures the duration in the session's own format (8 kHz µ-law: one byte a sample)", async () => {
    const mulaw = async function* () {
      yield new Uint8Array(8000 * 2).fill(0xff);
    };
    const events = await eventsOf(transcriber(tenant.key).transcribeStream(mulaw(), MODEL, { audioFormat: { encoding: "pcm_mulaw", sampleRate: 8000 } }));

    expect((events.at(-1) as { usage: { promptAudioSeconds?: number } }).usage.promptAudioSeconds).toBe(2);
  });

  it("takes a client secret as the SDK's key, for its model only (another is refused)", async () => {
    const { clientSecret } = await client().realtime.sessions.create({ purpose: "realtime", model: MODEL });

    const events = await eventsOf(transcriber(clientSecret.value).transcribeStream(pcm(1), MODEL));
    expect(events.at(-1)?.type).toBe("transcription.done");

    const other = await transcriber(clientSecret.value)
      .connect("voxtral-mini-latest")
      .then(() => undefined, (error: unknown) => error);
    expect(other).toBeInstanceOf(RealtimeTranscriptionWSError);
    expect((other as RealtimeTranscriptionWSError).code).toBe(400);
  });

  it("takes a client secret from a browser's subprotocol and selects `realtime`, never echoing the secret", async () => {
    const { clientSecret } = await client().realtime.sessions.create({ purpose: "realtime", model: MODEL });
    const url = `${api.url.replace(/^http/, "ws")}/v1/audio/transcriptions/realtime?model=${MODEL}`;
    const ws = new WebSocket(url, ["realtime", clientSecret.value]);
    const first = await new Promise<Record<string, unknown>>((resolve, reject) => {
      ws.once("message", (data) => resolve(JSON.parse(String(data))));
      ws.once("error", reject);
    });

    expect(ws.protocol).toBe("realtime");
    expect(first).toMatchObject({ type: "session.created", session: { model: MODEL, audio_format: { encoding: "pcm_s16le", sample_rate: 16000 } } });
    ws.close();
  });

  it("refuses the upgrade with 401 for no credential, a forged secret and a secret whose key was revoked", async () => {
    const own = await newTenant();
    const { clientSecret } = await sdkClient(api, own.key).realtime.sessions.create({ purpose: "realtime", model: MODEL });
    const forged = `${clientSecret.value.slice(0, -4)}AAAA`;
    const statusOf = (protocols: string[]) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`${api.url.replace(/^http/, "ws")}/v1/audio/transcriptions/realtime?model=${MODEL}`, protocols);
        ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
        ws.once("open", () => {
          ws.close();
          resolve(101);
        });
      });

    expect(await statusOf(["realtime"])).toBe(401);
    expect(await statusOf(["realtime", forged])).toBe(401);
    expect(await statusOf(["realtime", clientSecret.value])).toBe(101);
    await tenancyStore.revokeApiKey(own.caller.keyId, new Date().toISOString());
    expect(await statusOf(["realtime", clientSecret.value])).toBe(401);
  });

  it("tells an authenticated client what is wrong as an error event: a model without realtime, a key without inference:invoke", async () => {
    const wrongModel = await transcriber(tenant.key)
      .connect("mistral-small-latest")
      .then(() => undefined, (error: unknown) => error);
    const viewer = await newTenant({ roles: ["workspace_viewer"] });
    const forbidden = await transcriber(viewer.key)
      .connect(MODEL)
      .then(() => undefined, (error: unknown) => error);

    expect(wrongModel).toBeInstanceOf(RealtimeTranscriptionWSError);
    expect((wrongModel as RealtimeTranscriptionWSError).code).toBe(400);
    expect((wrongModel as Error).message).toContain("does not support realtime transcription");
    expect(forbidden).toBeInstanceOf(RealtimeTranscriptionWSError);
    expect((forbidden as RealtimeTranscriptionWSError).code).toBe(403);
  });

  it("refuses a format change after audio with a 409 error event, and goes on", async () => {
    const connection = await transcriber(tenant.key).connect(MODEL);
    await connection.sendAudio(new Uint8Array(3200));
    await connection.updateSession({ encoding: "pcm_f32le", sampleRate: 16_000 });
    await connection.endAudio();
    const events: RealtimeEvent[] = [];
    for await (const event of connection) {
      events.push(event);
      if (event.type === "transcription.done") break;
    }
    await connection.close();

    const refusal = events.find((e) => e.type === "error") as { error: { code: number } } | undefined;
    expect(refusal?.error.code).toBe(409);
    expect((events.at(-1) as { usage: { promptAudioSeconds?: number } }).usage.promptAudioSeconds).toBe(1);
  });
});

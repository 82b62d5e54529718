/**
 * Transcription and speech end to end on the embedded servers: HTTP client → local API → handler →
 * provider (offline, or a fake OpenAI-compatible upstream on 127.0.0.1) with files in the local S3.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseBuffer } from "music-metadata";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerFineTuned } from "../../../shared/services/models/catalog.js";
import { useEmbeddedApi } from "../../support/api.js";
import { json, useFakeUpstream } from "../../support/fake-upstream.js";
import { filesClient } from "../../support/files-client.js";
import { newTenant } from "../../support/tenant.js";
import { voicesClient } from "../../support/voices-client.js";
import { aVoiceBody, aWav } from "../../support/wav.js";

const fake = useFakeUpstream();
const { api, tenant } = useEmbeddedApi();
const files = filesClient(api, tenant);
const voices = voicesClient(api, tenant);

/** A transcription form as the SDK sends it: text fields, repeated lists, the file part. */
function transcriptionForm(fields: Record<string, string | string[]>, wav?: Buffer, filename = "speech.wav"): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) for (const one of Array.isArray(value) ? value : [value]) form.append(name, one);
  if (wav) form.append("file", new Blob([new Uint8Array(wav)], { type: "audio/wav" }), filename);
  return form;
}
const transcribe = (fields: Record<string, string | string[]>, wav?: Buffer) => files.request("POST", "/v1/audio/transcriptions", { form: transcriptionForm({ model: "voxtral-mini-latest", ...fields }, wav) });
const speak = (body: Record<string, unknown>) => files.request("POST", "/v1/audio/speech", { json: body });

/** A plain HTTP server on 127.0.0.1 (loopback is allowed locally) serving a WAV and a redirect to the metadata address. */
let audioServer: Server;
let audioUrl: string;
const served = aWav({ seconds: 3, sampleRate: 8000 });
beforeAll(async () => {
  audioServer = createServer((req, res) => {
    if (req.url === "/clip.wav") res.writeHead(200, { "content-type": "audio/wav" }).end(served);
    else res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
  });
  await new Promise<void>((resolve) => audioServer.listen(0, "127.0.0.1", resolve));
  audioUrl = `http://127.0.0.1:${(audioServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  audioServer.closeAllConnections();
  await new Promise((resolve) => audioServer.close(resolve));
});

describe("POST /v1/audio/transcriptions", () => {
  it("answers a multipart WAV with its measured duration, offline and labelled", async () => {
    const reply = await transcribe({}, aWav({ seconds: 4, sampleRate: 16_000 }));

    expect(reply.status).toBe(200);
    expect(reply.headers.get("x-inference-backend")).toBe("offline");
    expect(reply.body).toMatchObject({ model: "voxtral-mini-latest", language: null, segments: [], usage: { prompt_audio_seconds: 4 } });
    expect(reply.body.text).toBe("[offline] No speech-to-text model is configured; 4.0 s of WAV audio were received and not transcribed.");
  });

  it("transcribes a voice's sample (a real WAV made in the test) with the right duration", async () => {
    const wav = aWav({ seconds: 1.5, sampleRate: 22_050 });
    const voice = await voices.created(aVoiceBody("narrator", { sample_audio: wav.toString("base64") }));
    const sample = await voices.sampleBytes(voice.id);

    const reply = await transcribe({}, sample.bytes);

    expect(reply.status).toBe(200);
    expect(reply.body.text).toContain("1.5 s of WAV audio");
    expect(reply.body.usage.prompt_audio_seconds).toBe(2);
  });

  it("reads an uploaded file by file_id, and answers 404 to another workspace", async () => {
    const file = await files.uploaded({ filename: "call.wav", content: aWav({ seconds: 2.2 }), type: "audio/wav", purpose: "ocr" });
    const other = filesClient(api, await newTenant());

    const reply = await transcribe({ file_id: file.id });
    const foreign = await other.request("POST", "/v1/audio/transcriptions", { form: transcriptionForm({ model: "voxtral-mini-latest", file_id: file.id }) });

    expect(reply.status).toBe(200);
    expect(reply.body.usage.prompt_audio_seconds).toBe(2);
    expect(foreign.status).toBe(404);
  });

  it("fetches a file_url (loopback is allowed for npm start) and refuses one that redirects to the metadata address", async () => {
    const fetched = await transcribe({ file_url: `${audioUrl}/clip.wav` });
    const redirected = await transcribe({ file_url: `${audioUrl}/elsewhere` });

    expect(fetched.status).toBe(200);
    expect(fetched.body.usage.prompt_audio_seconds).toBe(3);
    expect(redirected.status).toBe(422);
    expect(redirected.body.detail[0]).toMatchObject({ loc: ["body", "file_url"], msg: expect.stringContaining("169.254.169.254 may not be fetched") });
  });

  it("streams the OpenAPI's events over HTTP", async () => {
    const reply = await fetch(`${api.url}/v1/audio/transcriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, accept: "text/event-stream" },
      body: transcriptionForm({ model: "voxtral-mini-latest", stream: "true" }, aWav({ seconds: 1 })),
    });
    const text = await reply.text();

    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("text/event-stream");
    expect([...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1])).toStrictEqual(["transcription.text.delta", "transcription.done"]);
    expect(text.endsWith("\n\n")).toBe(true);
  });

  it("answers 413 naming the limit for audio over 10 minutes", async () => {
    const reply = await transcribe({}, aWav({ seconds: 605, sampleRate: 1000, bits: 8 }));

    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({ code: "audio_too_long", message: expect.stringContaining("600 s (10 minutes)") });
  });

  it("sends an upstream model the audio, its own model id and the form's fields, and answers its text and segments", async () => {
    const model = `ft:voxtral-mini-latest:test:${randomUUID().slice(0, 8)}`;
    await registerFineTuned({ workspace: tenant.caller.workspace, id: model, root: "voxtral-mini-latest", provider: "upstream", upstream: "fake-voxtral" });
    fake.reply(json({ model: "fake-voxtral", text: "Hello there.", language: "en", segments: [{ text: " Hello there.", start: 0, end: 1.2 }], usage: {} }));

    const reply = await transcribe({ model, language: "en", context_bias: ["Kenobi", "Skywalker"], timestamp_granularities: ["segment"] }, aWav({ seconds: 1.4 }));

    expect(reply.status).toBe(200);
    expect(reply.headers.get("x-inference-backend")).toBe("openai-compatible");
    expect(reply.body).toStrictEqual({
      model,
      text: "Hello there.",
      language: "en",
      segments: [{ type: "transcription_segment", text: "Hello there.", start: 0, end: 1.2 }],
      usage: { prompt_tokens: 0, completion_tokens: expect.any(Number), total_tokens: expect.any(Number), prompt_audio_seconds: 1 },
    });
    const request = await fake.requestOfTest();
    expect(request.path).toBe("/v1/audio/transcriptions");
    expect(request.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    for (const field of [["model", "fake-voxtral"], ["language", "en"], ["context_bias", "Kenobi"], ["context_bias", "Skywalker"], ["timestamp_granularities", "segment"]]) {
      expect(request.rawBody).toContain(`name="${field[0]}"\r\n\r\n${field[1]}\r\n`);
    }
    expect(request.rawBody).toContain('name="file"; filename="speech.wav"');
  });
});

describe("POST /v1/audio/speech", () => {
  it("answers offline a labelled placeholder WAV as base64 audio_data", async () => {
    const reply = await speak({ input: "Hello there" });

    expect(reply.status).toBe(200);
    expect(reply.headers.get("x-inference-backend")).toBe("offline");
    expect(reply.headers.get("x-audio-format")).toBe("wav");
    const wav = Buffer.from(reply.body.audio_data, "base64");
    expect((await parseBuffer(wav)).format).toMatchObject({ container: "WAVE", sampleRate: 16_000 });
  });

  it("sends an upstream in Mistral's dialect the workspace voice's sample as ref_audio", async () => {
    const model = `ft:voxtral-mini-tts-latest:test:${randomUUID().slice(0, 8)}`;
    await registerFineTuned({ workspace: tenant.caller.workspace, id: model, root: "voxtral-mini-tts-latest", provider: "upstream", upstream: "fake-tts" });
    const sample = aWav({ seconds: 0.5, sampleRate: 16_000 });
    const voice = await voices.created(aVoiceBody("cloned", { sample_audio: sample.toString("base64") }));
    fake.reply(json({ audio_data: Buffer.from("fake-mp3-bytes").toString("base64") }));

    const reply = await speak({ model, input: "Bonjour", voice_id: voice.id, response_format: "mp3" });

    expect(reply.status).toBe(200);
    expect(Buffer.from(reply.body.audio_data, "base64").toString()).toBe("fake-mp3-bytes");
    const request = await fake.requestOfTest();
    expect(request.path).toBe("/v1/audio/speech");
    expect(request.body).toStrictEqual({ model: "fake-tts", input: "Bonjour", response_format: "mp3", stream: false, ref_audio: sample.toString("base64") });
  });

  it("answers 404 for another workspace's voice", async () => {
    const voice = await voices.created();
    const other = filesClient(api, await newTenant());

    const reply = await other.request("POST", "/v1/audio/speech", { json: { input: "hi", voice_id: voice.id } });

    expect(reply.status).toBe(404);
  });
});

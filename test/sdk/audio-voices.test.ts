/**
 * Voices driven by the official, unmodified SDK (`client.audio.voices.*`) against the local server: every
 * answer parses into the SDK's types (dates as Date, snake_case remapped), the sample as a byte stream.
 */
import { Mistral } from "@mistralai/mistralai";
import { HTTPValidationError, SDKError } from "@mistralai/mistralai/models/errors";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { PRESET_VOICES } from "../../shared/domain/voices-presets.js";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";
import { aWav } from "../support/wav.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
beforeAll(() => {
  client = sdkClient(api, tenant.key);
});

const aVoice = (name: string, wav = aWav({ seconds: 0.5 })) => client.audio.voices.create({ name, sampleAudio: wav.toString("base64"), languages: ["en"], tags: ["sdk"] });

describe("client.audio.voices: POST /v1/audio/voices, GET /v1/audio/voices/{voice_id}/sample", () => {
  it("creates a voice and reads its sample back as the same WAV bytes", async () => {
    const wav = aWav({ seconds: 0.75, sampleRate: 22_050 });

    const voice = await aVoice("sdk voice", wav);
    const stream = await client.audio.voices.getSampleAudio({ voiceId: voice.id });

    expect(voice).toMatchObject({ name: "sdk voice", languages: ["en"], tags: ["sdk"], retentionNotice: 30, userId: tenant.caller.principal });
    expect(voice.createdAt).toBeInstanceOf(Date);
    expect(stream).toBeInstanceOf(ReadableStream);
    expect(Buffer.compare(Buffer.from(await new Response(stream).arrayBuffer()), wav)).toBe(0);
  });

  it("rejects a sample that is not audio with HTTPValidationError", async () => {
    const error = await errorOf(client.audio.voices.create({ name: "text", sampleAudio: Buffer.from("no audio").toString("base64") }), HTTPValidationError);
    expect(error.detail?.[0]?.loc).toEqual(["body", "sample_audio"]);
  });
});

describe("client.audio.voices: GET /v1/audio/voices, GET /v1/audio/voices/{voice_id}", () => {
  it("lists with the page fields and gets one voice", async () => {
    const voice = await aVoice("listed");

    const page = await client.audio.voices.list({ limit: 100 });
    const got = await client.audio.voices.get({ voiceId: voice.id });

    expect(page.items.map((v) => v.id)).toContain(voice.id);
    expect(page).toMatchObject({ page: 0, pageSize: 100, totalPages: 1 });
    expect(page.total).toBe(page.items.length);
    expect(got).toStrictEqual(voice);
  });

  it("surfaces an unknown voice as a 404 SDKError", async () => {
    const error = await errorOf(client.audio.voices.get({ voiceId: randomUUID() }), SDKError);
    expect(error.statusCode).toBe(404);
  });
});

describe("client.audio.voices: PATCH /v1/audio/voices/{voice_id}, DELETE /v1/audio/voices/{voice_id}", () => {
  it("updates metadata, then deletes the voice and answers it", async () => {
    const voice = await aVoice("to change");

    const updated = await client.audio.voices.update({ voiceId: voice.id, voiceUpdateRequest: { name: "changed", gender: "female", age: 41 } });
    const deleted = await client.audio.voices.delete({ voiceId: voice.id });

    expect(updated).toMatchObject({ id: voice.id, name: "changed", gender: "female", age: 41, languages: ["en"] });
    expect(deleted).toStrictEqual(updated);
    expect((await errorOf(client.audio.voices.getSampleAudio({ voiceId: voice.id }), SDKError)).statusCode).toBe(404);
  });
});

describe("client.audio.voices on preset voices: GET /v1/audio/voices/{voice_id}/sample, DELETE /v1/audio/voices/{voice_id}", () => {
  it("lists and reads the presets, plays their samples, and cannot delete them", async () => {
    const preset = PRESET_VOICES[0]!;

    const presets = await client.audio.voices.list({ type: "preset" });
    const sample = await client.audio.voices.getSampleAudio({ voiceId: preset.id });

    expect(presets.items.map((v) => v.id)).toEqual(PRESET_VOICES.map((v) => v.id));
    expect(presets.items[0]).toMatchObject({ name: preset.name, slug: preset.slug, userId: null });
    expect(Buffer.from(await new Response(sample).arrayBuffer()).toString("base64")).toBe(preset.wav);
    expect((await errorOf(client.audio.voices.delete({ voiceId: preset.id }), SDKError)).statusCode).toBe(403);
  });
});

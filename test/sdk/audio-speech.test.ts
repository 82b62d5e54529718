/**
 * Transcription and speech through the official, unmodified SDK (`client.audio.transcriptions.complete|stream`,
 * `client.audio.speech.complete`) against the local server: answers and events parse into the SDK's types.
 */
import { Mistral } from "@mistralai/mistralai";
import { SDKError } from "@mistralai/mistralai/models/errors";
import { parseBuffer } from "music-metadata";
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

const wavFile = (seconds: number) => ({ fileName: "clip.wav", content: new Uint8Array(aWav({ seconds, sampleRate: 16_000 })) });

describe("client.audio.transcriptions: POST /v1/audio/transcriptions", () => {
  it("complete answers a TranscriptionResponse with the measured duration", async () => {
    const answer = await client.audio.transcriptions.complete({ model: "voxtral-mini-latest", file: wavFile(3), language: "en", contextBias: ["Kenobi"], timestampGranularities: ["segment"] });

    expect(answer).toMatchObject({ model: "voxtral-mini-latest", language: "en", segments: [], usage: { promptAudioSeconds: 3 } });
    expect(answer.text).toContain("[offline]");
  });

  it("stream yields transcription.text.delta then transcription.done, parsed by the SDK", async () => {
    const stream = await client.audio.transcriptions.stream({ model: "voxtral-mini-latest", file: wavFile(1) });
    const seen: { event: string; type: string }[] = [];
    let done: Record<string, unknown> | undefined;
    for await (const event of stream) {
      seen.push({ event: event.event, type: String((event.data as { type: string }).type) });
      if (event.data.type === "transcription.done") done = event.data as Record<string, unknown>;
    }

    expect(seen).toStrictEqual([
      { event: "transcription.text.delta", type: "transcription.text.delta" },
      { event: "transcription.done", type: "transcription.done" },
    ]);
    expect(done).toMatchObject({ model: "voxtral-mini-latest", usage: { promptAudioSeconds: 1 } });
  });

  it("surfaces a refused request (no audio source) as an error with its status", async () => {
    const error = await errorOf(client.audio.transcriptions.complete({ model: "voxtral-mini-latest" }), SDKError);

    expect(error.statusCode).toBe(422);
  });
});

describe("client.audio.speech: POST /v1/audio/speech", () => {
  it("complete answers audioData, the offline placeholder WAV, in a preset voice", async () => {
    const answer = await client.audio.speech.complete({ input: "Hello there", voiceId: PRESET_VOICES[1]!.id, responseFormat: "wav" });

    const wav = Buffer.from(answer.audioData, "base64");
    expect((await parseBuffer(wav)).format.container).toBe("WAVE");
  });

  it("complete with stream: true yields speech.audio.delta events and speech.audio.done", async () => {
    const stream = await client.audio.speech.complete({ input: "Hello there", stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(String((event.data as { type: string }).type));

    expect(types.at(-1)).toBe("speech.audio.done");
    expect(types.slice(0, -1).every((t) => t === "speech.audio.delta")).toBe(true);
    expect(types.length).toBeGreaterThan(1);
  });
});

import { Readable } from "node:stream";
import { PollyClient, SynthesizeSpeechCommand } from "@aws-sdk/client-polly";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { mockClient } from "aws-sdk-client-mock";
import { parseBuffer } from "music-metadata";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/audio/speech.js";
import { PRESET_VOICES } from "../../../shared/domain/voices-presets.js";
import { PROVIDERS_ENV } from "../../../shared/inference/registry.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, aModelEntry, aModelItem, invokeStream, usageRecordsWritten } from "../../support/builders.js";
import { serveTables } from "../../support/fake-table.js";
import { aVoiceItem, aVoiceRecord } from "../../support/voice-items.js";

const dynamo = mockDynamo({ resolves: {} });
const s3 = mockS3();
const polly = mockClient(PollyClient);
const caller = aCaller();

const tts = aModelEntry({ id: "voxtral-mini-tts-latest", aliases: [], endpoints: ["speech"], upstream: "offline-placeholder-speech", tokenizer: "tekken" });
const cloud = aModelEntry({ id: "x-polly-speech", provider: "polly", endpoints: ["speech"], upstream: "polly-neural", tokenizer: "tekken" });
const chatOnly = aModelEntry({ id: "mistral-small-latest", endpoints: ["chat"] });
const frenchMan = aVoiceRecord(caller, { name: "Jean", languages: ["fr"], gender: "male" });

beforeAll(() => {
  const providers = JSON.parse(process.env[PROVIDERS_ENV] ?? "{}") as Record<string, unknown>;
  process.env[PROVIDERS_ENV] = JSON.stringify({ ...providers, polly: { type: "amazon-polly", region: "us-east-1" } });
});

beforeEach(() => {
  serveTables(dynamo, { models: [aModelItem(tts), aModelItem(cloud), aModelItem(chatOnly)], audio: [aVoiceItem(frenchMan)] });
  polly.reset();
});

const speech = (body: Record<string, unknown>, who = caller) => aJsonEvent(body, { path: "/v1/audio/speech", resource: "/v1/audio/speech", caller: who });
const audioOf = (json: { audio_data: string }) => Buffer.from(json.audio_data, "base64");
const usageWrites = () => usageRecordsWritten(dynamo).map((call) => call.args[0].input as { Item: Record<string, unknown> });

describe("POST /v1/audio/speech", () => {
  it("answers offline a short placeholder WAV whose comment says it is not speech, and says so in the headers", async () => {
    const response = await invokeStream(handler, speech({ model: "voxtral-mini-tts-latest", input: "Hello world" }));

    expect(response.metadata?.statusCode).toBe(200);
    expect(response.metadata?.headers?.["x-inference-backend"]).toBe("offline");
    expect(response.metadata?.headers?.["x-audio-format"]).toBe("wav");
    expect(Object.keys(response.json)).toStrictEqual(["audio_data"]);
    const wav = audioOf(response.json);
    const parsed = await parseBuffer(wav);
    expect(parsed.format.container).toBe("WAVE");
    expect(parsed.format.duration).toBeCloseTo(0.6, 2);
    expect(wav.toString("latin1")).toContain("[offline] No speech model is configured: a placeholder tone, not speech");
  });

  it("takes the catalog's first speech model (by id) when the request names none", async () => {
    const response = await invokeStream(handler, speech({ input: "Hello" }));

    expect(response.metadata?.statusCode).toBe(200);
    expect(usageWrites().map((w) => w.Item!.model)).toStrictEqual(["voxtral-mini-tts-latest"]);
  });

  it("names the workspace's voice in the placeholder, and a preset's", async () => {
    const custom = await invokeStream(handler, speech({ input: "Salut", voice_id: frenchMan.id }));
    const preset = await invokeStream(handler, speech({ input: "Hi", voice_id: PRESET_VOICES[0]!.id }));

    expect(audioOf(custom.json).toString("latin1")).toContain("(voice: Jean)");
    expect(audioOf(preset.json).toString("latin1")).toContain(`(voice: ${PRESET_VOICES[0]!.name})`);
  });

  it("answers 404 for a voice of another workspace", async () => {
    const response = await invokeStream(handler, speech({ input: "Salut", voice_id: frenchMan.id }, aCaller({ workspace: "ws-other" })));

    expect(response.metadata?.statusCode).toBe(404);
    expect(usageWrites()).toHaveLength(0);
  });

  it("streams speech.audio.delta events that join to the audio, then speech.audio.done with usage", async () => {
    const plain = await invokeStream(handler, speech({ input: "Hello world" }));
    const response = await invokeStream(handler, speech({ input: "Hello world", stream: true }));

    expect(response.metadata?.headers?.["content-type"]).toBe("text/event-stream");
    const frames = response.body.split("\n\n").filter(Boolean);
    const datas = frames.map((frame) => JSON.parse(/^data: (.+)$/m.exec(frame)![1]!) as { type: string; audio_data?: string; usage?: unknown });
    expect(frames.map((frame) => /^event: (.+)$/m.exec(frame)![1])).toStrictEqual([...datas.slice(0, -1).map(() => "speech.audio.delta"), "speech.audio.done"]);
    expect(datas.slice(0, -1).map((d) => d.audio_data).join("")).toBe(plain.json.audio_data);
    expect(datas.at(-1)).toStrictEqual({ type: "speech.audio.done", usage: { prompt_tokens: expect.any(Number), completion_tokens: 0, total_tokens: expect.any(Number), prompt_audio_seconds: null } });
  });

  it("answers 422 for an empty input, a format it does not know, and reference audio", async () => {
    const empty = await invokeStream(handler, speech({ input: "" }));
    const format = await invokeStream(handler, speech({ input: "x", response_format: "aiff" }));
    const reference = await invokeStream(handler, speech({ input: "x", ref_audio: "UklGRg==" }));

    expect([empty, format, reference].map((r) => r.metadata?.statusCode)).toStrictEqual([422, 422, 422]);
    expect(reference.json.detail[0]).toMatchObject({ loc: ["body", "ref_audio"] });
  });

  it("answers 422 for input over 3000 characters", async () => {
    const response = await invokeStream(handler, speech({ input: "a".repeat(3001) }));

    expect(response.metadata?.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "input"]);
  });

  it("answers 400 for a model that does not speak", async () => {
    const response = await invokeStream(handler, speech({ model: "mistral-small-latest", input: "x" }));

    expect(response.metadata?.statusCode).toBe(400);
    expect(response.json.message).toBe("Model 'mistral-small-latest' does not support speech synthesis (capability audio_speech)");
  });

  describe("through Amazon Polly", () => {
    const pollyAnswers = (bytes: Buffer) =>
      polly.on(SynthesizeSpeechCommand).resolves({ AudioStream: Object.assign(Readable.from([bytes]), { transformToByteArray: async () => new Uint8Array(bytes) }) as never });

    it("asks Polly for mp3 in a neural voice chosen by the voice's language and gender", async () => {
      pollyAnswers(Buffer.from("ID3-fake-mp3"));

      const response = await invokeStream(handler, speech({ model: "x-polly-speech", input: "Bonjour", voice_id: frenchMan.id }));

      expect(response.metadata?.statusCode).toBe(200);
      expect(response.metadata?.headers?.["x-inference-backend"]).toBe("amazon-polly");
      expect(response.metadata?.headers?.["x-audio-format"]).toBe("mp3");
      expect(audioOf(response.json).toString()).toBe("ID3-fake-mp3");
      expect(polly.commandCalls(SynthesizeSpeechCommand)[0]!.args[0].input).toStrictEqual({ Engine: "neural", Text: "Bonjour", TextType: "text", VoiceId: "Remi", OutputFormat: "mp3" });
    });

    it("wraps Polly's 16 kHz PCM in a WAV header for wav", async () => {
      const pcm = Buffer.alloc(3200, 0);
      pollyAnswers(pcm);

      const response = await invokeStream(handler, speech({ model: "x-polly-speech", input: "Hi", response_format: "wav" }));

      expect(polly.commandCalls(SynthesizeSpeechCommand)[0]!.args[0].input).toMatchObject({ OutputFormat: "pcm", SampleRate: "16000", VoiceId: "Joanna" });
      const parsed = await parseBuffer(audioOf(response.json));
      expect(parsed.format).toMatchObject({ container: "WAVE", sampleRate: 16_000, numberOfChannels: 1 });
      expect(parsed.format.duration).toBeCloseTo(0.1, 3);
    });

    it("answers 400 for a format Polly cannot make, without calling it", async () => {
      const response = await invokeStream(handler, speech({ model: "x-polly-speech", input: "Hi", response_format: "flac" }));

      expect(response.metadata?.statusCode).toBe(400);
      expect(response.json.message).toBe("Amazon Polly cannot make flac audio; ask for mp3, wav or pcm");
      expect(polly.commandCalls(SynthesizeSpeechCommand)).toHaveLength(0);
    });

    it("answers 429 when Polly throttles and records the failed call", async () => {
      polly.on(SynthesizeSpeechCommand).rejects(Object.assign(new Error("Rate exceeded"), { name: "ThrottlingException" }));

      const response = await invokeStream(handler, speech({ model: "x-polly-speech", input: "Hi" }));

      expect(response.metadata?.statusCode).toBe(429);
      expect(usageWrites().map((w) => w.Item!.status)).toStrictEqual([429]);
    });
  });

  it("reads a custom voice's sample only for upstreams that clone from it (never for offline or Polly)", async () => {
    s3.on(GetObjectCommand).resolves({ Body: Readable.from([Buffer.alloc(4)]) as never });

    await invokeStream(handler, speech({ input: "Salut", voice_id: frenchMan.id }));

    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });
});

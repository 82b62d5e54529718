/** The audio endpoints of the OpenAI-compatible provider against a fake upstream, in both dialects. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OpenAICompatibleProvider } from "../../../shared/inference/providers/openai-compatible.js";
import { UpstreamError, type TranscribeRequest, type TranscriptionEvent } from "../../../shared/inference/types.js";
import { FakeUpstream, json, text } from "../../support/fake-upstream.js";
import { aWav } from "../../support/wav.js";

let upstream: FakeUpstream;
beforeEach(async () => {
  upstream = await FakeUpstream.start();
});
afterEach(async () => {
  await upstream.close();
});

const provider = (dialect: "openai" | "mistral") => new OpenAICompatibleProvider({ baseUrl: upstream.url, dialect });
const request = (extra: Partial<TranscribeRequest> = {}): TranscribeRequest => ({
  model: "whisper-1",
  audio: aWav({ seconds: 1 }),
  filename: "clip.wav",
  container: "WAVE",
  durationSeconds: 1,
  diarize: false,
  contextBias: [],
  timestampGranularities: ["segment"],
  ...extra,
});
const collect = async (events: AsyncIterable<TranscriptionEvent>) => {
  const out: TranscriptionEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
};
const field = (raw: string, name: string) => new RegExp(`name="${name.replace(/[[\]]/g, "\\$&")}"\\r\\n\\r\\n([^\\r]*)\\r\\n`).exec(raw)?.[1];

describe("transcribe", () => {
  it("asks an OpenAI-dialect server (whisper.cpp, vLLM) for verbose_json and reads its language name as a code", async () => {
    upstream.reply(json({ text: " Hello world.", language: "english", duration: 1, segments: [{ id: 0, start: 0, end: 0.98, text: " Hello world." }] }));

    const events = await collect(provider("openai").transcribe(request({ language: "en", temperature: 0.2 }), {}));

    expect(events).toStrictEqual([
      { type: "language", language: "en" },
      { type: "text", text: " Hello world." },
      { type: "segment", text: "Hello world.", start: 0, end: 0.98 },
    ]);
    const sent = upstream.requests[0]!;
    expect(sent.path).toBe("/v1/audio/transcriptions");
    expect([field(sent.rawBody, "model"), field(sent.rawBody, "response_format"), field(sent.rawBody, "timestamp_granularities[]"), field(sent.rawBody, "language"), field(sent.rawBody, "temperature")]).toStrictEqual([
      "whisper-1",
      "verbose_json",
      "segment",
      "en",
      "0.2",
    ]);
    expect(field(sent.rawBody, "diarize")).toBeUndefined();
  });

  it("sends Mistral's own fields in its dialect, and keeps a speaker id", async () => {
    upstream.reply(json({ model: "voxtral", text: "Hi.", language: "fr", segments: [{ text: "Hi.", start: 0, end: 1, speaker_id: "speaker_1" }] }));

    const events = await collect(provider("mistral").transcribe(request({ diarize: true, contextBias: ["Kenobi"] }), {}));

    expect(events.at(-1)).toStrictEqual({ type: "segment", text: "Hi.", start: 0, end: 1, speakerId: "speaker_1" });
    const raw = upstream.requests[0]!.rawBody;
    expect([field(raw, "diarize"), field(raw, "context_bias"), field(raw, "timestamp_granularities"), field(raw, "response_format")]).toStrictEqual(["true", "Kenobi", "segment", undefined]);
  });

  it("answers an upstream without text as a 502, and a refusal as a 400 with its message", async () => {
    upstream.reply(json({ segments: [] }), json({ message: "audio too short" }, { status: 400 }));

    const malformed = await collect(provider("openai").transcribe(request(), {})).catch((e: unknown) => e);
    const refused = await collect(provider("openai").transcribe(request(), {})).catch((e: unknown) => e);

    expect(malformed).toBeInstanceOf(UpstreamError);
    expect((malformed as UpstreamError).status).toBe(502);
    expect(refused).toMatchObject({ status: 400, message: "audio too short" });
  });
});

describe("speak", () => {
  const voice = { id: "v1", name: "Narrator", slug: "narrator", languages: ["en"], gender: null, sample: async () => Buffer.from("RIFF-sample") };

  it("sends an OpenAI-dialect server the voice's slug and takes the bytes it answers", async () => {
    upstream.reply(text("MP3BYTES", { headers: { "content-type": "audio/mpeg" } }));

    const audio = await provider("openai").speak({ model: "tts-1", input: "Hello", format: "mp3", voice }, {});

    expect(audio).toStrictEqual({ audio: Buffer.from("MP3BYTES"), format: "mp3" });
    expect(upstream.requests[0]!.body).toStrictEqual({ model: "tts-1", input: "Hello", response_format: "mp3", voice: "narrator" });
  });

  it("sends Mistral's dialect the voice's sample as ref_audio and decodes audio_data", async () => {
    upstream.reply(json({ audio_data: Buffer.from("WAVBYTES").toString("base64") }));

    const audio = await provider("mistral").speak({ model: "voxtral-tts", input: "Bonjour", format: "wav", voice }, {});

    expect(audio).toStrictEqual({ audio: Buffer.from("WAVBYTES"), format: "wav" });
    expect(upstream.requests[0]!.body).toStrictEqual({ model: "voxtral-tts", input: "Bonjour", response_format: "wav", stream: false, ref_audio: Buffer.from("RIFF-sample").toString("base64") });
  });
});

import { Readable } from "node:stream";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { StartStreamTranscriptionCommand, TranscribeStreamingClient, type AudioStream, type TranscriptResultStream } from "@aws-sdk/client-transcribe-streaming";
import { mockClient } from "aws-sdk-client-mock";
import fc from "fast-check";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/audio/transcribe.js";
import { PROVIDERS_ENV, providerNamed } from "../../../shared/inference/registry.js";
import { UpstreamError } from "../../../shared/inference/types.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, aFile, aFileItem, aModelEntry, aModelItem, invokeStream, multipartEvent, usageRecordsWritten } from "../../support/builders.js";
import { aPlatformError } from "../../support/errors.js";
import { serveTables } from "../../support/fake-table.js";
import { aFlac } from "../../support/flac.js";
import { aWav } from "../../support/wav.js";

const dynamo = mockDynamo({ resolves: {} });
const s3 = mockS3();
const transcribeClient = mockClient(TranscribeStreamingClient);
const caller = aCaller();

const voxtral = aModelEntry({ id: "voxtral-mini-latest", aliases: [], endpoints: ["transcriptions"], upstream: "offline-transcriber", tokenizer: "tekken" });
const cloud = aModelEntry({ id: "cloud-transcriber", provider: "transcribe", endpoints: ["transcriptions"], upstream: "amazon-transcribe-streaming", tokenizer: "tekken" });
const chatOnly = aModelEntry({ id: "mistral-small-latest", endpoints: ["chat"] });
const audioFile = aFile({ workspace: caller.workspace, filename: "meeting.wav", bytes: 32_044, mimetype: "audio/wav", purpose: "batch", numLines: null });
const hugeFile = aFile({ workspace: caller.workspace, filename: "long.wav", bytes: 30 * 1024 * 1024, mimetype: "audio/wav", purpose: "batch", numLines: null });

beforeAll(() => {
  const providers = JSON.parse(process.env[PROVIDERS_ENV] ?? "{}") as Record<string, unknown>;
  process.env[PROVIDERS_ENV] = JSON.stringify({ ...providers, transcribe: { type: "amazon-transcribe", region: "us-east-1" } });
});

beforeEach(() => {
  serveTables(dynamo, { models: [aModelItem(voxtral), aModelItem(cloud), aModelItem(chatOnly)], files: [aFileItem(audioFile), aFileItem(hugeFile)] });
  transcribeClient.reset();
});

afterEach(() => {
  vi.restoreAllMocks();
});

const WAV = aWav({ seconds: 2, sampleRate: 16_000 });
type Fields = Parameters<typeof multipartEvent>[0];
const transcription = (fields: Fields, who = caller) => multipartEvent(fields, { path: "/v1/audio/transcriptions", resource: "/v1/audio/transcriptions", caller: who });
const withFile = (extra: Fields = {}, content: Buffer = WAV) => ({ model: "voxtral-mini-latest", file: { filename: "hello.wav", content, type: "audio/wav" }, ...extra });

/** The SSE body's events as `{event, data}` (data parsed). */
const events = (body: string) =>
  body
    .split("\n\n")
    .filter(Boolean)
    .map((frame) => {
      const event = /^event: (.+)$/m.exec(frame)?.[1];
      const data = /^data: (.+)$/m.exec(frame)?.[1];
      return { event, data: JSON.parse(data!) as Record<string, unknown> };
    });

const usageWrites = () => usageRecordsWritten(dynamo).map((call) => call.args[0].input as { Item: Record<string, unknown> });

describe("POST /v1/audio/transcriptions", () => {
  it("answers offline with the measured duration and a labelled sentence instead of words", async () => {
    const response = await invokeStream(handler, transcription(withFile()));

    expect(response.metadata?.statusCode).toBe(200);
    expect(response.metadata?.headers?.["content-type"]).toBe("application/json");
    expect(response.metadata?.headers?.["x-inference-backend"]).toBe("offline");
    expect(response.json).toStrictEqual({
      model: "voxtral-mini-latest",
      text: "[offline] No speech-to-text model is configured; 2.0 s of WAV audio were received and not transcribed.",
      language: null,
      segments: [],
      usage: { prompt_tokens: 0, completion_tokens: expect.any(Number), total_tokens: expect.any(Number), prompt_audio_seconds: 2 },
    });
  });

  it("takes FLAC too, measuring its duration from the header", async () => {
    const response = await invokeStream(handler, transcription(withFile({}, aFlac({ seconds: 1.2, sampleRate: 16_000 }))));

    expect(response.metadata?.statusCode).toBe(200);
    expect(response.json.text).toContain("1.2 s of FLAC audio");
  });

  it("rounds the measured duration for usage.prompt_audio_seconds (the SDK reads an integer)", async () => {
    const response = await invokeStream(handler, transcription(withFile({}, aWav({ seconds: 2.6, sampleRate: 8000 }))));

    expect(response.json.usage.prompt_audio_seconds).toBe(3);
  });

  it("answers the language the request named when the backend heard none", async () => {
    const response = await invokeStream(handler, transcription(withFile({ language: "fr" })));

    expect(response.json.language).toBe("fr");
  });

  it("streams transcription.text.delta then transcription.done with the whole answer", async () => {
    const response = await invokeStream(handler, transcription(withFile({ stream: "true" })));

    expect(response.metadata?.statusCode).toBe(200);
    expect(response.metadata?.headers?.["content-type"]).toBe("text/event-stream");
    const frames = events(response.body);
    expect(frames.map((f) => f.event)).toStrictEqual(["transcription.text.delta", "transcription.done"]);
    expect(frames[0]!.data).toStrictEqual({ type: "transcription.text.delta", text: expect.stringContaining("[offline]") });
    expect(frames[1]!.data).toMatchObject({ type: "transcription.done", model: "voxtral-mini-latest", language: null, segments: [], usage: { prompt_audio_seconds: 2 } });
    expect(frames[1]!.data.text).toBe(frames[0]!.data.text);
  });

  it("reads an uploaded file of the workspace by file_id", async () => {
    s3.on(GetObjectCommand, { Key: audioFile.objectKey }).resolves({ Body: Readable.from([WAV]) as never });

    const response = await invokeStream(handler, transcription({ model: "voxtral-mini-latest", file_id: audioFile.id }));

    expect(response.metadata?.statusCode).toBe(200);
    expect(response.json.usage.prompt_audio_seconds).toBe(2);
    expect(s3.commandCalls(GetObjectCommand)[0]!.args[0].input.Key).toBe(audioFile.objectKey);
  });

  it("answers 404 for a file_id of another workspace, reading no object", async () => {
    const stranger = aCaller({ workspace: "ws-other" });

    const response = await invokeStream(handler, transcription({ model: "voxtral-mini-latest", file_id: audioFile.id }, stranger));

    expect(response.metadata?.statusCode).toBe(404);
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });

  it("answers 413 naming the limit for a file_id over 25 MiB, before reading it", async () => {
    const response = await invokeStream(handler, transcription({ model: "voxtral-mini-latest", file_id: hugeFile.id }));

    expect(response.metadata?.statusCode).toBe(413);
    expect(response.json).toStrictEqual(
      aPlatformError({ message: `The audio (file_id) is ${hugeFile.bytes} bytes, more than the 26214400 bytes (25 MiB) a transcription may read`, type: "invalid_request_error", param: null, code: "audio_too_large" }),
    );
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });

  it("answers 413 naming the limit for audio longer than 10 minutes", async () => {
    const long = aWav({ seconds: 601, sampleRate: 1000, bits: 8 });

    const response = await invokeStream(handler, transcription(withFile({}, long)));

    expect(response.metadata?.statusCode).toBe(413);
    expect(response.json.code).toBe("audio_too_long");
    expect(response.json.message).toBe("The audio lasts 601.0 s, longer than the 600 s (10 minutes) a transcription may take");
    expect(usageWrites()).toHaveLength(0);
  });

  it("answers 422 on body.file for bytes that are not audio", async () => {
    const response = await invokeStream(handler, transcription(withFile({}, Buffer.from("just some text, not audio at all"))));

    expect(response.metadata?.statusCode).toBe(422);
    expect(response.json.detail).toStrictEqual([
      { loc: ["body", "file"], msg: "The audio is not in a format we can read; send WAV, MP3, FLAC, Ogg (Vorbis, Opus)", type: "value_error" },
    ]);
  });

  it("answers 422 when no audio source is given, and when two are", async () => {
    const none = await invokeStream(handler, transcription({ model: "voxtral-mini-latest" }));
    const two = await invokeStream(handler, transcription(withFile({ file_id: audioFile.id })));

    expect(none.metadata?.statusCode).toBe(422);
    expect(none.json.detail[0]).toMatchObject({ loc: ["body"], msg: "Give the audio as file, file_id or file_url" });
    expect(two.metadata?.statusCode).toBe(422);
    expect(two.json.detail[0]).toMatchObject({ loc: ["body"], msg: "Give one of file, file_id or file_url, not file and file_id" });
  });

  it("refuses a file_url on the instance metadata address without fetching it", async () => {
    const response = await invokeStream(handler, transcription({ model: "voxtral-mini-latest", file_url: "http://169.254.169.254/latest/meta-data/" }));

    expect(response.metadata?.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toStrictEqual(["body", "file_url"]);
    expect(response.json.detail[0].msg).toContain("169.254.169.254 may not be fetched");
  });

  it("answers 400 for a model that does not transcribe", async () => {
    const response = await invokeStream(handler, transcription(withFile({ model: "mistral-small-latest" })));

    expect(response.metadata?.statusCode).toBe(400);
    expect(response.json.code).toBe("model_capability_missing");
    expect(response.json.message).toBe("Model 'mistral-small-latest' does not support audio transcription (capability audio_transcription)");
  });

  it("answers 422 for a temperature out of range and a granularity it does not know", async () => {
    const response = await invokeStream(handler, transcription(withFile({ temperature: "7", timestamp_granularities: ["segment", "paragraph"] })));

    expect(response.metadata?.statusCode).toBe(422);
    expect(response.json.detail.map((d: { loc: unknown[] }) => d.loc[1])).toStrictEqual(expect.arrayContaining(["temperature", "timestamp_granularities"]));
  });

  it("keeps the provider's status when it fails before answering, and records the failed call", async () => {
    const offline = await providerNamed("offline");
    vi.spyOn(offline, "transcribe").mockImplementation(async function* () {
      yield* [];
      throw new UpstreamError(429, "slow down", 3);
    });

    const response = await invokeStream(handler, transcription(withFile()));

    expect(response.metadata?.statusCode).toBe(429);
    expect(response.metadata?.headers?.["retry-after"]).toBe("3");
    expect(usageWrites().map((w) => w.Item!.status)).toStrictEqual([429]);
  });

  it("records one usage record of a successful call, with the model and route", async () => {
    await invokeStream(handler, transcription(withFile()));

    expect(usageWrites().map((w) => [w.Item!.model, w.Item!.route, w.Item!.status, w.Item!.backend])).toStrictEqual([
      ["voxtral-mini-latest", "POST /v1/audio/transcriptions", 200, "offline"],
    ]);
  });

  it("answers 200, 413 or 422, never a 5xx, for any bytes: garbage, cut-off WAVs, headers that lie", async () => {
    const real = aWav({ seconds: 1, sampleRate: 8000 });
    const bytes = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 2000 }).map((b) => Buffer.from(b)),
      fc.integer({ min: 1, max: real.length - 1 }).map((n) => real.subarray(0, n)),
      fc.tuple(fc.integer({ min: 4, max: 43 }), fc.integer({ min: 0, max: 0xffffffff })).map(([at, value]) => {
        const lying = Buffer.from(real);
        lying.writeUInt32LE(value, at - (at % 4));
        return lying;
      }),
    );
    await fc.assert(
      fc.asyncProperty(bytes, fc.constantFrom("voxtral-mini-latest", "cloud-transcriber"), async (content, model) => {
        transcribeClient.on(StartStreamTranscriptionCommand).callsFake(async (input: { AudioStream: AsyncIterable<AudioStream> }) => {
          for await (const _ of input.AudioStream);
          return { TranscriptResultStream: (async function* () {})() };
        });
        const response = await invokeStream(handler, transcription(withFile({ model }, content)));
        expect([200, 413, 422], `${response.metadata?.statusCode} ${response.body.slice(0, 200)}`).toContain(response.metadata?.statusCode);
      }),
      { numRuns: 60, seed: 16 },
    );
  });

  describe("through Amazon Transcribe", () => {
    /** Answers the final results given, recording how many PCM bytes the function sent. */
    const transcribeAnswers = (results: NonNullable<NonNullable<TranscriptResultStream["TranscriptEvent"]>["Transcript"]>["Results"][]) => {
      const sent = { bytes: 0, input: undefined as Record<string, unknown> | undefined };
      transcribeClient.on(StartStreamTranscriptionCommand).callsFake(async (input: { AudioStream: AsyncIterable<AudioStream> }) => {
        sent.input = input as unknown as Record<string, unknown>;
        for await (const event of input.AudioStream) sent.bytes += event.AudioEvent?.AudioChunk?.length ?? 0;
        return {
          TranscriptResultStream: (async function* () {
            for (const Results of results) yield { TranscriptEvent: { Transcript: { Results } } };
          })(),
        };
      });
      return sent;
    };

    it("sends 16 kHz 16-bit PCM decoded in the function and answers the final results as text and segments", async () => {
      const sent = transcribeAnswers([
        [{ IsPartial: true, StartTime: 0, EndTime: 0.5, Alternatives: [{ Transcript: "Hel" }] }],
        [{ IsPartial: false, StartTime: 0, EndTime: 0.9, LanguageCode: "en-US", Alternatives: [{ Transcript: "Hello there." }] }],
        [{ IsPartial: false, StartTime: 1, EndTime: 1.8, LanguageCode: "en-US", Alternatives: [{ Transcript: "General Kenobi." }] }],
      ]);

      const response = await invokeStream(handler, transcription(withFile({ model: "cloud-transcriber", file: { filename: "a.wav", content: aWav({ seconds: 2, sampleRate: 8000 }) } })));

      expect(response.metadata?.statusCode).toBe(200);
      expect(response.metadata?.headers?.["x-inference-backend"]).toBe("amazon-transcribe");
      expect(sent.bytes).toBe(2 * 16_000 * 2);
      expect(sent.input).toMatchObject({ MediaEncoding: "pcm", MediaSampleRateHertz: 16_000, IdentifyLanguage: true, LanguageOptions: "en-US,fr-FR,de-DE,es-US,it-IT" });
      expect(response.json).toMatchObject({
        model: "cloud-transcriber",
        text: "Hello there. General Kenobi.",
        language: "en",
        segments: [
          { type: "transcription_segment", text: "Hello there.", start: 0, end: 0.9 },
          { type: "transcription_segment", text: "General Kenobi.", start: 1, end: 1.8 },
        ],
        usage: { prompt_audio_seconds: 2 },
      });
    });

    it("decodes FLAC with the WebAssembly decoder before sending PCM (the last partial frame may be lost: < 0.26 s here)", async () => {
      const sent = transcribeAnswers([[{ IsPartial: false, StartTime: 0, EndTime: 2, Alternatives: [{ Transcript: "Flac." }] }]]);

      const response = await invokeStream(handler, transcription(withFile({ model: "cloud-transcriber", file: { filename: "a.flac", content: aFlac({ seconds: 2.5, sampleRate: 16_000 }) } })));

      expect(response.metadata?.statusCode).toBe(200);
      expect(response.json).toMatchObject({ text: "Flac.", usage: { prompt_audio_seconds: 3 } });
      expect(sent.bytes).toBeGreaterThan(2.24 * 32_000);
      expect(sent.bytes).toBeLessThanOrEqual(2.5 * 32_000);
    });

    it("names the language and asks for speaker labels when told, and streams language, deltas and segments", async () => {
      const sent = transcribeAnswers([[{ IsPartial: false, StartTime: 0, EndTime: 1, Alternatives: [{ Transcript: "Bonjour.", Items: [{ Content: "Bonjour", Speaker: "0" }] }] }]]);

      const response = await invokeStream(handler, transcription(withFile({ model: "cloud-transcriber", language: "fr", diarize: "true", stream: "true" })));

      expect(sent.input).toMatchObject({ LanguageCode: "fr-FR", ShowSpeakerLabel: true });
      expect(sent.input).not.toHaveProperty("IdentifyLanguage");
      expect(events(response.body)).toStrictEqual([
        { event: "transcription.language", data: { type: "transcription.language", audio_language: "fr" } },
        { event: "transcription.text.delta", data: { type: "transcription.text.delta", text: "Bonjour." } },
        { event: "transcription.segment", data: { type: "transcription.segment", text: "Bonjour.", start: 0, end: 1, speaker_id: "speaker_0" } },
        {
          event: "transcription.done",
          data: expect.objectContaining({ type: "transcription.done", text: "Bonjour.", language: "fr", usage: expect.objectContaining({ prompt_audio_seconds: 2 }) }),
        },
      ]);
    });

    it("answers 429 when Transcribe throttles, before the first byte", async () => {
      transcribeClient.on(StartStreamTranscriptionCommand).rejects(Object.assign(new Error("Rate exceeded"), { name: "LimitExceededException" }));

      const response = await invokeStream(handler, transcription(withFile({ model: "cloud-transcriber" })));

      expect(response.metadata?.statusCode).toBe(429);
      expect(response.json.message).toBe("Amazon Transcribe is throttling requests (LimitExceededException); retry later");
    });
  });
});

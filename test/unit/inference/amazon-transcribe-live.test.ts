import { StartStreamTranscriptionCommand, TranscribeStreamingClient, type AudioStream, type TranscriptResultStream } from "@aws-sdk/client-transcribe-streaming";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { AmazonTranscribeProvider } from "../../../shared/inference/providers/amazon-transcribe.js";
import { UpstreamError, type LiveAudio, type LiveAudioFormat, type TranscriptionEvent } from "../../../shared/inference/types.js";

const transcribeClient = mockClient(TranscribeStreamingClient);
const provider = new AmazonTranscribeProvider({ region: "us-east-1" });

type Results = NonNullable<NonNullable<TranscriptResultStream["TranscriptEvent"]>["Transcript"]>["Results"];

/** Answers the results given after reading the whole AudioStream, recording the command's input and the chunks sent. */
function transcribeAnswers(results: Results[]) {
  const sent = { input: undefined as Record<string, unknown> | undefined, chunks: [] as Buffer[] };
  transcribeClient.on(StartStreamTranscriptionCommand).callsFake(async (input: { AudioStream: AsyncIterable<AudioStream> }) => {
    sent.input = input as unknown as Record<string, unknown>;
    for await (const event of input.AudioStream) sent.chunks.push(Buffer.from(event.AudioEvent!.AudioChunk!));
    return {
      TranscriptResultStream: (async function* () {
        for (const Results of results) yield { TranscriptEvent: { Transcript: { Results } } };
      })(),
    };
  });
  return sent;
}

async function* audioOf(...pieces: LiveAudio[]): AsyncGenerator<LiveAudio> {
  yield* pieces;
}

async function transcribeLive(format: LiveAudioFormat, audio: AsyncIterable<LiveAudio>, language?: string) {
  const events: TranscriptionEvent[] = [];
  for await (const event of provider.transcribeLive({ model: "amazon-transcribe-streaming", format, ...(language ? { language } : {}) }, audio, {})) events.push(event);
  return events;
}

const s16 = (values: number[]) => {
  const pcm = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => pcm.writeInt16LE(v, i * 2));
  return pcm;
};

beforeEach(() => {
  transcribeClient.reset();
});

describe("Amazon Transcribe live transcription", () => {
  it("streams s16le at the session's rate in events of at most 100 ms, dropping flush marks", async () => {
    const sent = transcribeAnswers([]);
    const first = Buffer.alloc(2_500 * 2, 1);
    const second = Buffer.alloc(800 * 2, 2);

    await transcribeLive({ encoding: "pcm_s16le", sampleRate: 8_000 }, audioOf({ type: "audio", data: first }, { type: "flush" }, { type: "audio", data: second }), "fr");

    expect(sent.input).toMatchObject({ MediaEncoding: "pcm", MediaSampleRateHertz: 8_000, LanguageCode: "fr-FR" });
    expect(sent.input).not.toHaveProperty("IdentifyLanguage");
    expect(sent.chunks.map((c) => c.length)).toEqual([1_600, 1_600, 1_600, 200, 1_600]);
    expect(Buffer.concat(sent.chunks).equals(Buffer.concat([first, second]))).toBe(true);
  });

  it("converts other encodings to s16le and identifies the language when none is named", async () => {
    const sent = transcribeAnswers([]);

    await transcribeLive({ encoding: "pcm_mulaw", sampleRate: 16_000 }, audioOf({ type: "audio", data: Buffer.from([0xff, 0x00, 0x80]) }));

    expect(sent.input).toMatchObject({ MediaSampleRateHertz: 16_000, IdentifyLanguage: true, LanguageOptions: "en-US,fr-FR,de-DE,es-US,it-IT" });
    expect(Buffer.concat(sent.chunks).equals(s16([0, -32124, 32124]))).toBe(true);
  });

  it("resamples a rate Transcribe does not take to 16 kHz", async () => {
    const sent = transcribeAnswers([]);

    await transcribeLive({ encoding: "pcm_s16le", sampleRate: 96_000 }, audioOf({ type: "audio", data: Buffer.alloc(9_600 * 2) }, { type: "audio", data: Buffer.alloc(9_600 * 2) }));

    expect(sent.input).toMatchObject({ MediaSampleRateHertz: 16_000 });
    expect(Buffer.concat(sent.chunks).length).toBe(3_200 * 2);
    expect(Math.max(...sent.chunks.map((c) => c.length))).toBeLessThanOrEqual(3_200);
  });

  it("answers final results as text deltas and segments, the language once", async () => {
    transcribeAnswers([
      [{ IsPartial: true, StartTime: 0, EndTime: 0.4, Alternatives: [{ Transcript: "Hel" }] }],
      [{ IsPartial: false, StartTime: 0, EndTime: 0.9, LanguageCode: "en-US", Alternatives: [{ Transcript: "Hello there." }] }],
      [{ IsPartial: false, StartTime: 1, EndTime: 1.8, LanguageCode: "en-US", Alternatives: [{ Transcript: " General Kenobi. " }] }],
    ]);

    const events = await transcribeLive({ encoding: "pcm_s16le", sampleRate: 16_000 }, audioOf({ type: "audio", data: Buffer.alloc(3_200) }));

    expect(events).toStrictEqual([
      { type: "language", language: "en" },
      { type: "text", text: "Hello there." },
      { type: "segment", text: "Hello there.", start: 0, end: 0.9 },
      { type: "text", text: " General Kenobi." },
      { type: "segment", text: "General Kenobi.", start: 1, end: 1.8 },
    ]);
  });

  it("maps Transcribe's failures to upstream errors", async () => {
    transcribeClient.on(StartStreamTranscriptionCommand).rejects(Object.assign(new Error("Rate exceeded"), { name: "LimitExceededException" }));

    const failure = await transcribeLive({ encoding: "pcm_s16le", sampleRate: 16_000 }, audioOf()).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ status: 429, message: "Amazon Transcribe is throttling requests (LimitExceededException); retry later" });
  });

  it("maps a failure event in the result stream", async () => {
    transcribeClient.on(StartStreamTranscriptionCommand).resolves({
      TranscriptResultStream: (async function* () {
        yield { BadRequestException: { name: "BadRequestException", message: "Your stream is too big" } } as unknown as TranscriptResultStream;
      })(),
    });

    const failure = await transcribeLive({ encoding: "pcm_s16le", sampleRate: 16_000 }, audioOf()).catch((error: unknown) => error);

    expect(failure).toMatchObject({ status: 400, message: "Amazon Transcribe refused the audio (Your stream is too big)" });
  });
});

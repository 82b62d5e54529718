/**
 * Amazon Transcribe's streaming API (StartStreamTranscription over HTTP/2) as a transcription provider.
 *
 * The audio is decoded to 16 kHz mono 16-bit PCM in the function (shared/inference/audio/pcm.ts) and sent
 * in 100 ms chunks as fast as the stream takes them. Mapping:
 * - `language` "en" → LanguageCode en-US (the table below; a full code such as "en-GB" passes through);
 *   without one, IdentifyLanguage over LANGUAGE_OPTIONS, and the identified code comes back as "en";
 * - `diarize` → ShowSpeakerLabel; a segment's speaker is its items' first `Speaker`;
 * - each final result (IsPartial false) is one segment and one text delta; partial results are skipped
 *   (they rewrite themselves, which a delta cannot express);
 * - `temperature`, `context_bias` and `timestamp_granularities: ["word"]` have no counterpart and are ignored.
 * Live sessions (transcribeLive) stream the client's samples as they come, with the same language and result mapping.
 */
import { StartStreamTranscriptionCommand, TranscribeStreamingClient, type AudioStream, type LanguageCode } from "@aws-sdk/client-transcribe-streaming";
import { toPcm16, PCM_RATE } from "../audio/pcm.js";
import { Resampler, toS16le } from "../audio/live-pcm.js";
import { UpstreamError, type CallOptions, type LiveAudio, type LiveTranscribeRequest, type TranscribeRequest, type TranscriptionEvent } from "../types.js";
import { registerProviderFactory } from "../registry.js";
import { AudioOnlyProvider } from "./audio-only.js";
import { isAbort } from "./bedrock/errors.js";

/** Two-letter languages and the Transcribe locale each stands for. */
export const TRANSCRIBE_LOCALES: Record<string, string> = {
  en: "en-US",
  fr: "fr-FR",
  de: "de-DE",
  es: "es-US",
  it: "it-IT",
  pt: "pt-BR",
  nl: "nl-NL",
  ja: "ja-JP",
  ko: "ko-KR",
  zh: "zh-CN",
  hi: "hi-IN",
  ar: "ar-SA",
  ru: "ru-RU",
};
/**
 * What language identification chooses from when the request names no language: five, the most Transcribe
 * recommends (StartStreamTranscription's LanguageOptions: "two or more …; more than five is not recommended").
 */
export const LANGUAGE_OPTIONS = ["en-US", "fr-FR", "de-DE", "es-US", "it-IT"];
/** 100 ms of 16 kHz 16-bit mono audio. */
const CHUNK_BYTES = PCM_RATE / 10 * 2;
/** The rates StartStreamTranscription takes for `pcm` (MediaSampleRateHertz). */
const MIN_RATE = 8_000;
const MAX_RATE = 48_000;

const THROTTLED = new Set(["LimitExceededException", "ThrottlingException"]);

export class AmazonTranscribeProvider extends AudioOnlyProvider {
  readonly backend = "amazon-transcribe";
  private readonly client: TranscribeStreamingClient;

  constructor(config: { region?: string } = {}) {
    super();
    this.client = new TranscribeStreamingClient(config.region ? { region: config.region } : {});
  }

  async *transcribe(request: TranscribeRequest, options: CallOptions): AsyncGenerator<TranscriptionEvent> {
    let pcm: Buffer;
    try {
      pcm = await toPcm16(request.audio);
    } catch {
      throw new UpstreamError(422, `The ${request.container} audio could not be decoded to PCM; send WAV, MP3, FLAC or Ogg (Vorbis, Opus)`);
    }
    const audioStream = async function* (): AsyncGenerator<AudioStream> {
      for (let at = 0; at < pcm.length; at += CHUNK_BYTES) yield { AudioEvent: { AudioChunk: pcm.subarray(at, at + CHUNK_BYTES) } };
    };
    yield* this.stream({ rate: PCM_RATE, language: request.language, diarize: request.diarize, audio: audioStream() }, options);
  }

  /**
   * The client's samples as they arrive, as 16-bit PCM at the session's rate (Transcribe takes 8–48 kHz; any other is
   * resampled to 16 kHz), in events of at most 100 ms. Flush marks are dropped: Transcribe has nothing like them.
   */
  async *transcribeLive(request: LiveTranscribeRequest, audio: AsyncIterable<LiveAudio>, options: CallOptions): AsyncGenerator<TranscriptionEvent> {
    const { encoding, sampleRate } = request.format;
    const rate = sampleRate >= MIN_RATE && sampleRate <= MAX_RATE ? sampleRate : PCM_RATE;
    const resampler = rate === sampleRate ? undefined : new Resampler(sampleRate, rate);
    const chunkBytes = Math.floor(rate / 10) * 2;
    const events = (pcm: Buffer): AudioStream[] => {
      const out: AudioStream[] = [];
      for (let at = 0; at < pcm.length; at += chunkBytes) out.push({ AudioEvent: { AudioChunk: pcm.subarray(at, at + chunkBytes) } });
      return out;
    };
    const audioStream = async function* (): AsyncGenerator<AudioStream> {
      for await (const piece of audio) {
        if (piece.type !== "audio") continue;
        const pcm = toS16le(piece.data, encoding);
        yield* events(resampler ? resampler.push(pcm) : pcm);
      }
      if (resampler) yield* events(resampler.end());
    };
    yield* this.stream({ rate, language: request.language, diarize: false, audio: audioStream() }, options);
  }

  /**
   * One StartStreamTranscription: language code or identification, final results only (partial results rewrite
   * themselves, which a delta cannot express) as one text delta and one segment each, the language once.
   */
  private async *stream(call: { rate: number; language?: string; diarize: boolean; audio: AsyncIterable<AudioStream> }, options: CallOptions): AsyncGenerator<TranscriptionEvent> {
    const language = call.language ? (TRANSCRIBE_LOCALES[call.language.toLowerCase()] ?? call.language) : undefined;
    let languageSent = false;
    try {
      const response = await this.client.send(
        new StartStreamTranscriptionCommand({
          MediaEncoding: "pcm",
          MediaSampleRateHertz: call.rate,
          ...(language ? { LanguageCode: language as LanguageCode } : { IdentifyLanguage: true, LanguageOptions: LANGUAGE_OPTIONS.join(",") }),
          ...(call.diarize ? { ShowSpeakerLabel: true } : {}),
          AudioStream: call.audio,
        }),
        { abortSignal: options.signal },
      );
      let first = true;
      for await (const event of response.TranscriptResultStream ?? []) {
        const failure = Object.entries(event).find(([key, value]) => key !== "TranscriptEvent" && value !== undefined);
        if (failure) throw failureNamed(String((failure[1] as { name?: string }).name ?? failure[0]), String((failure[1] as { message?: string }).message ?? ""));
        for (const result of event.TranscriptEvent?.Transcript?.Results ?? []) {
          if (result.IsPartial) continue;
          const alternative = result.Alternatives?.[0];
          const text = alternative?.Transcript?.trim() ?? "";
          if (!languageSent && (result.LanguageCode || language)) {
            languageSent = true;
            yield { type: "language", language: String(result.LanguageCode ?? language).slice(0, 2).toLowerCase() };
          }
          if (!text) continue;
          yield { type: "text", text: first ? text : ` ${text}` };
          first = false;
          const speaker = alternative?.Items?.find((item) => item.Speaker)?.Speaker;
          yield { type: "segment", text, start: result.StartTime ?? 0, end: result.EndTime ?? 0, ...(speaker ? { speakerId: `speaker_${speaker}` } : {}) };
        }
      }
    } catch (error) {
      if (error instanceof UpstreamError || isAbort(error)) throw error;
      const name = error instanceof Error ? error.name : "UnknownError";
      throw failureNamed(name, error instanceof Error ? error.message : "");
    }
  }
}

function failureNamed(name: string, detail: string): UpstreamError {
  if (name === "BadRequestException") return new UpstreamError(400, `Amazon Transcribe refused the audio (${detail || name})`);
  if (THROTTLED.has(name)) return new UpstreamError(429, `Amazon Transcribe is throttling requests (${name}); retry later`);
  if (name === "AccessDeniedException" || name === "UnrecognizedClientException") {
    return new UpstreamError(502, `Amazon Transcribe refused the request (${name}); check IAM`);
  }
  return new UpstreamError(502, `Amazon Transcribe failed (${name}${detail ? `: ${detail}` : ""})`);
}

registerProviderFactory("amazon-transcribe", (config) => new AmazonTranscribeProvider({ region: "region" in config ? config.region : undefined }));

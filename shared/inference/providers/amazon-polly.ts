/**
 * Amazon Polly (SynthesizeSpeech, neural engine) as a speech provider.
 *
 * Polly cannot clone a voice from a sample, so a named voice chooses one of Polly's own voices by the
 * voice's first language and its gender (POLLY_VOICES; English and female when it says neither).
 * Formats: `mp3` → Polly's mp3 (24 kHz); `pcm` → 16 kHz 16-bit mono little-endian; `wav` → that PCM in a
 * WAV header written here. Polly makes neither FLAC nor Opus: those are a 400 naming what it can make.
 */
import { PollyClient, SynthesizeSpeechCommand, type VoiceId } from "@aws-sdk/client-polly";
import { wavOf } from "../audio/wav.js";
import { UpstreamError, type CallOptions, type SpeakRequest, type SpeechAudio } from "../types.js";
import { AudioOnlyProvider } from "./audio-only.js";
import { isAbort } from "./bedrock/errors.js";

/** Neural Polly voices by language, female then male. */
export const POLLY_VOICES: Record<string, { female: string; male: string }> = {
  en: { female: "Joanna", male: "Matthew" },
  fr: { female: "Lea", male: "Remi" },
  de: { female: "Vicki", male: "Daniel" },
  es: { female: "Lucia", male: "Sergio" },
  it: { female: "Bianca", male: "Adriano" },
  pt: { female: "Camila", male: "Thiago" },
  nl: { female: "Laura", male: "Laura" },
  ja: { female: "Kazuha", male: "Takumi" },
  ko: { female: "Seoyeon", male: "Seoyeon" },
  hi: { female: "Kajal", male: "Kajal" },
};
const PCM_RATE = 16_000;

export function pollyVoiceFor(voice: SpeakRequest["voice"]): string {
  const language = (voice?.languages[0] ?? "en").slice(0, 2).toLowerCase();
  const voices = POLLY_VOICES[language] ?? POLLY_VOICES.en!;
  return /^(m|male|man|masculine)$/i.test(voice?.gender ?? "") ? voices.male : voices.female;
}

export class AmazonPollyProvider extends AudioOnlyProvider {
  readonly backend = "amazon-polly";
  private readonly client: PollyClient;

  constructor(config: { region?: string } = {}) {
    super();
    this.client = new PollyClient(config.region ? { region: config.region } : {});
  }

  async speak(request: SpeakRequest, options: CallOptions): Promise<SpeechAudio> {
    if (request.format === "flac" || request.format === "opus") {
      throw new UpstreamError(400, `Amazon Polly cannot make ${request.format} audio; ask for mp3, wav or pcm`);
    }
    const pcm = request.format !== "mp3";
    let bytes: Uint8Array;
    try {
      const out = await this.client.send(
        new SynthesizeSpeechCommand({
          Engine: "neural",
          Text: request.input,
          TextType: "text",
          VoiceId: pollyVoiceFor(request.voice) as VoiceId,
          OutputFormat: pcm ? "pcm" : "mp3",
          ...(pcm ? { SampleRate: String(PCM_RATE) } : {}),
        }),
        { abortSignal: options.signal },
      );
      if (!out.AudioStream) throw new UpstreamError(502, "Amazon Polly answered no audio");
      bytes = await out.AudioStream.transformToByteArray();
    } catch (error) {
      if (error instanceof UpstreamError || isAbort(error)) throw error;
      throw failureNamed(error instanceof Error ? error.name : "UnknownError", error instanceof Error ? error.message : "");
    }
    const audio = Buffer.from(bytes);
    if (request.format === "wav") return { audio: wavOf(audio, PCM_RATE), format: "wav" };
    return { audio, format: pcm ? "pcm" : "mp3" };
  }
}

function failureNamed(name: string, detail: string): UpstreamError {
  if (["TextLengthExceededException", "InvalidSsmlException", "InvalidSampleRateException", "EngineNotSupportedException", "LanguageNotSupportedException"].includes(name)) {
    return new UpstreamError(400, `Amazon Polly refused the request (${name}${detail ? `: ${detail}` : ""})`);
  }
  if (name === "ThrottlingException") return new UpstreamError(429, "Amazon Polly is throttling requests; retry later");
  if (name === "AccessDeniedException" || name === "UnrecognizedClientException") return new UpstreamError(502, `Amazon Polly refused the request (${name}); check IAM`);
  return new UpstreamError(502, `Amazon Polly failed (${name}${detail ? `: ${detail}` : ""})`);
}

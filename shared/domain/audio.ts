/**
 * Transcription and speech rules (docs/audio.md): which audio we take, how long and how large, and the
 * answers to a request that breaks them.
 */
import { PayloadTooLarge, Unprocessable } from "./errors.js";
import type { SampleFormat } from "./voices.js";

/** Encoded audio one transcription may read, from any source (a part, an uploaded file, a URL). */
export const MAX_TRANSCRIPTION_BYTES = 25 * 1024 * 1024;
/**
 * The longest audio one transcription takes: 10 minutes. Amazon Transcribe's streaming API hears audio at
 * about real time, and a streamed Lambda answer ends at 15 minutes; 10 leaves room for decoding and the rest.
 */
export const MAX_TRANSCRIPTION_SECONDS = 600;

/** The containers every transcription backend takes (what the PCM decoders read), as music-metadata names them. */
export const TRANSCRIBABLE_CONTAINERS: Record<string, string> = { WAVE: "WAV", MPEG: "MP3", FLAC: "FLAC", Ogg: "Ogg (Vorbis, Opus)" };
const ACCEPTED = Object.values(TRANSCRIBABLE_CONTAINERS).join(", ");

export type AudioSource = "file" | "file_id" | "file_url";

export const sourceIssue = (field: AudioSource | "body", msg: string) => new Unprocessable([{ loc: field === "body" ? ["body"] : ["body", field], msg, type: "value_error" }]);

/** Exactly one of `file`, `file_id`, `file_url`. */
export function audioSourceOf(given: Record<AudioSource, boolean>): AudioSource {
  const named = (Object.keys(given) as AudioSource[]).filter((key) => given[key]);
  if (named.length !== 1) {
    throw sourceIssue("body", named.length ? `Give one of file, file_id or file_url, not ${named.join(" and ")}` : "Give the audio as file, file_id or file_url");
  }
  return named[0]!;
}

export const audioTooLarge = (source: AudioSource, bytes?: number) =>
  new PayloadTooLarge(
    `The audio${source === "file" ? "" : ` (${source})`} is ${bytes === undefined ? "" : `${bytes} bytes, `}more than the ${MAX_TRANSCRIPTION_BYTES} bytes (25 MiB) a transcription may read`,
    "audio_too_large",
  );

export interface AudioFacts {
  /** Our name for the format (WAV, MP3, FLAC, Ogg (Vorbis, Opus)). */
  format: string;
  /** music-metadata's container name, for providers. */
  container: string;
  durationSeconds: number;
}

/**
 * The audio must be one of the accepted formats with a known, non-zero duration of at most
 * MAX_TRANSCRIPTION_SECONDS (413 naming the limit); anything else is a 422 on the source field.
 */
export function checkTranscribable(source: AudioSource, format: SampleFormat | undefined): AudioFacts {
  if (!format?.container) throw sourceIssue(source, `The audio is not in a format we can read; send ${ACCEPTED}`);
  const known = Object.entries(TRANSCRIBABLE_CONTAINERS).find(([container]) => container.toLowerCase() === format.container!.toLowerCase());
  if (!known) {
    throw sourceIssue(source, `The audio is ${format.container}${format.codec ? ` (${format.codec})` : ""}; transcription takes ${ACCEPTED}`);
  }
  const seconds = format.duration;
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) throw sourceIssue(source, "The audio holds no sound (its duration is unknown or zero)");
  if (seconds > MAX_TRANSCRIPTION_SECONDS) {
    throw new PayloadTooLarge(
      `The audio lasts ${seconds.toFixed(1)} s, longer than the ${MAX_TRANSCRIPTION_SECONDS} s (10 minutes) a transcription may take`,
      "audio_too_long",
    );
  }
  return { format: known[1], container: known[0], durationSeconds: seconds };
}

/** `usage.prompt_audio_seconds` is an integer in the SDK: the measured duration, rounded (at least 1 for any sound). */
export const billedSeconds = (seconds: number) => Math.max(1, Math.round(seconds));

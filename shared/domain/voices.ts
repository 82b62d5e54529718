/**
 * Voices (docs/audio.md): the record of a custom voice, the rules its sample must meet, and its wire shape.
 */
import type { VoiceOut } from "../schemas/voices.js";
import { Forbidden, PayloadTooLarge, Unprocessable } from "./errors.js";
import { PRESET_VOICES, type PresetVoice } from "./voices-presets.js";

/** A workspace's custom voice. Its sample is one WAV object of the files bucket (`sampleKey`). */
export interface VoiceRecord {
  workspace: string;
  id: string;
  name: string;
  slug: string | null;
  languages: string[];
  gender: string | null;
  age: number | null;
  tags: string[] | null;
  color: string | null;
  description: string | null;
  retentionNotice: number;
  createdAt: string;
  userId: string;
  sampleKey: string;
  sampleBytes: number;
  /** Measured from the sample's header when it was created. */
  durationSeconds: number;
  sampleFilename: string | null;
}

/**
 * The decoded sample's size limit: its base64 (a third more) and the rest of the JSON must fit the 6 MB a
 * Lambda invocation carries, with room to spare.
 */
export const MAX_SAMPLE_BYTES = 3 * 1024 * 1024;
/** The longest sample a voice keeps: a voice is cloned from seconds of speech, not from a recording session. */
export const MAX_SAMPLE_SECONDS = 60;

/**
 * The object tag every voice sample carries: the bucket's voices lifecycle rule selects by it (a lifecycle
 * filter cannot match `workspaces/<any>/voices/`), so a deleted voice's sample does not linger as a
 * noncurrent version for the 30 days files do.
 */
export const VOICE_SAMPLE_TAG = { key: "data", value: "voice-sample" } as const;
export const VOICE_SAMPLE_NONCURRENT_DAYS = 1;

/** Where a voice's sample lives in the files bucket, under its workspace's prefix. */
export const sampleKeyFor = (workspace: string, voiceId: string): string => `workspaces/${workspace}/voices/${voiceId}.wav`;

const sampleIssue = (msg: string) => new Unprocessable([{ loc: ["body", "sample_audio"], msg, type: "value_error" }]);

export const sampleTooLarge = (bytes: number) =>
  new PayloadTooLarge(`The sample is ${bytes} bytes, more than the ${MAX_SAMPLE_BYTES} bytes a voice sample may have`, "sample_too_large");

/**
 * The sample's bytes, from base64 (standard or URL-safe alphabet, padding optional, whitespace ignored; a
 * `data:` URL prefix is allowed). Too long is a 413 before anything is decoded; not base64 is a 422.
 */
export function decodeSample(text: string): Buffer {
  const payload = text.replace(/^data:[^,]{0,200};base64,/i, "").replace(/\s+/g, "");
  const decodedBytes = Math.floor((payload.replace(/=+$/, "").length * 3) / 4);
  if (decodedBytes > MAX_SAMPLE_BYTES) throw sampleTooLarge(decodedBytes);
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(payload) || payload.length % 4 === 1) throw sampleIssue("The sample is not valid base64");
  const bytes = Buffer.from(payload, "base64");
  if (bytes.length === 0) throw sampleIssue("The sample is empty");
  return bytes;
}

/** What the audio metadata library read from a sample's bytes. */
export interface SampleFormat {
  container?: string;
  codec?: string;
  duration?: number;
}

/**
 * A sample must be a WAV file whose length its header states, at most MAX_SAMPLE_SECONDS long. It is kept
 * as uploaded and served as `audio/wav`, so other formats are refused rather than converted.
 */
export function checkSampleFormat(format: SampleFormat | undefined): number {
  if (!format?.container) throw sampleIssue("The sample is not audio in a format we can read; send a WAV file");
  if (format.container.toUpperCase() !== "WAVE") {
    throw sampleIssue(`The sample is ${format.container}${format.codec ? ` (${format.codec})` : ""} audio; voices take WAV samples only`);
  }
  const seconds = format.duration;
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) throw sampleIssue("The WAV sample holds no audio (its duration is unknown or zero)");
  if (seconds > MAX_SAMPLE_SECONDS) {
    throw new PayloadTooLarge(`The sample lasts ${seconds.toFixed(1)} s, longer than the ${MAX_SAMPLE_SECONDS} s a voice sample may last`, "sample_too_long");
  }
  return seconds;
}

/** Offset paging as the OpenAPI answers it: the page an offset falls in, and how many pages of `limit` the total makes. */
export function pageOf(total: number, limit: number, offset: number) {
  return { total, page: Math.floor(offset / limit), page_size: limit, total_pages: Math.ceil(total / limit) };
}

/** The preset voice with this id (presets are in every workspace), or undefined. */
export const presetVoice = (id: string): PresetVoice | undefined => PRESET_VOICES.find((voice) => voice.id === id.toLowerCase());

export const presetVoicesOut = (): VoiceOut[] => PRESET_VOICES.map(toPresetOut);

/** Presets are the same in every workspace and nobody's to change: PATCH and DELETE are refused. */
export const presetReadOnly = () => new Forbidden("Preset voices are read-only; create a custom voice to change one", "preset_voice_read_only");

export const presetSample = (voice: PresetVoice): Buffer => Buffer.from(voice.wav, "base64");

export function toPresetOut(voice: PresetVoice): VoiceOut {
  return {
    id: voice.id,
    name: voice.name,
    type: "preset",
    slug: voice.slug,
    languages: [],
    gender: null,
    age: null,
    tags: [...voice.tags],
    color: voice.color,
    description: voice.description,
    retention_notice: 30,
    created_at: voice.createdAt,
    user_id: null,
    trimmed_seconds: null,
  };
}

export function toVoiceOut(record: VoiceRecord): VoiceOut {
  return {
    id: record.id,
    name: record.name,
    type: "custom",
    slug: record.slug,
    languages: record.languages,
    gender: record.gender,
    age: record.age,
    tags: record.tags,
    color: record.color,
    description: record.description,
    retention_notice: record.retentionNotice,
    created_at: record.createdAt,
    user_id: record.userId,
    // We keep the whole sample; nothing is trimmed.
    trimmed_seconds: null,
  };
}

/**
 * Transcription and speech (docs/audio.md): the multipart form of POST /v1/audio/transcriptions as the
 * SDK sends it (text fields are strings: "true"/"false", numbers as text, lists as repeated fields) and
 * the JSON body of POST /v1/audio/speech.
 */
import * as z from "zod";

const formBoolean = z
  .union([z.boolean(), z.enum(["true", "false", "True", "False", "1", "0"])])
  .transform((value) => value === true || value === "true" || value === "True" || value === "1");

/** A repeated form field arrives as an array, a single one as a string. */
const formList = <T extends z.ZodType<string>>(item: T) =>
  z
    .union([item, z.array(item)])
    .transform((value) => (Array.isArray(value) ? value : [value]) as z.output<T>[])
    .pipe(z.array(z.any()).max(100, "At most 100 entries"));

/** A two-letter language code, optionally with a region (`en`, `en-US`). */
export const LanguageCode = z.string().regex(/^[A-Za-z]{2}([-_][A-Za-z0-9]{2,8})?$/, "Expected a language code such as 'en' or 'en-US'");

export const TranscriptionForm = z.object({
  model: z.string().min(1).max(256),
  file: z
    .object(
      { filename: z.string().max(512), mimetype: z.string().optional(), content: z.instanceof(Buffer), truncated: z.boolean().optional() },
      { message: "Expected a file part" },
    )
    .optional(),
  file_url: z.string().min(1).max(2083).nullish(),
  file_id: z.string().min(1).max(256).nullish(),
  language: LanguageCode.nullish(),
  temperature: z.coerce.number().min(0).max(2).nullish(),
  stream: formBoolean.default(false),
  diarize: formBoolean.default(false),
  context_bias: formList(z.string().max(1000)).default([]),
  timestamp_granularities: formList(z.enum(["segment", "word"])).default([]),
});
export type TranscriptionForm = z.infer<typeof TranscriptionForm>;

export const SpeechFormat = z.enum(["pcm", "wav", "mp3", "flac", "opus"]);

/** Polly's limit for one request, and a sentence's worth of seconds for the others: the one bound for every backend. */
export const MAX_SPEECH_INPUT_CHARACTERS = 3000;

export const SpeechRequest = z.object({
  model: z.string().min(1).max(256).nullish(),
  input: z.string().min(1).max(MAX_SPEECH_INPUT_CHARACTERS),
  voice_id: z.string().min(1).max(256).nullish(),
  ref_audio: z.string().nullish(),
  response_format: SpeechFormat.default("mp3"),
  stream: z.boolean().default(false),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  prompt_cache_key: z.string().max(256).nullish(),
});
export type SpeechRequest = z.infer<typeof SpeechRequest>;

export const UsageInfo = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  prompt_audio_seconds: z.number().int().nullable(),
});

export interface TranscriptionSegmentOut {
  type: "transcription_segment";
  text: string;
  start: number;
  end: number;
  speaker_id?: string | null;
}

export interface TranscriptionOut {
  model: string;
  text: string;
  language: string | null;
  segments: TranscriptionSegmentOut[];
  usage: z.infer<typeof UsageInfo>;
}

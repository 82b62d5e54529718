/**
 * Realtime transcription (docs/audio.md "Realtime"): the body and answer of `POST /v1/client/sessions`, the socket's
 * query, and the messages a client sends on the socket, as the official SDK's RealtimeTranscription writes them.
 */
import * as z from "zod";
import { LanguageCode } from "./audio.js";

/** The sample encodings of a realtime session (the SDK's AudioEncoding): headerless mono samples. */
export const LIVE_ENCODINGS = ["pcm_s16le", "pcm_s32le", "pcm_f16le", "pcm_f32le", "pcm_mulaw", "pcm_alaw"] as const;
export type LiveEncoding = (typeof LIVE_ENCODINGS)[number];

/** The lifetime of a client secret when the request names none: long enough to reach a browser and connect. */
export const DEFAULT_CLIENT_SESSION_SECONDS = 60;
export const MAX_CLIENT_SESSION_SECONDS = 3600;

export const CreateClientSessionBody = z.object({
  purpose: z.literal("realtime"),
  model: z.string().min(1).max(256),
  ttl_seconds: z
    .number()
    .int()
    .min(1)
    .max(MAX_CLIENT_SESSION_SECONDS)
    .nullish()
    .transform((value) => value ?? DEFAULT_CLIENT_SESSION_SECONDS)
    .describe(`How long the secret may open sockets (seconds, 1 to ${MAX_CLIENT_SESSION_SECONDS}); ${DEFAULT_CLIENT_SESSION_SECONDS} when unset`),
});
export type CreateClientSessionBody = z.infer<typeof CreateClientSessionBody>;

export const ClientSessionOut = z.object({
  object: z.literal("client.session"),
  purpose: z.literal("realtime"),
  expires_at: z.string(),
  client_secret: z.object({ value: z.string(), expires_at: z.string() }),
  /** Extensions: the model the secret is for, and the session's id as logs and the audit log name it. */
  model: z.string(),
  id: z.string(),
});
export type ClientSessionOut = z.infer<typeof ClientSessionOut>;

/** The socket's query: `model` is required (the SDK always sends it); `language` is ours, optional. */
export const RealtimeQuery = z.object({
  model: z.string().min(1).max(256),
  language: LanguageCode.optional(),
});

/** Sample rates a session may declare: telephony's 8 kHz up to studio 48 kHz, what Transcribe streaming takes. */
export const MIN_SAMPLE_RATE = 8000;
export const MAX_SAMPLE_RATE = 48_000;

export const AudioFormatIn = z.object({
  encoding: z.enum(LIVE_ENCODINGS),
  sample_rate: z.number().int().min(MIN_SAMPLE_RATE).max(MAX_SAMPLE_RATE),
});

/** One base64 frame: at most 1 MiB of audio (over 30 s of 16 kHz 16-bit audio), so one message cannot hog the task. */
export const MAX_FRAME_AUDIO_BYTES = 1024 * 1024;

export const RealtimeClientMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("session.update"), session: z.object({ audio_format: AudioFormatIn }) }),
  z.object({ type: z.literal("input_audio.append"), audio: z.base64().max(Math.ceil(MAX_FRAME_AUDIO_BYTES / 3) * 4, "At most 1 MiB of audio a message") }),
  z.object({ type: z.literal("input_audio.flush") }),
  z.object({ type: z.literal("input_audio.end") }),
]);
export type RealtimeClientMessage = z.infer<typeof RealtimeClientMessage>;

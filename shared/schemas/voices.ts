/**
 * Voices (`/v1/audio/voices`): field names, defaults and bounds are the OpenAPI's (VoiceCreateRequest,
 * VoiceUpdateRequest, VoiceResponse, VoiceListResponse), plus the spec's `type`. Bodies accept unknown
 * fields and drop them, as the OpenAPI does not close these objects. docs/audio.md says what is kept.
 */
import * as z from "zod";
import { Uuid } from "./common.js";

/** Short texts kept with a voice: bounded so a record always fits one DynamoDB item. */
const text = (max: number) => z.string().max(max);
const Strings = z.array(text(100)).max(50);

export const VoiceType = z.enum(["custom", "preset"]);
export type VoiceType = z.infer<typeof VoiceType>;

const metadata = {
  name: text(200).min(1),
  slug: text(200).nullish(),
  languages: Strings.default([]),
  gender: text(100).nullish(),
  age: z.number().int().min(0).max(1000).nullish(),
  tags: Strings.nullish(),
  color: text(100).nullish(),
  description: text(500).nullish(),
  retention_notice: z.number().int().min(0).max(36_500).default(30),
};

/** POST /v1/audio/voices: the metadata and the sample, base64 (size, format and duration: docs/audio.md). */
export const CreateVoiceBody = z.object({
  ...metadata,
  sample_audio: z.string().min(1),
  sample_filename: text(255).nullish(),
});
export type CreateVoiceBody = z.infer<typeof CreateVoiceBody>;

/** PATCH /v1/audio/voices/{voice_id}: the fields given change; `null` clears one (a `null` name keeps it). */
export const UpdateVoiceBody = z.object({
  name: metadata.name.nullish(),
  languages: Strings.nullish(),
  gender: text(100).nullish(),
  age: metadata.age,
  tags: Strings.nullish(),
  description: text(500).nullish(),
});
export type UpdateVoiceBody = z.infer<typeof UpdateVoiceBody>;

export const VoiceListQuery = z.object({
  limit: z.coerce.number<string>().int().min(1).max(100).default(10),
  offset: z.coerce.number<string>().int().min(0).max(1_000_000).default(0),
  type: z.enum(["all", "custom", "preset"]).default("all"),
});
export type VoiceListQuery = z.infer<typeof VoiceListQuery>;

/** GET names a voice by any string (the OpenAPI's); ids are UUIDs, so anything else is simply not found. */
export const VoiceLookupParams = z.object({ voice_id: z.string().min(1).max(200) });
/** DELETE and PATCH take a UUID (the OpenAPI's). */
export const VoiceParams = z.object({ voice_id: Uuid });

export const VoiceOut = z.object({
  id: z.string(),
  name: z.string(),
  type: VoiceType,
  slug: z.string().nullable(),
  languages: z.array(z.string()),
  gender: z.string().nullable(),
  age: z.number().int().nullable(),
  tags: z.array(z.string()).nullable(),
  color: z.string().nullable(),
  description: z.string().nullable(),
  retention_notice: z.number().int(),
  created_at: z.string(),
  user_id: z.string().nullable(),
  trimmed_seconds: z.number().nullable(),
});
export type VoiceOut = z.infer<typeof VoiceOut>;

export const VoiceListOut = z.object({
  items: z.array(VoiceOut),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
  total_pages: z.number().int(),
});
export type VoiceListOut = z.infer<typeof VoiceListOut>;

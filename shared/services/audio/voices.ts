/**
 * Voices (`/v1/audio/voices`, docs/audio.md): a workspace's custom voices, each a record in the audio
 * table and its WAV sample in the files bucket under the workspace's prefix.
 */
import { randomUUID } from "node:crypto";
import { parseBuffer } from "music-metadata";
import { voiceBlobs } from "../../blobs/voices.js";
import type { Caller } from "../../domain/caller.js";
import { NotFound } from "../../domain/errors.js";
import {
  checkSampleFormat,
  decodeSample,
  pageOf,
  presetReadOnly,
  presetSample,
  presetVoice,
  presetVoicesOut,
  sampleKeyFor,
  toPresetOut,
  toVoiceOut,
  type SampleFormat,
  type VoiceRecord,
} from "../../domain/voices.js";
import type { CreateVoiceBody, UpdateVoiceBody, VoiceListOut, VoiceListQuery, VoiceOut } from "../../schemas/voices.js";
import { voiceStore, type VoiceChanges } from "../../store/voices.js";
import type { VoiceReference } from "../../inference/types.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What music-metadata reads of the bytes (by their content, not a declared type); undefined when it knows no such format. */
async function formatOf(bytes: Buffer): Promise<SampleFormat | undefined> {
  try {
    return (await parseBuffer(bytes, undefined, { duration: true, skipCovers: true })).format;
  } catch {
    return undefined;
  }
}

async function found(caller: Caller, id: string): Promise<VoiceRecord> {
  const record = UUID.test(id) ? await voiceStore.get(caller.workspace, id.toLowerCase()) : undefined;
  if (!record) throw new NotFound("voice", id);
  return record;
}

/** Presets first (type all or preset), then the workspace's custom voices oldest first; offset and limit page through both. */
export async function listVoices(caller: Caller, query: VoiceListQuery): Promise<VoiceListOut> {
  const { limit, offset } = query;
  const presets = query.type === "custom" ? [] : presetVoicesOut();
  const fromPresets = presets.slice(offset, offset + limit);
  if (query.type === "preset") return { items: fromPresets, ...pageOf(presets.length, limit, offset) };
  const [customTotal, records] = await Promise.all([
    voiceStore.count(caller.workspace),
    voiceStore.page(caller.workspace, Math.max(0, offset - presets.length), limit - fromPresets.length),
  ]);
  return { items: [...fromPresets, ...records.map(toVoiceOut)], ...pageOf(presets.length + customTotal, limit, offset) };
}

/** The sample is checked (base64, WAV, duration) before anything is stored; the object goes first, then the record. */
export async function createVoice(caller: Caller, body: CreateVoiceBody): Promise<VoiceOut> {
  const wav = decodeSample(body.sample_audio);
  const durationSeconds = checkSampleFormat(await formatOf(wav));
  const id = randomUUID();
  const record: VoiceRecord = {
    workspace: caller.workspace,
    id,
    name: body.name,
    slug: body.slug ?? null,
    languages: body.languages,
    gender: body.gender ?? null,
    age: body.age ?? null,
    tags: body.tags ?? null,
    color: body.color ?? null,
    description: body.description ?? null,
    retentionNotice: body.retention_notice,
    createdAt: new Date().toISOString(),
    userId: caller.principal,
    sampleKey: sampleKeyFor(caller.workspace, id),
    sampleBytes: wav.length,
    durationSeconds,
    sampleFilename: body.sample_filename ?? null,
  };
  await voiceBlobs.put(record.sampleKey, wav);
  let created: boolean;
  try {
    created = await voiceStore.create(record);
  } catch (error) {
    await voiceBlobs.remove(record.sampleKey);
    throw error;
  }
  if (!created) {
    await voiceBlobs.remove(record.sampleKey);
    throw new Error(`Voice id ${id} exists already`);
  }
  return toVoiceOut(record);
}

export async function getVoice(caller: Caller, id: string): Promise<VoiceOut> {
  const preset = presetVoice(id);
  return preset ? toPresetOut(preset) : toVoiceOut(await found(caller, id));
}

/** Fields given change; `null` clears one (`languages` to []), except `name`, which a voice always has. */
export async function updateVoice(caller: Caller, id: string, body: UpdateVoiceBody): Promise<VoiceOut> {
  if (presetVoice(id)) throw presetReadOnly();
  const changes: VoiceChanges = {
    name: body.name ?? undefined,
    languages: body.languages === null ? [] : body.languages,
    gender: body.gender,
    age: body.age,
    tags: body.tags,
    description: body.description,
  };
  const given = Object.values(changes).some((value) => value !== undefined);
  const record = given ? await voiceStore.update(caller.workspace, id.toLowerCase(), changes) : await voiceStore.get(caller.workspace, id.toLowerCase());
  if (!record) throw new NotFound("voice", id);
  return toVoiceOut(record);
}

/** The record goes first, so a failure never leaves a voice whose sample is gone; the answer is the voice as it was. */
export async function deleteVoice(caller: Caller, id: string): Promise<VoiceOut> {
  if (presetVoice(id)) throw presetReadOnly();
  const record = await voiceStore.remove(caller.workspace, id.toLowerCase());
  if (!record) throw new NotFound("voice", id);
  await voiceBlobs.remove(record.sampleKey);
  return toVoiceOut(record);
}

/** A voice a speech request names, with its sample on demand (a preset's from the bundle, a custom one's from S3). */
export async function voiceForSpeech(caller: Caller, id: string): Promise<VoiceReference> {
  const preset = presetVoice(id);
  if (preset) {
    const out = toPresetOut(preset);
    return { id: preset.id, name: out.name, slug: out.slug ?? null, languages: out.languages ?? [], gender: out.gender ?? null, sample: async () => presetSample(preset) };
  }
  const record = await found(caller, id);
  return { id: record.id, name: record.name, slug: record.slug, languages: record.languages, gender: record.gender, sample: () => voiceBlobs.bytes(record.sampleKey) };
}

/**
 * Where the sample is: a custom voice's as a short-lived URL that serves the bytes as stored, as
 * `audio/wav`; a preset's as its bytes, shipped with the function.
 */
export async function voiceSample(caller: Caller, id: string): Promise<{ url: string } | { wav: Buffer }> {
  const preset = presetVoice(id);
  if (preset) return { wav: presetSample(preset) };
  return { url: await voiceBlobs.sampleUrl((await found(caller, id)).sampleKey) };
}

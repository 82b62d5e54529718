import { randomUUID } from "node:crypto";
import type { Caller } from "../../shared/domain/caller.js";
import { sampleKeyFor, type VoiceRecord } from "../../shared/domain/voices.js";

/** A custom voice of `caller`'s workspace with a one-second sample. */
export function aVoiceRecord(caller: Pick<Caller, "workspace" | "principal">, overrides: Partial<VoiceRecord> = {}): VoiceRecord {
  const id = overrides.id ?? randomUUID();
  return {
    workspace: caller.workspace,
    id,
    name: "narrator",
    slug: null,
    languages: [],
    gender: null,
    age: null,
    tags: null,
    color: null,
    description: null,
    retentionNotice: 30,
    createdAt: "2025-01-01T00:00:00.000Z",
    userId: caller.principal,
    sampleKey: sampleKeyFor(caller.workspace, id),
    sampleBytes: 16_044,
    durationSeconds: 1,
    sampleFilename: null,
    ...overrides,
  };
}

/** A voice as the audio table holds it: keyed `VOICE#<id>`, ordered by `createdKey`. */
export const aVoiceItem = (record: VoiceRecord): Record<string, unknown> => ({
  ...record,
  sk: `VOICE#${record.id}`,
  createdKey: `VOICE#${record.createdAt}#${record.id}`,
});

import { readFileSync } from "node:fs";
import { parseBuffer } from "music-metadata";
import { describe, expect, it } from "vitest";
import { presetVoiceModule } from "../../../scripts/preset-voice-module.js";
import { checkSampleFormat } from "../../../shared/domain/voices.js";
import { PRESET_VOICES } from "../../../shared/domain/voices-presets.js";

describe("the preset voices", () => {
  it("are the module scripts/preset-voices.ts writes (run it after changing the presets)", () => {
    expect(readFileSync(new URL("../../../shared/domain/voices-presets.ts", import.meta.url), "utf8")).toBe(presetVoiceModule());
  });

  it("have distinct UUIDs and slugs", () => {
    expect(new Set(PRESET_VOICES.map((v) => v.id)).size).toBe(PRESET_VOICES.length);
    expect(new Set(PRESET_VOICES.map((v) => v.slug)).size).toBe(PRESET_VOICES.length);
    for (const v of PRESET_VOICES) expect(v.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("have samples a custom voice would be accepted with: half-second PCM WAVs", async () => {
    for (const v of PRESET_VOICES) {
      const format = (await parseBuffer(Buffer.from(v.wav, "base64"), undefined, { duration: true })).format;
      expect(checkSampleFormat(format), v.slug).toBe(0.5);
      expect(format).toMatchObject({ container: "WAVE", codec: "PCM", sampleRate: 8000, numberOfChannels: 1, bitsPerSample: 16 });
    }
  });
});

import { writeFileSync } from "node:fs";
import { presetVoiceModule } from "./preset-voice-module.js";

/** Writes shared/domain/voices-presets.ts: the preset voices and their synthetic WAV samples (docs/audio.md). */
writeFileSync(new URL("../shared/domain/voices-presets.ts", import.meta.url), presetVoiceModule());

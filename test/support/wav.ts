/** Real audio for the voice tests: a PCM WAV file (RIFF header and samples) made in memory. */

export interface WavOptions {
  seconds?: number;
  sampleRate?: number;
  /** 8 (unsigned) or 16 (signed little-endian). */
  bits?: 8 | 16;
  /** Tone frequency in Hz. */
  frequency?: number;
}

/** A mono PCM WAV of a sine tone: `seconds` long at `sampleRate`, 44-byte header and then the samples. */
export function aWav({ seconds = 1, sampleRate = 8000, bits = 16, frequency = 440 }: WavOptions = {}): Buffer {
  const count = Math.round(seconds * sampleRate);
  const width = bits / 8;
  const wav = Buffer.alloc(44 + count * width);
  wav.write("RIFF", 0, "ascii");
  wav.writeUInt32LE(36 + count * width, 4);
  wav.write("WAVE", 8, "ascii");
  wav.write("fmt ", 12, "ascii");
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(sampleRate, 24);
  wav.writeUInt32LE(sampleRate * width, 28);
  wav.writeUInt16LE(width, 32);
  wav.writeUInt16LE(bits, 34);
  wav.write("data", 36, "ascii");
  wav.writeUInt32LE(count * width, 40);
  for (let i = 0; i < count; i += 1) {
    const value = Math.sin((2 * Math.PI * frequency * i) / sampleRate);
    if (bits === 8) wav.writeUInt8(Math.round(128 + 100 * value), 44 + i);
    else wav.writeInt16LE(Math.round(12_000 * value), 44 + i * 2);
  }
  return wav;
}

/** A body for POST /v1/audio/voices: a name and a sample (a one-second WAV unless given). */
export const aVoiceBody = (name = "narrator", overrides: Record<string, unknown> = {}) => ({
  name,
  sample_audio: aWav().toString("base64"),
  ...overrides,
});

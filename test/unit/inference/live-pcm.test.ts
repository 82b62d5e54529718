import { describe, expect, it } from "vitest";
import { Resampler, bytesPerSample, durationSeconds, toS16le } from "../../../shared/inference/audio/live-pcm.js";

const samples = (pcm: Buffer) => Array.from({ length: pcm.length / 2 }, (_, i) => pcm.readInt16LE(i * 2));
const s16 = (values: number[]) => {
  const pcm = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => pcm.writeInt16LE(v, i * 2));
  return pcm;
};

describe("sample sizes and durations", () => {
  it("knows each encoding's bytes per sample", () => {
    expect([bytesPerSample("pcm_s16le"), bytesPerSample("pcm_s32le"), bytesPerSample("pcm_f16le"), bytesPerSample("pcm_f32le")]).toEqual([2, 4, 2, 4]);
    expect([bytesPerSample("pcm_mulaw"), bytesPerSample("pcm_alaw")]).toEqual([1, 1]);
  });

  it("measures seconds from bytes and format", () => {
    expect(durationSeconds(32_000, { encoding: "pcm_s16le", sampleRate: 16_000 })).toBe(1);
    expect(durationSeconds(4_000, { encoding: "pcm_mulaw", sampleRate: 8_000 })).toBe(0.5);
    expect(durationSeconds(96_000, { encoding: "pcm_f32le", sampleRate: 48_000 })).toBe(0.5);
  });
});

describe("toS16le", () => {
  it("returns s16le untouched", () => {
    const pcm = s16([1, -2, 32767]);
    expect(toS16le(pcm, "pcm_s16le")).toBe(pcm);
  });

  it("keeps the top 16 bits of s32le", () => {
    const pcm = Buffer.alloc(12);
    pcm.writeInt32LE(0x7fffffff, 0);
    pcm.writeInt32LE(-0x80000000, 4);
    pcm.writeInt32LE(0x00010000, 8);
    expect(samples(toS16le(pcm, "pcm_s32le"))).toEqual([32767, -32768, 1]);
  });

  it("scales and clamps f32le", () => {
    const pcm = Buffer.alloc(20);
    [1, -1, 0.5, 2, 0].forEach((v, i) => pcm.writeFloatLE(v, i * 4));
    expect(samples(toS16le(pcm, "pcm_f32le"))).toEqual([32767, -32767, 16384, 32767, 0]);
  });

  it("reads half-precision f16le", () => {
    // 1.0, -1.0, 0.5, +inf (clamped), a subnormal (≈ 0)
    const pcm = Buffer.alloc(10);
    [0x3c00, 0xbc00, 0x3800, 0x7c00, 0x0001].forEach((bits, i) => pcm.writeUInt16LE(bits, i * 2));
    expect(samples(toS16le(pcm, "pcm_f16le"))).toEqual([32767, -32767, 16384, 32767, 0]);
  });

  it("decodes G.711 µ-law", () => {
    expect(samples(toS16le(Buffer.from([0xff, 0x00, 0x80, 0x7f]), "pcm_mulaw"))).toEqual([0, -32124, 32124, 0]);
  });

  it("decodes G.711 A-law", () => {
    expect(samples(toS16le(Buffer.from([0xd5, 0x55, 0xaa, 0x2a]), "pcm_alaw"))).toEqual([8, -8, 32256, -32256]);
  });
});

describe("Resampler", () => {
  const ramp = (n: number) => s16(Array.from({ length: n }, (_, i) => Math.round(10_000 * Math.sin(i / 7))));
  const oneShot = (pcm: Buffer, from: number, to: number) => {
    const resampler = new Resampler(from, to);
    return Buffer.concat([resampler.push(pcm), resampler.end()]);
  };

  it("gives 1.5 samples per source sample from 16 kHz to 24 kHz", () => {
    expect(oneShot(ramp(1_600), 16_000, 24_000).length / 2).toBe(2_400);
  });

  it("gives a third of the samples from 48 kHz to 16 kHz, every third one", () => {
    const pcm = ramp(4_800);
    const out = samples(oneShot(pcm, 48_000, 16_000));
    expect(out.length).toBe(1_600);
    expect(out.slice(0, 5)).toEqual([0, 3, 6, 9, 12].map((i) => pcm.readInt16LE(i * 2)));
  });

  it("interpolates between neighbours", () => {
    expect(samples(oneShot(s16([0, 300, 600]), 8_000, 16_000))).toEqual([0, 150, 300, 450, 600, 600]);
  });

  it("answers the same in chunks as in one go", () => {
    const pcm = ramp(3_001);
    for (const [from, to] of [[16_000, 24_000], [44_100, 16_000], [8_000, 16_000], [22_050, 16_000]] as const) {
      const resampler = new Resampler(from, to);
      const pieces: Buffer[] = [];
      for (let at = 0, size = 1; at < pcm.length; at += size * 2, size = (size * 7) % 113 || 1) pieces.push(resampler.push(pcm.subarray(at, at + size * 2)));
      pieces.push(resampler.end());
      expect(Buffer.concat(pieces).equals(oneShot(pcm, from, to)), `${from} → ${to}`).toBe(true);
    }
  });
});

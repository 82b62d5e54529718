/**
 * Real FLAC for the transcription tests and the audio benchmark: a minimal encoder (STREAMINFO, then
 * fixed-size frames of VERBATIM subframes, 16-bit mono) — valid FLAC that every decoder reads, just not
 * compressed. It lets the tests run the WebAssembly FLAC decoder without a binary fixture.
 */
import { aWav, type WavOptions } from "./wav.js";

class Bits {
  private readonly bytes: number[] = [];
  private current = 0;
  private filled = 0;

  write(value: number, count: number): void {
    for (let i = count - 1; i >= 0; i -= 1) {
      this.current = (this.current << 1) | (Math.floor(value / 2 ** i) & 1);
      this.filled += 1;
      if (this.filled === 8) {
        this.bytes.push(this.current);
        this.current = 0;
        this.filled = 0;
      }
    }
  }

  align(): void {
    if (this.filled) this.write(0, 8 - this.filled);
  }

  get length(): number {
    return this.bytes.length;
  }

  slice(from: number): number[] {
    return this.bytes.slice(from);
  }

  toBuffer(): Buffer {
    return Buffer.from(this.bytes);
  }
}

function crc8(bytes: number[]): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let i = 0; i < 8; i += 1) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

function crc16(bytes: number[]): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x8005) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** FLAC's "UTF-8" coding of a frame number. */
function utf8Number(n: number): number[] {
  if (n < 0x80) return [n];
  if (n < 0x800) return [0xc0 | (n >> 6), 0x80 | (n & 0x3f)];
  if (n < 0x10000) return [0xe0 | (n >> 12), 0x80 | ((n >> 6) & 0x3f), 0x80 | (n & 0x3f)];
  return [0xf0 | (n >> 18), 0x80 | ((n >> 12) & 0x3f), 0x80 | ((n >> 6) & 0x3f), 0x80 | (n & 0x3f)];
}

const BLOCK = 4096;

/** 16-bit mono PCM samples as FLAC (sample rates up to 65,535 Hz). */
export function flacOf(samples: Int16Array, sampleRate: number): Buffer {
  const out = new Bits();
  for (const c of "fLaC") out.write(c.charCodeAt(0), 8);
  out.write(1, 1); // last metadata block
  out.write(0, 7); // STREAMINFO
  out.write(34, 24);
  out.write(BLOCK, 16);
  out.write(BLOCK, 16);
  out.write(0, 24);
  out.write(0, 24);
  out.write(sampleRate, 20);
  out.write(0, 3); // mono
  out.write(15, 5); // 16 bits
  out.write(samples.length, 36);
  for (let i = 0; i < 16; i += 1) out.write(0, 8); // no MD5
  for (let frame = 0, at = 0; at < samples.length; frame += 1, at += BLOCK) {
    const size = Math.min(BLOCK, samples.length - at);
    const start = out.length;
    out.write(0xfff8, 16); // sync, fixed block size
    out.write(7, 4); // block size: 16 bits at the end of the header
    out.write(13, 4); // sample rate: 16 bits of Hz at the end of the header (some parsers refuse "from STREAMINFO")
    out.write(0, 4); // mono
    out.write(4, 3); // 16 bits per sample
    out.write(0, 1);
    for (const byte of utf8Number(frame)) out.write(byte, 8);
    out.write(size - 1, 16);
    out.write(sampleRate, 16);
    out.write(crc8(out.slice(start)), 8);
    out.write(0, 1);
    out.write(1, 6); // VERBATIM
    out.write(0, 1);
    for (let i = 0; i < size; i += 1) out.write(samples[at + i]! & 0xffff, 16);
    out.align();
    out.write(crc16(out.slice(start)), 16);
  }
  return out.toBuffer();
}

/** A sine tone as FLAC: the same samples `aWav` writes (16-bit). */
export function aFlac(options: Omit<WavOptions, "bits"> = {}): Buffer {
  const wav = aWav({ ...options, bits: 16 });
  const samples = new Int16Array((wav.length - 44) / 2);
  for (let i = 0; i < samples.length; i += 1) samples[i] = wav.readInt16LE(44 + i * 2);
  return flacOf(samples, options.sampleRate ?? 8000);
}

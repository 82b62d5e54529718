/**
 * The raw samples of a realtime session (types.ts LIVE_ENCODINGS) as 16-bit PCM: what Amazon Transcribe and vLLM's
 * realtime API take. Pure and synchronous: it runs on every chunk a client sends, so no decoder library, no copies
 * beyond the output buffer.
 */
import type { LiveAudioFormat, LiveEncoding } from "../types.js";

const SAMPLE_BYTES: Record<LiveEncoding, number> = { pcm_s16le: 2, pcm_s32le: 4, pcm_f16le: 2, pcm_f32le: 4, pcm_mulaw: 1, pcm_alaw: 1 };

export const bytesPerSample = (encoding: LiveEncoding): number => SAMPLE_BYTES[encoding];

export const durationSeconds = (bytes: number, format: LiveAudioFormat): number => bytes / SAMPLE_BYTES[format.encoding] / format.sampleRate;

/** G.711 µ-law (ITU-T G.711, the table every telephony stack uses): the byte is stored inverted. */
const MULAW = Int16Array.from({ length: 256 }, (_, byte) => {
  const u = ~byte & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u >> 4) & 7)) - 0x84;
  return u & 0x80 ? -magnitude : magnitude;
});

/** G.711 A-law: even bits inverted (0x55); the sign bit set means positive. */
const ALAW = Int16Array.from({ length: 256 }, (_, byte) => {
  const a = byte ^ 0x55;
  const exponent = (a >> 4) & 7;
  const mantissa = (a & 0x0f) << 4;
  const magnitude = exponent === 0 ? mantissa + 8 : (mantissa + 0x108) << (exponent - 1);
  return a & 0x80 ? magnitude : -magnitude;
});

const fromFloat = (value: number): number => Math.round(Math.max(-1, Math.min(1, Number.isNaN(value) ? 0 : value)) * 32767);

/** IEEE 754 half precision (Node 20's Buffer has no readFloat16LE). */
function half(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** One chunk of whole samples in `encoding` as signed 16-bit little-endian samples (s16le is returned as is). */
export function toS16le(chunk: Buffer, encoding: LiveEncoding): Buffer {
  if (encoding === "pcm_s16le") return chunk;
  const size = SAMPLE_BYTES[encoding];
  const count = Math.floor(chunk.length / size);
  const out = Buffer.alloc(count * 2);
  for (let i = 0; i < count; i += 1) {
    const at = i * size;
    let sample: number;
    if (encoding === "pcm_s32le") sample = chunk.readInt32LE(at) >> 16;
    else if (encoding === "pcm_f32le") sample = fromFloat(chunk.readFloatLE(at));
    else if (encoding === "pcm_f16le") sample = fromFloat(half(chunk.readUInt16LE(at)));
    else sample = (encoding === "pcm_mulaw" ? MULAW : ALAW)[chunk[at]!]!;
    out.writeInt16LE(sample, i * 2);
  }
  return out;
}

/**
 * Linear-interpolation resampling of s16le mono, chunk by chunk: the output of all `push`es then `end` equals that of
 * one `push` of the whole audio then `end`. Output sample i sits at source position i·from/to (integer arithmetic, so
 * hours of audio do not drift); it waits for the source sample after it, which `end` replaces with the last one.
 */
export class Resampler {
  /** Source samples not yet behind every future output, starting at source index `base`. */
  private pending = new Int16Array(0);
  private base = 0;
  /** The next output sample's index. */
  private next = 0;

  constructor(
    private readonly fromRate: number,
    private readonly toRate: number,
  ) {}

  push(chunk: Buffer): Buffer {
    const incoming = new Int16Array(Math.floor(chunk.length / 2));
    for (let i = 0; i < incoming.length; i += 1) incoming[i] = chunk.readInt16LE(i * 2);
    const joined = new Int16Array(this.pending.length + incoming.length);
    joined.set(this.pending);
    joined.set(incoming, this.pending.length);
    this.pending = joined;
    return this.emit(false);
  }

  /** The outputs still owed at the end of the audio, the last source sample standing in for the one after it. */
  end(): Buffer {
    return this.emit(true);
  }

  private emit(ending: boolean): Buffer {
    const available = this.base + this.pending.length;
    const out: number[] = [];
    for (;;) {
      const scaled = this.next * this.fromRate;
      const left = Math.floor(scaled / this.toRate);
      const weight = (scaled % this.toRate) / this.toRate;
      if (left >= available || (!ending && weight > 0 && left + 1 >= available)) break;
      const a = this.pending[left - this.base]!;
      const b = left + 1 < available ? this.pending[left + 1 - this.base]! : a;
      out.push(Math.round(a + (b - a) * weight));
      this.next += 1;
    }
    const keepFrom = Math.min(Math.floor((this.next * this.fromRate) / this.toRate), available) - this.base;
    this.pending = this.pending.slice(keepFrom);
    this.base += keepFrom;
    const buffer = Buffer.alloc(out.length * 2);
    out.forEach((sample, i) => buffer.writeInt16LE(sample, i * 2));
    return buffer;
  }
}

/**
 * Audio to 16-bit PCM, in the function: what Amazon Transcribe's streaming API takes (`pcm`, signed
 * little-endian, mono, 8–48 kHz). Decoding is audio-decode's (WebAssembly decoders, no native code):
 * WAV, MP3, FLAC, Ogg Vorbis, Ogg Opus and QOA. Other containers (MP4/M4A, WebM, AAC, AMR) are refused.
 */
import decodeAudio from "audio-decode";

/** The rate sent to Transcribe: its recommended rate for speech, and a third of 48 kHz's bytes. */
export const PCM_RATE = 16_000;

/** The decoders keep state between files: one decode at a time per process. */
let queue: Promise<unknown> = Promise.resolve();

/** Mono 16-bit little-endian PCM at `rate` Hz; throws when the bytes are no audio the decoders know. */
export async function toPcm16(audio: Uint8Array, rate = PCM_RATE): Promise<Buffer> {
  const run = queue.then(() => decodeAudio(audio));
  queue = run.catch(() => undefined);
  const decoded = await run;
  const channels = Array.from({ length: decoded.numberOfChannels }, (_, c) => decoded.getChannelData(c));
  const length = decoded.length;
  const ratio = decoded.sampleRate / rate;
  const outLength = Math.floor(length / ratio);
  const pcm = Buffer.alloc(outLength * 2);
  for (let i = 0; i < outLength; i += 1) {
    // Linear interpolation between the two nearest source frames, channels averaged.
    const position = i * ratio;
    const left = Math.floor(position);
    const right = Math.min(left + 1, length - 1);
    const weight = position - left;
    let sum = 0;
    for (const data of channels) sum += data[left]! * (1 - weight) + data[right]! * weight;
    const value = Math.max(-1, Math.min(1, sum / channels.length));
    pcm.writeInt16LE(Math.round(value * 32767), i * 2);
  }
  return pcm;
}

/** A RIFF/WAVE file around mono 16-bit PCM, with an optional INFO comment (ICMT) saying what the audio is. */
export function wavOf(pcm: Buffer, rate: number, comment?: string): Buffer {
  const info = comment ? infoChunk(comment) : Buffer.alloc(0);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + info.length + pcm.length, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(pcm.length, 40);
  // The INFO list goes before "data" so that readers stopping at the samples still see it.
  return Buffer.concat([header.subarray(0, 36), info, header.subarray(36), pcm]);
}

function infoChunk(comment: string): Buffer {
  let text = Buffer.from(`${comment}\0`, "utf8");
  if (text.length % 2) text = Buffer.concat([text, Buffer.alloc(1)]);
  const chunk = Buffer.alloc(12 + 8 + text.length);
  chunk.write("LIST", 0, "ascii");
  chunk.writeUInt32LE(4 + 8 + text.length, 4);
  chunk.write("INFO", 8, "ascii");
  chunk.write("ICMT", 12, "ascii");
  chunk.writeUInt32LE(text.length, 16);
  text.copy(chunk, 20);
  return chunk;
}

/**
 * Audio to 16-bit PCM, in the function: what Amazon Transcribe's streaming API takes (`pcm`, signed
 * little-endian, mono, 8–48 kHz). Decoding is audio-decode's (WebAssembly decoders, no native code):
 * WAV, MP3, FLAC, Ogg Vorbis, Ogg Opus and QOA. Other containers (MP4/M4A, WebM, AAC, AMR) are refused.
 *
 * The decoders are ~4 MB of bundled WebAssembly: only the Amazon Transcribe provider imports this module,
 * and only the transcription service imports that provider (see registry.ts `registerProviderFactory`).
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

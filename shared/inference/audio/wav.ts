/** WAV writing without a decoder (pcm.ts carries the WebAssembly decoders; only the transcription function needs them). */

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

/**
 * POST /v1/audio/transcriptions (docs/audio.md): the audio from a form part, an uploaded file or a URL,
 * checked (format, size, duration) before any model is called, then heard by the model's provider and
 * answered as one JSON body or as server-sent events.
 */
import { parseBuffer } from "music-metadata";
import { fileBlobs } from "../../blobs/files.js";
import {
  audioSourceOf,
  audioTooLarge,
  billedSeconds,
  checkTranscribable,
  MAX_TRANSCRIPTION_BYTES,
  sourceIssue,
  type AudioFacts,
  type AudioSource,
} from "../../domain/audio.js";
import { requireEndpoint, type ModelEntry } from "../../domain/models.js";
import { providerNamed } from "../../inference/registry.js";
// Registers the Amazon Transcribe provider (and its audio decoders) in this function only: registry.ts.
import "../../inference/providers/amazon-transcribe.js";
import { countTokens } from "../../inference/tokenizer.js";
import { UnsupportedByProvider, type InferenceProvider, type TranscriptionEvent } from "../../inference/types.js";
import { fetchBytes, OutboundError } from "../../net/outbound.js";
import { logger } from "../../observability/logger.js";
import type { TranscriptionForm, TranscriptionOut, TranscriptionSegmentOut } from "../../schemas/audio.js";
import * as files from "../files/files.js";
import type { ModelAnswer, ModelStream } from "../inference/completions.js";
import { failuresRecorded, recordUsage, type CallContext } from "../inference/usage.js";
import { bodyModel } from "../models/catalog.js";

/** How long fetching a `file_url` may take, redirects included. */
const URL_TIMEOUT_MS = 30_000;

interface Audio {
  bytes: Buffer;
  filename: string;
}

/** The model call a transcript belongs to: its model, its provider, and what was measured of its audio. */
export interface Heard {
  model: ModelEntry;
  provider: Pick<InferenceProvider, "backend">;
  facts: Pick<AudioFacts, "durationSeconds">;
}

export async function transcribe(ctx: CallContext, form: TranscriptionForm): Promise<ModelAnswer<TranscriptionOut> | ModelStream> {
  const source = audioSourceOf({ file: form.file !== undefined, file_id: Boolean(form.file_id), file_url: Boolean(form.file_url) });
  const model = await bodyModel(ctx.caller, form.model);
  requireEndpoint(model, "transcriptions");
  const provider = await providerNamed(model.provider);
  if (!provider.transcribe) throw new UnsupportedByProvider(provider.backend, "transcription");
  const audio = await audioFrom(ctx, source, form);
  const facts = checkTranscribable(source, await formatOf(audio.bytes));
  const heard: Heard = { model, provider, facts };

  const started = Date.now();
  const events = provider.transcribe(
    {
      model: model.upstream,
      audio: audio.bytes,
      filename: audio.filename,
      container: facts.container,
      durationSeconds: facts.durationSeconds,
      language: form.language ?? undefined,
      temperature: form.temperature ?? undefined,
      diarize: form.diarize,
      contextBias: form.context_bias,
      timestampGranularities: form.timestamp_granularities,
    },
    { signal: ctx.signal, countTokens: (text) => countTokens(model.tokenizer, text) },
  );
  const requested = form.language ? form.language.slice(0, 2).toLowerCase() : null;
  if (form.stream) {
    // The first event (or the end) decides the status: failures the provider reports up front keep theirs.
    const iterator = events[Symbol.asyncIterator]();
    const first = await failuresRecorded(ctx, heard, started, () => iterator.next());
    return { kind: "stream", frames: sseFrames(ctx, heard, iterator, first, started, requested), backend: provider.backend };
  }
  const transcript = await failuresRecorded(ctx, heard, started, async () => {
    const heardSoFar = new Transcript(requested);
    for await (const event of events) heardSoFar.add(event);
    return heardSoFar;
  });
  const body = transcript.out(heard);
  await recordUsage(ctx, heard, { promptTokens: 0, completionTokens: body.usage.completion_tokens, started, status: 200 });
  return { kind: "answer", body, backend: provider.backend };
}

/** What the events add up to: the text, the language (heard, else the one asked for), the segments. */
export class Transcript {
  text = "";
  language: string | null = null;
  readonly segments: TranscriptionSegmentOut[] = [];

  constructor(private readonly requested: string | null) {}

  add(event: TranscriptionEvent): void {
    if (event.type === "language") this.language ??= event.language;
    else if (event.type === "text") this.text += event.text;
    else this.segments.push(segmentOut(event));
  }

  out(heard: Heard): TranscriptionOut {
    const completionTokens = countTokens(heard.model.tokenizer, this.text);
    return {
      model: heard.model.id,
      text: this.text,
      language: this.language ?? this.requested,
      segments: this.segments,
      usage: { prompt_tokens: 0, completion_tokens: completionTokens, total_tokens: completionTokens, prompt_audio_seconds: billedSeconds(heard.facts.durationSeconds) },
    };
  }
}

export function segmentOut(event: Extract<TranscriptionEvent, { type: "segment" }>): TranscriptionSegmentOut {
  return { type: "transcription_segment", text: event.text, start: event.start, end: event.end, ...(event.speakerId ? { speaker_id: event.speakerId } : {}) };
}

const frame = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ ...data, type })}\n\n`;

/**
 * The OpenAPI's event stream: `transcription.language` once, `transcription.text.delta` and
 * `transcription.segment` as they come, `transcription.done` with the whole answer. A failure after the
 * first byte ends the stream without `transcription.done` (the client sees it incomplete).
 */
async function* sseFrames(
  ctx: CallContext,
  heard: Heard,
  iterator: AsyncIterator<TranscriptionEvent>,
  first: IteratorResult<TranscriptionEvent>,
  started: number,
  requested: string | null,
): AsyncGenerator<string> {
  const transcript = new Transcript(requested);
  let languageSent = false;
  try {
    for (let next = first; !next.done; next = await iterator.next()) {
      const event = next.value;
      transcript.add(event);
      if (event.type === "language") {
        if (languageSent) continue;
        languageSent = true;
        yield frame("transcription.language", { audio_language: event.language });
      } else if (event.type === "text") yield frame("transcription.text.delta", { text: event.text });
      else {
        const { type: _segment, ...segment } = segmentOut(event);
        yield frame("transcription.segment", segment);
      }
    }
  } catch (error) {
    logger.warn("transcription stream failed after its first byte", { error: error as Error });
    await recordUsage(ctx, heard, { promptTokens: 0, completionTokens: countTokens(heard.model.tokenizer, transcript.text), started, status: "stream_error" });
    return;
  }
  const out = transcript.out(heard);
  const { model, text, language, segments, usage } = out;
  yield frame("transcription.done", { model, text, language, segments, usage });
  await recordUsage(ctx, heard, { promptTokens: 0, completionTokens: usage.completion_tokens, started, status: 200 });
}

/** What music-metadata reads of the bytes (by their content, not a declared type); undefined when it knows no such format. */
async function formatOf(bytes: Buffer) {
  try {
    return (await parseBuffer(bytes, undefined, { duration: true, skipCovers: true })).format;
  } catch {
    return undefined;
  }
}

async function audioFrom(ctx: CallContext, source: AudioSource, form: TranscriptionForm): Promise<Audio> {
  if (source === "file") {
    const file = form.file!;
    if (file.truncated || file.content.length > MAX_TRANSCRIPTION_BYTES) throw audioTooLarge("file", file.content.length);
    if (!file.content.length) throw sourceIssue("file", "The file is empty");
    return { bytes: file.content, filename: file.filename || "audio" };
  }
  if (source === "file_id") {
    const record = await files.get(ctx.caller, form.file_id!);
    if (record.bytes > MAX_TRANSCRIPTION_BYTES) throw audioTooLarge("file_id", record.bytes);
    const chunks: Uint8Array[] = [];
    for await (const chunk of fileBlobs.read(record.objectKey)) chunks.push(chunk);
    return { bytes: Buffer.concat(chunks), filename: record.filename };
  }
  return fetched(form.file_url!, ctx.signal);
}

/** A `file_url` under the outbound rules (shared/net/outbound.ts); what goes wrong is the caller's 422 or 413. */
async function fetched(url: string, signal: AbortSignal | undefined): Promise<Audio> {
  try {
    const got = await fetchBytes(url, { maxBytes: MAX_TRANSCRIPTION_BYTES, timeoutMs: URL_TIMEOUT_MS, signal });
    const name = new URL(got.url).pathname.split("/").pop() || "audio";
    return { bytes: got.bytes, filename: name };
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    if (error.kind === "too_large") throw audioTooLarge("file_url");
    throw sourceIssue("file_url", `The audio could not be fetched: ${error.message}`);
  }
}

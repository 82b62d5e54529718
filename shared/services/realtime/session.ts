/**
 * One realtime transcription session (docs/audio.md "Realtime"), whatever carries it: the socket server
 * (functions/upload-service/realtime.ts) hands it the client's messages and a way to answer. The protocol is the
 * official SDK's: `session.created` first; `session.update` may change the audio format until the first audio;
 * `input_audio.append` (base64 samples), `input_audio.flush`, `input_audio.end`; the provider's events come back as
 * `transcription.language`, `transcription.text.delta` and `transcription.segment` while audio still arrives, then
 * `transcription.done` with the whole transcript and its usage, and the socket closes. A mistake in one message is
 * an `error` event and the session goes on; a failure of the session is an `error` event and the socket closes.
 */
import { randomUUID } from "node:crypto";
import { ApiError, asApiError, CLIENT_CLOSED, Unprocessable } from "../../domain/errors.js";
import type { ModelEntry } from "../../domain/models.js";
import { validated } from "../../domain/validation.js";
import { bytesPerSample, durationSeconds } from "../../inference/audio/live-pcm.js";
import { countTokens } from "../../inference/tokenizer.js";
import type { InferenceProvider, LiveAudio, LiveAudioFormat, TranscriptionEvent } from "../../inference/types.js";
import { logger } from "../../observability/logger.js";
import { RealtimeClientMessage } from "../../schemas/realtime.js";
import { segmentOut, Transcript, type Heard } from "../audio/transcriptions.js";
import { failuresRecorded, recordUsage, type CallContext } from "../inference/usage.js";
import { AudioQueue } from "./audio-queue.js";

/** What a session starts with until the client says otherwise (the SDK's default): 16 kHz 16-bit mono. */
export const DEFAULT_AUDIO_FORMAT: LiveAudioFormat = { encoding: "pcm_s16le", sampleRate: 16_000 };
/** The longest a session may last, audio or not: the socket closes then (a client may open another). */
export const MAX_SESSION_SECONDS = 60 * 60;

/** Close codes (RFC 6455): normal, the client's fault (policy), the server's or upstream's. */
export const CLOSE_NORMAL = 1000;
export const CLOSE_POLICY = 1008;
export const CLOSE_FAILED = 1011;

export interface SessionPeer {
  /** Sends one event; resolves once it is handed to the connection. */
  send(event: Record<string, unknown>): Promise<void>;
  /** Ends the connection (the messages then end too). */
  close(code: number, reason: string): void;
}

export type LiveProvider = InferenceProvider & Required<Pick<InferenceProvider, "transcribeLive">>;

export interface SessionSetup {
  ctx: CallContext;
  model: ModelEntry;
  provider: LiveProvider;
  language?: string;
  /** Overrides MAX_SESSION_SECONDS (tests). */
  maxSeconds?: number;
}

/** An error event as the SDK reads it: `{type: "error", error: {message, code}}`, the code an HTTP status. */
export const errorEvent = (code: number, message: string) => ({ type: "error", error: { message, code } });

const formatOut = (format: LiveAudioFormat) => ({ encoding: format.encoding, sample_rate: format.sampleRate });

/** Runs a session to its end; never throws (what goes wrong is told to the peer, which is then closed). */
export async function runSession(setup: SessionSetup, peer: SessionPeer, messages: AsyncIterable<string>): Promise<void> {
  const session = new Session(setup, peer);
  try {
    await session.run(messages);
  } catch (error) {
    await session.fail(error);
  } finally {
    session.dispose();
  }
}

class Session {
  private format = DEFAULT_AUDIO_FORMAT;
  private readonly requestId = randomUUID();
  private readonly started = Date.now();
  private readonly heard: Heard;
  private readonly transcript: Transcript;
  private readonly abort = new AbortController();
  private readonly deadline: NodeJS.Timeout;
  /** Audio bytes taken (whole samples), and the odd bytes of a sample split across two messages. */
  private bytes = 0;
  private partial = Buffer.alloc(0);
  private audio: AudioQueue | undefined;
  private pump: Promise<void> | undefined;
  private languageSent = false;
  private failed = false;
  private recorded = false;

  constructor(
    private readonly setup: SessionSetup,
    private readonly peer: SessionPeer,
  ) {
    this.heard = { model: setup.model, provider: setup.provider, facts: { durationSeconds: 0 } };
    this.transcript = new Transcript(setup.language ? setup.language.slice(0, 2).toLowerCase() : null);
    const maxSeconds = setup.maxSeconds ?? MAX_SESSION_SECONDS;
    const expired = new ApiError(408, "invalid_request_error", `A realtime session lasts at most ${maxSeconds} s; open another to go on`, "session_expired");
    this.deadline = setTimeout(() => void this.fail(expired), maxSeconds * 1000);
    this.deadline.unref();
  }

  private get ctx(): CallContext {
    return { ...this.setup.ctx, signal: this.abort.signal };
  }

  async run(messages: AsyncIterable<string>): Promise<void> {
    await this.peer.send({ type: "session.created", session: this.sessionOut() });
    // Admission as every model call has it: the spend limit, the key's token limits.
    await failuresRecorded(this.ctx, this.heard, this.started, async () => undefined);
    for await (const raw of messages) {
      if (this.failed) return;
      const message = this.parse(raw);
      if (!message) continue;
      if (message.type === "session.update") await this.updateFormat(message.session.audio_format);
      else if (message.type === "input_audio.append") await this.append(Buffer.from(message.audio, "base64"));
      else if (message.type === "input_audio.flush") await this.audio?.push({ type: "flush" });
      else return this.finish();
    }
    // The client went away without ending its audio: nothing more is sent, what was heard is still recorded.
    if (!this.failed) await this.record(CLIENT_CLOSED);
  }

  private parse(raw: string): RealtimeClientMessage | undefined {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      void this.peer.send(errorEvent(400, "A message must be a JSON object"));
      return undefined;
    }
    try {
      return validated(RealtimeClientMessage, json, "body");
    } catch (error) {
      void this.peer.send(errorEvent(422, `Invalid message: ${messageOf(error)}`));
      return undefined;
    }
  }

  private async updateFormat(format: { encoding: LiveAudioFormat["encoding"]; sample_rate: number }): Promise<void> {
    if (this.audio) return void (await this.peer.send(errorEvent(409, "The audio format cannot change once audio was sent")));
    this.format = { encoding: format.encoding, sampleRate: format.sample_rate };
    await this.peer.send({ type: "session.updated", session: this.sessionOut() });
  }

  private async append(data: Buffer): Promise<void> {
    const joined = this.partial.length ? Buffer.concat([this.partial, data]) : data;
    const size = bytesPerSample(this.format.encoding);
    const whole = joined.length - (joined.length % size);
    this.partial = Buffer.from(joined.subarray(whole));
    if (!whole) return;
    this.bytes += whole;
    this.start();
    await this.audio!.push({ type: "audio", data: joined.subarray(0, whole) });
  }

  /** The provider's call, at the first audio (the format is fixed from then on); its events go out as they come. */
  private start(): void {
    if (this.audio) return;
    this.audio = new AudioQueue();
    const { provider, model, language } = this.setup;
    const events = provider.transcribeLive({ model: model.upstream, format: this.format, ...(language ? { language } : {}) }, this.audio, {
      signal: this.abort.signal,
      countTokens: (text) => countTokens(model.tokenizer, text),
    });
    this.pump = (async () => {
      for await (const event of events) await this.forward(event);
    })();
    // A provider failure ends the session now, not when the client next sends something.
    this.pump.catch((error) => this.fail(error));
  }

  private async forward(event: TranscriptionEvent): Promise<void> {
    this.transcript.add(event);
    if (event.type === "language") {
      if (this.languageSent) return;
      this.languageSent = true;
      await this.peer.send({ type: "transcription.language", audio_language: event.language });
    } else if (event.type === "text") await this.peer.send({ type: "transcription.text.delta", text: event.text });
    else {
      const { type: _segment, ...segment } = segmentOut(event);
      await this.peer.send({ type: "transcription.segment", ...segment });
    }
  }

  private async finish(): Promise<void> {
    this.start();
    this.audio!.end();
    await this.pump;
    if (this.failed) return;
    this.heard.facts.durationSeconds = durationSeconds(this.bytes, this.format);
    const { model, text, language, segments, usage } = this.transcript.out(this.heard);
    await this.peer.send({ type: "transcription.done", model, text, language, segments, usage });
    await this.record(200);
    this.peer.close(CLOSE_NORMAL, "done");
  }

  /** Tells the client what went wrong and closes: its mistakes (4xx) as a policy close, others as a failure. */
  async fail(error: unknown): Promise<void> {
    if (this.failed) return;
    this.failed = true;
    this.abort.abort();
    this.audio?.end();
    const wire = asApiError(error);
    const message = messageOf(wire);
    if (wire.status >= 500) logger.error("realtime session failed", { requestId: this.setup.ctx.requestId, error: error as Error });
    await this.peer.send(errorEvent(wire.status, message)).catch(() => undefined);
    await this.record(wire.status);
    this.peer.close(wire.status < 500 ? CLOSE_POLICY : CLOSE_FAILED, message.slice(0, 120));
  }

  /** The session's usage record, once: what was heard, whatever the ending. */
  private async record(status: number): Promise<void> {
    if (this.recorded) return;
    this.recorded = true;
    const completionTokens = countTokens(this.setup.model.tokenizer, this.transcript.text);
    await recordUsage(this.setup.ctx, this.heard, { promptTokens: 0, completionTokens, started: this.started, status }).catch((error) =>
      logger.error("realtime usage not recorded", { requestId: this.setup.ctx.requestId, error: error as Error }),
    );
  }

  dispose(): void {
    clearTimeout(this.deadline);
    this.abort.abort();
    this.audio?.end();
  }

  private sessionOut() {
    return { request_id: this.requestId, model: this.setup.model.id, audio_format: formatOut(this.format), target_streaming_delay_ms: null };
  }
}

/** What the client is told: an API error's message, a validation error's issues. */
function messageOf(error: unknown): string {
  const wire = asApiError(error);
  return wire instanceof Unprocessable ? JSON.stringify(wire.detail) : wire.message;
}

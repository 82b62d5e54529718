/**
 * Live transcription over an upstream's realtime WebSocket, in the provider's two dialects:
 * - `openai`: vLLM's realtime API (which serves Mistral's Voxtral realtime models), `/v1/realtime`: 16 kHz s16le in
 *   `input_audio_buffer.append`, a commit per flush, a final commit at the end; `transcription.delta` / `.done` back;
 * - `mistral`: Mistral's own API (or another deployment of this platform), `/v1/audio/transcriptions/realtime`: the
 *   session's format passed through untouched; language, text deltas and segments back.
 *
 * Everything that can happen (an upstream message, the socket closing or failing, the end of the client's audio, the
 * caller's abort, a timeout) arrives in one inbox, read in order by the event loop: one place decides what ends a call.
 */
import type { IncomingMessage } from "node:http";
import WebSocket, { type RawData } from "ws";
import { Resampler, toS16le } from "../../audio/live-pcm.js";
import { UpstreamError, type LiveAudio, type LiveTranscribeRequest, type TranscriptionEvent } from "../../types.js";
import { errorCode, httpFailure, malformed, messageIn } from "./errors.js";
import { headerOf, isRecord, type Json } from "./json.js";

export interface RealtimeUpstream {
  /** http(s)://…, without a trailing slash. */
  baseUrl: string;
  dialect: "mistral" | "openai";
  apiKey?: string;
  /** Bounds the wait for the session to start, and each wait for the upstream once the audio has ended. */
  timeoutMs: number;
  /** The base URL as it may appear in an error message. */
  where: string;
}

/** How a dialect opens a session, sends audio and reads the answers. */
interface Protocol {
  path: string;
  setup: Json[];
  /** The client's samples as the upstream takes them; `rest` is what is still owed at the end of the audio. */
  convert(chunk: Buffer): Buffer;
  rest(): Buffer;
  append(base64: string): Json;
  flush: Json;
  end: Json;
  /** The events of one upstream message, or "done" when the transcription is complete; throws the upstream's error. */
  read(message: Json, ended: boolean): TranscriptionEvent[] | "done";
}

/** vLLM's realtime API takes 16 kHz s16le only. */
const OPENAI_RATE = 16_000;

function openaiProtocol(request: LiveTranscribeRequest): Protocol {
  const { encoding, sampleRate } = request.format;
  const resampler = sampleRate === OPENAI_RATE ? undefined : new Resampler(sampleRate, OPENAI_RATE);
  return {
    path: "/v1/realtime",
    setup: [{ type: "session.update", model: request.model, ...(request.language ? { language: request.language } : {}) }, { type: "input_audio_buffer.commit" }],
    convert: (chunk) => (resampler ? resampler.push(toS16le(chunk, encoding)) : toS16le(chunk, encoding)),
    rest: () => resampler?.end() ?? Buffer.alloc(0),
    append: (audio) => ({ type: "input_audio_buffer.append", audio }),
    flush: { type: "input_audio_buffer.commit" },
    end: { type: "input_audio_buffer.commit", final: true },
    read(message, ended) {
      if (message.type === "error" || typeof message.error === "string") {
        throw new UpstreamError(502, messageIn(message.error) ?? "The upstream failed the realtime transcription");
      }
      if (message.type === "transcription.delta" && typeof message.delta === "string" && message.delta) return [{ type: "text", text: message.delta }];
      // One per utterance while the audio goes on: only the one after the final commit ends the call.
      if (message.type === "transcription.done" && ended) return "done";
      return [];
    },
  };
}

function mistralProtocol(request: LiveTranscribeRequest): Protocol {
  return {
    path: `/v1/audio/transcriptions/realtime?model=${encodeURIComponent(request.model)}`,
    setup: [{ type: "session.update", session: { audio_format: { encoding: request.format.encoding, sample_rate: request.format.sampleRate } } }],
    convert: (chunk) => chunk,
    rest: () => Buffer.alloc(0),
    append: (audio) => ({ type: "input_audio.append", audio }),
    flush: { type: "input_audio.flush" },
    end: { type: "input_audio.end" },
    read(message) {
      switch (message.type) {
        case "error": {
          const code = isRecord(message.error) ? message.error.code : undefined;
          const status = typeof code === "number" && code >= 400 && code <= 599 ? code : 502;
          throw new UpstreamError(status, messageIn(message.error) ?? "The upstream failed the realtime transcription");
        }
        case "transcription.language":
          return typeof message.audio_language === "string" ? [{ type: "language", language: message.audio_language }] : [];
        case "transcription.text.delta":
          return typeof message.text === "string" && message.text ? [{ type: "text", text: message.text }] : [];
        case "transcription.segment": {
          const { text, start, end, speaker_id: speaker } = message;
          if (typeof text !== "string" || typeof start !== "number" || typeof end !== "number") throw malformed("a transcription segment without text or times");
          return [{ type: "segment", text, start, end, ...(typeof speaker === "string" || speaker === null ? { speakerId: speaker } : {}) }];
        }
        case "transcription.done":
          return "done";
        default:
          return [];
      }
    },
  };
}

type Arrival = { kind: "message"; message: Json } | { kind: "failure"; error: unknown } | { kind: "closed" } | { kind: "ended" };

/** Arrivals in order, for one reader. */
class Inbox {
  private readonly items: Arrival[] = [];
  private waiting: ((arrival: Arrival) => void) | undefined;

  put(arrival: Arrival): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(arrival);
    else this.items.push(arrival);
  }

  next(): Promise<Arrival> {
    const item = this.items.shift();
    return item ? Promise.resolve(item) : new Promise((resolve) => (this.waiting = resolve));
  }
}

/** One live transcription: opens the socket, sends the client's audio as it comes, yields what the upstream hears. */
export async function* realtimeTranscription(
  upstream: RealtimeUpstream,
  request: LiveTranscribeRequest,
  audio: AsyncIterable<LiveAudio>,
  signal: AbortSignal | undefined,
): AsyncGenerator<TranscriptionEvent> {
  signal?.throwIfAborted();
  const protocol = (upstream.dialect === "mistral" ? mistralProtocol : openaiProtocol)(request);
  const inbox = new Inbox();
  const socket = new WebSocket(`${upstream.baseUrl.replace(/^http/, "ws")}${protocol.path}`, {
    headers: upstream.apiKey ? { authorization: `Bearer ${upstream.apiKey}` } : {},
    // Base64 audio barely compresses; deflate would only add latency and make `send` asynchronous.
    perMessageDeflate: false,
  });
  let opened = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => inbox.put({ kind: "failure", error: new UpstreamError(504, `The upstream at ${upstream.where} did not answer within ${upstream.timeoutMs} ms`) }), upstream.timeoutMs);
  };

  const onMessage = (data: RawData, isBinary: boolean) => {
    if (isBinary) return;
    let message: unknown;
    try {
      message = JSON.parse(String(data));
    } catch {
      message = undefined;
    }
    inbox.put(isRecord(message) ? { kind: "message", message } : { kind: "failure", error: malformed("a realtime message is not a JSON object") });
  };
  const onOpen = () => (opened = true);
  const onError = (error: unknown) => {
    const code = errorCode(error);
    const what = opened ? `The connection to the upstream at ${upstream.where} broke off` : `Could not reach the upstream at ${upstream.where}${code ? ` (${code})` : ""}`;
    inbox.put({ kind: "failure", error: new UpstreamError(502, what) });
  };
  const onRefused = (_request: unknown, response: IncomingMessage) => {
    void bodyOf(response).then((body) => inbox.put({ kind: "failure", error: httpFailure(response.statusCode ?? 502, body, headerOf(response, "retry-after")) }));
  };
  const onClose = () => inbox.put({ kind: "closed" });
  const onAbort = () => {
    const reason: unknown = signal?.reason;
    inbox.put({ kind: "failure", error: reason instanceof Error ? reason : new DOMException("The operation was aborted", "AbortError") });
  };
  socket.on("message", onMessage).on("open", onOpen).on("error", onError).on("unexpected-response", onRefused).on("close", onClose);
  signal?.addEventListener("abort", onAbort, { once: true });

  /** Resolves once the frame is handed to the operating system: the client's audio waits while the upstream is slow. */
  const send = (message: Json) =>
    new Promise<void>((resolve, reject) =>
      socket.send(JSON.stringify(message), (error) => (error ? reject(new UpstreamError(502, `The connection to the upstream at ${upstream.where} broke off`)) : resolve())),
    );
  const pump = async () => {
    for await (const piece of audio) {
      if (stopped) return;
      if (piece.type === "flush") await send(protocol.flush);
      else {
        const pcm = protocol.convert(piece.data);
        if (pcm.length) await send(protocol.append(pcm.toString("base64")));
      }
    }
    if (stopped) return;
    const rest = protocol.rest();
    if (rest.length) await send(protocol.append(rest.toString("base64")));
    const sent = send(protocol.end);
    // In the inbox, every message after this mark was sent by the upstream after it had our end.
    inbox.put({ kind: "ended" });
    await sent;
  };

  let started = false;
  let ended = false;
  let done = false;
  arm();
  try {
    for (;;) {
      const arrival = await inbox.next();
      if (arrival.kind === "failure") throw arrival.error;
      if (arrival.kind === "closed") throw new UpstreamError(502, `The upstream at ${upstream.where} closed the realtime connection before the transcription was done`);
      if (arrival.kind === "ended") {
        ended = true;
        arm();
        continue;
      }
      if (!started) {
        if (arrival.message.type !== "session.created") {
          protocol.read(arrival.message, false); // only for its error, if it is one
          continue;
        }
        started = true;
        clearTimeout(timer);
        for (const message of protocol.setup) await send(message);
        pump().catch((error: unknown) => inbox.put({ kind: "failure", error }));
        continue;
      }
      if (ended) arm();
      const events = protocol.read(arrival.message, ended);
      if (events === "done") {
        done = true;
        return;
      }
      yield* events;
    }
  } finally {
    stopped = true;
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    socket.off("message", onMessage).off("open", onOpen).off("error", onError).off("unexpected-response", onRefused).off("close", onClose);
    // Closing a socket still connecting reports an error: nobody is listening any more.
    socket.on("error", () => undefined);
    if (done && socket.readyState === WebSocket.OPEN) socket.close(1000);
    else socket.terminate();
  }
}

/** The refused handshake's body (an error message), at most 64 KiB of it. */
async function bodyOf(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > 65_536) break;
    }
  } catch {
    // What was read is enough to say why.
  }
  return Buffer.concat(chunks).toString("utf8");
}


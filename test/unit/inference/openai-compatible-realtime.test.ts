/** Live transcription of the OpenAI-compatible provider against a real WebSocket upstream, in both dialects. */
import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { OpenAICompatibleProvider } from "../../../shared/inference/providers/openai-compatible.js";
import { UpstreamError, type LiveAudio, type LiveAudioFormat, type TranscriptionEvent } from "../../../shared/inference/types.js";

type Json = Record<string, unknown>;

/** One client connection as the fake upstream saw it. */
interface Peer {
  socket: WebSocket;
  request: IncomingMessage;
  received: Json[];
  closed: Promise<number>;
}

let server: WebSocketServer;
let baseUrl: string;
/** What the upstream does with each message it receives; it always starts with `session.created`. */
let answer: (message: Json, peer: Peer) => void;
let peers: Peer[];

beforeEach(async () => {
  peers = [];
  answer = () => undefined;
  server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((resolve) => server.once("listening", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  server.on("connection", (socket, request) => {
    const peer: Peer = { socket, request, received: [], closed: new Promise((resolve) => socket.once("close", resolve)) };
    peers.push(peer);
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as Json;
      peer.received.push(message);
      answer(message, peer);
    });
    send(peer, { type: "session.created", session: {} });
  });
});

afterEach(async () => {
  delete process.env.REALTIME_TEST_KEY;
  await new Promise((resolve) => server.close(resolve));
});

const send = (peer: Peer, ...messages: Json[]) => messages.forEach((message) => peer.socket.send(JSON.stringify(message)));
const provider = (dialect: "openai" | "mistral", extra: { apiKeyEnv?: string; timeoutMs?: number } = {}) => new OpenAICompatibleProvider({ baseUrl, dialect, ...extra });

async function* audioOf(...pieces: LiveAudio[]): AsyncGenerator<LiveAudio> {
  yield* pieces;
}

async function transcribeLive(
  dialect: "openai" | "mistral",
  format: LiveAudioFormat,
  audio: AsyncIterable<LiveAudio>,
  extra: { language?: string; apiKeyEnv?: string; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<TranscriptionEvent[]> {
  const { language, signal, ...config } = extra;
  const model = dialect === "openai" ? "mistralai/Voxtral-Mini-4B-Realtime-2602" : "voxtral-mini-transcribe-realtime-2602";
  const events: TranscriptionEvent[] = [];
  const call = provider(dialect, config).transcribeLive({ model, format, ...(language ? { language } : {}) }, audio, { signal });
  for await (const event of call) events.push(event);
  return events;
}

const failureOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);
const s16 = (values: number[]) => {
  const pcm = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => pcm.writeInt16LE(v, i * 2));
  return pcm;
};
const audioSent = (peer: Peer) => Buffer.concat(peer.received.filter((m) => typeof m.audio === "string").map((m) => Buffer.from(m.audio as string, "base64")));

describe("openai dialect (vLLM realtime)", () => {
  it("sets the session up, sends 16 kHz s16le with a commit per flush, and ends on the done after the final commit", async () => {
    process.env.REALTIME_TEST_KEY = "sk-test";
    let flushAnswered: () => void = () => undefined;
    const answeredFlush = new Promise<void>((resolve) => (flushAnswered = resolve));
    answer = (message, peer) => {
      if (message.type !== "input_audio_buffer.commit" || peer.received.length < 3) return;
      // The flush's utterance ends with its own done, which must not end the call.
      if (!message.final) {
        send(peer, { type: "transcription.delta", delta: "Hello" }, { type: "transcription.done", text: "Hello" });
        setTimeout(flushAnswered, 50);
      } else send(peer, { type: "transcription.delta", delta: " world." }, { type: "transcription.done", text: " world." });
    };
    /** A client that speaks again once the first utterance is answered. */
    const audio = (async function* (): AsyncGenerator<LiveAudio> {
      yield* audioOf({ type: "audio", data: s16([0, 100, 200, 300]) }, { type: "flush" });
      await answeredFlush;
      yield { type: "audio", data: s16([400, 500]) };
    })();

    const events = await transcribeLive("openai", { encoding: "pcm_s16le", sampleRate: 8_000 }, audio, { language: "fr", apiKeyEnv: "REALTIME_TEST_KEY" });

    expect(events).toStrictEqual([
      { type: "text", text: "Hello" },
      { type: "text", text: " world." },
    ]);
    const [peer] = peers;
    expect(peer!.request.url).toBe("/v1/realtime");
    expect(peer!.request.headers.authorization).toBe("Bearer sk-test");
    expect(peer!.received.map((m) => (m.type === "input_audio_buffer.append" ? "append" : m))).toStrictEqual([
      { type: "session.update", model: "mistralai/Voxtral-Mini-4B-Realtime-2602", language: "fr" },
      { type: "input_audio_buffer.commit" },
      "append",
      { type: "input_audio_buffer.commit" },
      "append",
      "append",
      { type: "input_audio_buffer.commit", final: true },
    ]);
    // 8 kHz doubled to 16 kHz by linear interpolation, the last sample held at the end.
    expect(audioSent(peer!).equals(s16([0, 50, 100, 150, 200, 250, 300, 350, 400, 450, 500, 500]))).toBe(true);
    expect(await peer!.closed).toBe(1000);
  });

  it("converts other encodings and sends no authorization without a key", async () => {
    answer = (message, peer) => {
      if (message.final) send(peer, { type: "transcription.done", text: "" });
    };
    const f32 = Buffer.alloc(8);
    f32.writeFloatLE(1, 0);
    f32.writeFloatLE(-0.5, 4);

    const events = await transcribeLive("openai", { encoding: "pcm_f32le", sampleRate: 16_000 }, audioOf({ type: "audio", data: f32 }));

    expect(events).toStrictEqual([]);
    expect(peers[0]!.request.headers.authorization).toBeUndefined();
    expect(audioSent(peers[0]!).equals(s16([32767, -16383]))).toBe(true);
  });

  it("turns an upstream error into a 502", async () => {
    answer = (message, peer) => {
      if (message.type === "session.update") send(peer, { type: "error", error: "The model mistralai/Voxtral-Mini-4B-Realtime-2602 does not exist", code: "model_not_found" });
    };

    const failure = await failureOf(transcribeLive("openai", { encoding: "pcm_s16le", sampleRate: 16_000 }, audioOf({ type: "audio", data: s16([1]) })));

    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ status: 502, message: "The model mistralai/Voxtral-Mini-4B-Realtime-2602 does not exist" });
    await peers[0]!.closed;
  });

  it("fails with a 502 when the upstream closes before it is done", async () => {
    answer = (message, peer) => {
      if (message.type === "input_audio_buffer.append") peer.socket.close(1011, "crashed");
    };

    const failure = await failureOf(transcribeLive("openai", { encoding: "pcm_s16le", sampleRate: 16_000 }, audioOf({ type: "audio", data: s16([1, 2]) })));

    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ status: 502, message: expect.stringContaining("closed the realtime connection before the transcription was done") });
  });
});

describe("mistral dialect", () => {
  it("passes the session's format through and maps language, text and segments", async () => {
    process.env.REALTIME_TEST_KEY = "mistral-key";
    answer = (message, peer) => {
      if (message.type === "input_audio.flush") send(peer, { type: "transcription.language", audio_language: "en" }, { type: "transcription.text.delta", text: "Hi" });
      if (message.type === "input_audio.end") {
        send(
          peer,
          { type: "transcription.text.delta", text: " there." },
          { type: "transcription.segment", text: "Hi there.", start: 0, end: 0.6, speaker_id: "speaker_1" },
          { type: "transcription.done", text: "Hi there." },
        );
      }
    };
    const audio = audioOf({ type: "audio", data: Buffer.from([0xff, 0x00, 0x80]) }, { type: "flush" }, { type: "audio", data: Buffer.from([0x7f]) });

    const events = await transcribeLive("mistral", { encoding: "pcm_mulaw", sampleRate: 8_000 }, audio, { apiKeyEnv: "REALTIME_TEST_KEY" });

    expect(events).toStrictEqual([
      { type: "language", language: "en" },
      { type: "text", text: "Hi" },
      { type: "text", text: " there." },
      { type: "segment", text: "Hi there.", start: 0, end: 0.6, speakerId: "speaker_1" },
    ]);
    const [peer] = peers;
    expect(peer!.request.url).toBe("/v1/audio/transcriptions/realtime?model=voxtral-mini-transcribe-realtime-2602");
    expect(peer!.request.headers.authorization).toBe("Bearer mistral-key");
    expect(peer!.received).toStrictEqual([
      { type: "session.update", session: { audio_format: { encoding: "pcm_mulaw", sample_rate: 8_000 } } },
      { type: "input_audio.append", audio: Buffer.from([0xff, 0x00, 0x80]).toString("base64") },
      { type: "input_audio.flush" },
      { type: "input_audio.append", audio: Buffer.from([0x7f]).toString("base64") },
      { type: "input_audio.end" },
    ]);
  });

  it("keeps the upstream's error status when it is an HTTP one", async () => {
    answer = (message, peer) => {
      if (message.type === "session.update") send(peer, { type: "error", error: { message: "Rate limit exceeded", code: 429 } });
    };

    const failure = await failureOf(transcribeLive("mistral", { encoding: "pcm_s16le", sampleRate: 16_000 }, audioOf()));

    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ status: 429, message: "Rate limit exceeded" });
  });

  it("answers 502 for an error code that is no HTTP status", async () => {
    answer = (message, peer) => {
      if (message.type === "session.update") send(peer, { type: "error", error: { message: "Invalid audio format", code: 3001 } });
    };

    const failure = await failureOf(transcribeLive("mistral", { encoding: "pcm_s16le", sampleRate: 16_000 }, audioOf()));

    expect(failure).toMatchObject({ status: 502, message: "Invalid audio format" });
  });
});

describe("the connection", () => {
  it("closes the socket when the caller aborts", async () => {
    const controller = new AbortController();
    answer = (message) => {
      if (message.type === "input_audio.append") controller.abort();
    };
    /** Audio that never ends, as a client that keeps talking. */
    const endless = async function* (): AsyncGenerator<LiveAudio> {
      yield { type: "audio", data: s16([1]) };
      await new Promise(() => undefined);
    };

    const failure = await failureOf(transcribeLive("mistral", { encoding: "pcm_s16le", sampleRate: 16_000 }, endless(), { signal: controller.signal }));

    expect(failure).toMatchObject({ name: "AbortError" });
    expect(await peers[0]!.closed).toBe(1006);
  });

  it("maps a refused handshake the way HTTP failures are mapped", async () => {
    await new Promise((resolve) => server.close(resolve));
    server = new WebSocketServer({ host: "127.0.0.1", port: 0, verifyClient: (_info, done) => done(false, 401, "Unauthorized") });
    await new Promise((resolve) => server.once("listening", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const failure = await failureOf(transcribeLive("openai", { encoding: "pcm_s16le", sampleRate: 16_000 }, audioOf()));

    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ status: 502, message: expect.stringContaining("refused our credentials (HTTP 401)") });
  });

  it("times out with a 504 when the session never starts", async () => {
    await new Promise((resolve) => server.close(resolve));
    server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise((resolve) => server.once("listening", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const failure = await failureOf(transcribeLive("openai", { encoding: "pcm_s16le", sampleRate: 16_000 }, audioOf(), { timeoutMs: 200 }));

    expect(failure).toMatchObject({ status: 504, message: expect.stringContaining("did not answer within 200 ms") });
  });

  it("says so when nothing listens at the address", async () => {
    await new Promise((resolve) => server.close(resolve));
    server = new WebSocketServer({ noServer: true });

    const failure = await failureOf(transcribeLive("openai", { encoding: "pcm_s16le", sampleRate: 16_000 }, audioOf()));

    expect(failure).toMatchObject({ status: 502, message: expect.stringMatching(/^Could not reach the upstream at .* \(ECONNREFUSED\)$/) });
  });
});

import { beforeEach, describe, expect, it } from "vitest";
import { UpstreamError, type LiveAudio, type LiveTranscribeRequest, type TranscriptionEvent } from "../../../../shared/inference/types.js";
import { CLOSE_FAILED, CLOSE_NORMAL, CLOSE_POLICY, runSession, type LiveProvider, type SessionPeer } from "../../../../shared/services/realtime/session.js";
import { mockDynamo } from "../../../support/aws-mocks.js";
import { aCaller, aModelEntry, usageRecordsWritten } from "../../../support/builders.js";

const dynamo = mockDynamo({ resolves: {} });
beforeEach(() => dynamo.resetHistory());

const model = aModelEntry({ id: "voxtral-mini-transcribe-realtime-2602", aliases: [], endpoints: ["realtime_transcriptions"], upstream: "live-upstream", tokenizer: "tekken" });

/** A provider that records what it was given and answers each audio chunk with `heard`, or fails as told. */
function aLiveProvider(options: { heard?: (chunk: Buffer) => TranscriptionEvent[]; failAfter?: number } = {}) {
  const calls: { request: LiveTranscribeRequest; audio: LiveAudio[] }[] = [];
  const provider = {
    backend: "fake-live",
    async *transcribeLive(request: LiveTranscribeRequest, audio: AsyncIterable<LiveAudio>) {
      const call = { request, audio: [] as LiveAudio[] };
      calls.push(call);
      for await (const item of audio) {
        call.audio.push(item);
        if (options.failAfter !== undefined && call.audio.length > options.failAfter) throw new UpstreamError(502, "the upstream fell over");
        if (item.type === "audio") yield* options.heard?.(item.data) ?? [];
      }
    },
  } as unknown as LiveProvider;
  return { provider, calls };
}

/** A peer that keeps what was sent and how it was closed, and the client's side as a queue of messages. */
function aConnection() {
  const sent: Record<string, unknown>[] = [];
  let closed: { code: number; reason: string } | undefined;
  const inbox: string[] = [];
  let wake: (() => void) | undefined;
  const peer: SessionPeer = {
    send: async (event) => void sent.push(event),
    close: (code, reason) => {
      closed ??= { code, reason };
      wake?.();
    },
  };
  async function* messages(): AsyncGenerator<string> {
    for (;;) {
      const next = inbox.shift();
      if (next !== undefined) yield next;
      else if (closed) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  const client = (...frames: Record<string, unknown>[]) => {
    inbox.push(...frames.map((f) => JSON.stringify(f)));
    wake?.();
  };
  return { peer, sent, messages, client, closedWith: () => closed, hangUp: () => peer.close(1005, "") };
}

const append = (bytes: Buffer) => ({ type: "input_audio.append", audio: bytes.toString("base64") });
const setup = (provider: LiveProvider, extra: { language?: string; maxSeconds?: number } = {}) => ({ ctx: { caller: aCaller(), requestId: "req-1", route: "GET /v1/audio/transcriptions/realtime" }, model, provider, ...extra });

describe("runSession", () => {
  it("starts with session.created in the default format, passes audio through in order, and ends with transcription.done and a normal close", async () => {
    const { provider, calls } = aLiveProvider({ heard: (chunk) => [{ type: "text", text: `${chunk.length}b ` }] });
    const c = aConnection();
    c.client(append(Buffer.alloc(3200)), { type: "input_audio.flush" }, append(Buffer.alloc(6400)), { type: "input_audio.end" });

    await runSession(setup(provider), c.peer, c.messages());

    expect(c.sent[0]).toMatchObject({ type: "session.created", session: { model: model.id, audio_format: { encoding: "pcm_s16le", sample_rate: 16000 }, target_streaming_delay_ms: null } });
    expect(calls[0]!.request).toStrictEqual({ model: "live-upstream", format: { encoding: "pcm_s16le", sampleRate: 16000 } });
    expect(calls[0]!.audio.map((a) => (a.type === "audio" ? a.data.length : a.type))).toStrictEqual([3200, "flush", 6400]);
    expect(c.sent.filter((e) => e.type === "transcription.text.delta").map((e) => e.text)).toStrictEqual(["3200b ", "6400b "]);
    expect(c.sent.at(-1)).toMatchObject({ type: "transcription.done", model: model.id, text: "3200b 6400b ", usage: { prompt_tokens: 0, prompt_audio_seconds: 1 } });
    expect(c.closedWith()).toStrictEqual({ code: CLOSE_NORMAL, reason: "done" });
    const usage = usageRecordsWritten(dynamo).map((call) => call.args[0].input.Item);
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ model: model.id, route: "GET /v1/audio/transcriptions/realtime", status: 200, backend: "fake-live" });
  });

  it("takes a format change before the first audio (session.updated) and measures the duration in it", async () => {
    const { provider, calls } = aLiveProvider();
    const c = aConnection();
    c.client({ type: "session.update", session: { audio_format: { encoding: "pcm_f32le", sample_rate: 8000 } } }, append(Buffer.alloc(8000 * 4 * 3)), { type: "input_audio.end" });

    await runSession(setup(provider, { language: "fr" }), c.peer, c.messages());

    expect(c.sent[1]).toMatchObject({ type: "session.updated", session: { audio_format: { encoding: "pcm_f32le", sample_rate: 8000 } } });
    expect(calls[0]!.request).toStrictEqual({ model: "live-upstream", format: { encoding: "pcm_f32le", sampleRate: 8000 }, language: "fr" });
    expect(c.sent.at(-1)).toMatchObject({ type: "transcription.done", language: "fr", usage: { prompt_audio_seconds: 3 } });
  });

  it("keeps a sample split across two messages whole", async () => {
    const { provider, calls } = aLiveProvider();
    const c = aConnection();
    c.client(append(Buffer.from([1, 2, 3])), append(Buffer.from([4, 5, 6, 7])), { type: "input_audio.end" });

    await runSession(setup(provider), c.peer, c.messages());

    expect(calls[0]!.audio.map((a) => (a.type === "audio" ? [...a.data] : a.type))).toStrictEqual([[1, 2], [3, 4, 5, 6]]);
  });

  it("answers a bad message with an error event and goes on: not JSON (400), unknown type or bad audio (422), a format change after audio (409)", async () => {
    const { provider } = aLiveProvider();
    const c = aConnection();
    c.client(append(Buffer.alloc(320)), { type: "input_audio.rewind" }, { type: "input_audio.append", audio: "not base64!" }, { type: "session.update", session: { audio_format: { encoding: "pcm_alaw", sample_rate: 8000 } } }, { type: "input_audio.end" });
    const messages = c.messages();
    const withGarbage = (async function* () {
      yield "{not json";
      yield* messages;
    })();

    await runSession(setup(provider), c.peer, withGarbage);

    const errors = c.sent.filter((e) => e.type === "error").map((e) => (e.error as { code: number }).code);
    expect(errors).toStrictEqual([400, 422, 422, 409]);
    expect(c.sent.at(-1)?.type).toBe("transcription.done");
    expect(c.closedWith()?.code).toBe(CLOSE_NORMAL);
  });

  it("ends the session on a provider failure: an error event with its status, a failure close, the usage recorded with that status", async () => {
    const { provider } = aLiveProvider({ failAfter: 0 });
    const c = aConnection();
    c.client(append(Buffer.alloc(320)));

    await runSession(setup(provider), c.peer, c.messages());

    expect(c.sent.at(-1)).toStrictEqual({ type: "error", error: { message: "the upstream fell over", code: 502 } });
    expect(c.closedWith()?.code).toBe(CLOSE_FAILED);
    expect(usageRecordsWritten(dynamo).map((call) => call.args[0].input.Item.status)).toStrictEqual([502]);
  });

  it("closes a session that outlives its limit with a 408 error event", async () => {
    const { provider } = aLiveProvider();
    const c = aConnection();
    c.client(append(Buffer.alloc(320)));

    await runSession(setup(provider, { maxSeconds: 0.05 }), c.peer, c.messages());

    expect(c.sent.at(-1)).toMatchObject({ type: "error", error: { code: 408 } });
    expect(c.closedWith()?.code).toBe(CLOSE_POLICY);
  });

  it("records what was heard when the client hangs up without ending its audio, and sends nothing more", async () => {
    const { provider } = aLiveProvider({ heard: () => [{ type: "text", text: "hello" }] });
    const c = aConnection();
    c.client(append(Buffer.alloc(320)));
    setTimeout(() => c.hangUp(), 20);

    await runSession(setup(provider), c.peer, c.messages());

    expect(c.sent.some((e) => e.type === "transcription.done")).toBe(false);
    expect(usageRecordsWritten(dynamo).map((call) => call.args[0].input.Item.status)).toStrictEqual([499]);
  });
});

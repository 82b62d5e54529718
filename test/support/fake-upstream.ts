import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { PROVIDERS_ENV } from "../../shared/inference/registry.js";
import { within } from "./inference-client.js";

/**
 * A scriptable HTTP upstream on 127.0.0.1 for provider tests: records every request and answers each with the
 * next scripted reply (JSON, text, SSE written frame by frame, a stream the test drives, or no answer at all).
 *
 *   const upstream = await FakeUpstream.start();
 *   upstream.reply(json({ choices: [...] }), sse([{ choices: [...] }], { delayMs: 10 }));
 *   ... upstream.requests[0].body ...
 *   await upstream.close();
 */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  body: unknown;
  /** Resolves when the client closes the connection before the reply was complete (an aborted request). */
  disconnected: Promise<void>;
}

interface ReplyHead {
  status?: number;
  headers?: Record<string, string>;
}

export type UpstreamReply =
  | ({ kind: "body"; body: string; contentType: string } & ReplyHead)
  | ({ kind: "sse"; pieces: string[]; delayMs: number } & ReplyHead)
  | { kind: "manual"; stream: ManualSse }
  | { kind: "hang" }
  | { kind: "drop" };

export type ReplyScript = UpstreamReply | ((request: RecordedRequest) => UpstreamReply);

/** A JSON reply (status 200 unless told). */
export function json(body: unknown, head: ReplyHead = {}): UpstreamReply {
  return { kind: "body", body: JSON.stringify(body), contentType: "application/json", ...head };
}

/** A plain-text reply (status 200 unless told). */
export function text(body: string, head: ReplyHead = {}): UpstreamReply {
  return { kind: "body", body, contentType: "text/plain", ...head };
}

/** One SSE event carrying `value` (JSON-encoded unless it is a string) as its data. */
export function sseEvent(value: unknown): string {
  return `data: ${typeof value === "string" ? value : JSON.stringify(value)}\n\n`;
}

/**
 * An SSE reply written piece by piece, `delayMs` apart. Objects become `data:` events; strings are written
 * verbatim (raw SSE text: comments, `\r\n`, split frames, malformed data). `data: [DONE]` ends it unless `done: false`.
 */
export function sse(events: unknown[], options: ReplyHead & { delayMs?: number; done?: boolean } = {}): UpstreamReply {
  const pieces = events.map((event) => (typeof event === "string" ? event : sseEvent(event)));
  if (options.done !== false) pieces.push(sseEvent("[DONE]"));
  return { kind: "sse", pieces, delayMs: options.delayMs ?? 0, status: options.status, headers: options.headers };
}

/** Never answers; the connection stays open until the client gives up or the upstream closes. */
export function hang(): UpstreamReply {
  return { kind: "hang" };
}

/** Closes the connection without answering. */
export function drop(): UpstreamReply {
  return { kind: "drop" };
}

/** An SSE reply the test writes itself, one piece at a time (`manual.reply` goes into `upstream.reply`). */
export class ManualSse {
  readonly reply: UpstreamReply = { kind: "manual", stream: this };
  private response: ServerResponse | undefined;
  private readonly pending: string[] = [];
  private ended = false;
  private resolveOpened!: () => void;
  /** Resolves once the request arrived and the SSE headers went out. */
  readonly opened = new Promise<void>((resolve) => (this.resolveOpened = resolve));

  /** Sends one event (see `sseEvent`); resolves once it is handed to the socket. */
  send(value: unknown): Promise<void> {
    return this.write(sseEvent(value));
  }

  /** Writes raw SSE text. */
  write(raw: string): Promise<void> {
    if (!this.response) {
      this.pending.push(raw);
      return Promise.resolve();
    }
    const response = this.response;
    return new Promise((resolve) => response.write(raw, () => resolve()));
  }

  /** Sends `data: [DONE]` (unless `done: false`) and ends the response. */
  async end(options: { done?: boolean } = {}): Promise<void> {
    if (options.done !== false) await this.write(sseEvent("[DONE]"));
    this.ended = true;
    this.response?.end();
  }

  /** Cuts the connection mid-response (no clean end of the chunked body). */
  cut(): void {
    this.response?.socket?.destroy();
  }

  /** @internal called by the server when the request arrives. */
  attach(response: ServerResponse): void {
    this.response = response;
    for (const raw of this.pending.splice(0)) response.write(raw);
    if (this.ended) response.end();
    this.resolveOpened();
  }
}

export class FakeUpstream {
  readonly requests: RecordedRequest[] = [];
  private readonly script: ReplyScript[] = [];
  private readonly waiters: { count: number; resolve: () => void }[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeUpstream> {
    const server = createServer();
    const upstream = new FakeUpstream(server);
    server.on("request", (request: IncomingMessage, response: ServerResponse) => void upstream.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return upstream;
  }

  /** `http://127.0.0.1:<port>`, no trailing slash. */
  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** Queues replies, used one per request in order; with none left the upstream answers 500. */
  reply(...replies: ReplyScript[]): this {
    this.script.push(...replies);
    return this;
  }

  /** Resolves once `count` requests have arrived in total. */
  waitForRequests(count = 1): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString("utf8");
    let body: unknown;
    try {
      body = rawBody ? JSON.parse(rawBody) : undefined;
    } catch {
      body = undefined;
    }
    const disconnected = new Promise<void>((resolve) => {
      response.on("close", () => {
        if (!response.writableFinished) resolve();
      });
    });
    const recorded: RecordedRequest = { method: request.method ?? "", path: request.url ?? "", headers: request.headers, rawBody, body, disconnected };
    this.requests.push(recorded);
    for (const waiter of this.waiters.filter((w) => this.requests.length >= w.count)) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }

    const next = this.script.shift();
    const reply = typeof next === "function" ? next(recorded) : (next ?? json({ message: "fake upstream: no scripted reply" }, { status: 500 }));
    switch (reply.kind) {
      case "body":
        response.writeHead(reply.status ?? 200, { "content-type": reply.contentType, ...reply.headers });
        response.end(reply.body);
        return;
      case "sse":
        response.writeHead(reply.status ?? 200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...reply.headers });
        response.flushHeaders();
        for (const [i, piece] of reply.pieces.entries()) {
          if (i > 0 && reply.delayMs > 0) await sleep(reply.delayMs);
          if (response.destroyed) return;
          response.write(piece);
        }
        response.end();
        return;
      case "manual":
        response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        response.flushHeaders();
        reply.stream.attach(response);
        return;
      case "hang":
        return;
      case "drop":
        request.socket.destroy();
        return;
    }
  }
}

/** This file's fake upstream, as tests use it: script replies, and read what the running test sent. */
export interface FileUpstream {
  reply(...replies: ReplyScript[]): FakeUpstream;
  /** The `n`th upstream request of the running test (0-based), once it has arrived. */
  requestOfTest(n?: number): Promise<RecordedRequest>;
}

/**
 * A FakeUpstream for this file, configured as the `upstream` provider (openai-compatible, Mistral dialect)
 * through INFERENCE_PROVIDERS before the file's first model call: the registry reads it once per process,
 * and each file has its own module graph. The variable is restored after the last test. Call it before
 * useEmbeddedApi, so the API starts with the provider in place.
 */
export function useFakeUpstream(): FileUpstream {
  const providersBefore = process.env[PROVIDERS_ENV];
  let fake: FakeUpstream | undefined;
  /** How many upstream requests earlier tests made: this test's first is `requests[seen]`. */
  let seen = 0;
  const started = () => {
    if (!fake) throw new Error("The fake upstream is not there yet: use it inside a test or a hook");
    return fake;
  };
  beforeAll(async () => {
    fake = await FakeUpstream.start();
    const providers = JSON.parse(providersBefore ?? "{}") as Record<string, unknown>;
    process.env[PROVIDERS_ENV] = JSON.stringify({ ...providers, upstream: { type: "openai-compatible", baseUrl: fake.url, dialect: "mistral" } });
  });
  afterAll(async () => {
    await fake?.close();
    if (providersBefore === undefined) delete process.env[PROVIDERS_ENV];
    else process.env[PROVIDERS_ENV] = providersBefore;
  });
  beforeEach(() => {
    seen = started().requests.length;
  });
  return {
    reply: (...replies) => started().reply(...replies),
    async requestOfTest(n = 0) {
      await within(started().waitForRequests(seen + n + 1), `upstream request ${n + 1}`);
      return started().requests[seen + n]!;
    },
  };
}

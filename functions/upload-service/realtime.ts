/**
 * The realtime transcription socket (`GET /v1/audio/transcriptions/realtime`, docs/audio.md "Realtime"): the HTTP
 * upgrade is authenticated before a socket exists (an unknown credential is a plain 401, as API Gateway answers), then
 * the session runs (shared/services/realtime/session.ts). What is wrong with an authenticated request (its model, its
 * permission, its rate) is told on the socket as the SDK expects it: an `error` event, then the close.
 *
 * Credentials: `Authorization: Bearer <API key or client secret>` (what the SDK sends), or, from a browser, a client
 * secret offered as a subprotocol (`Sec-WebSocket-Protocol: realtime, rt_…`); the server selects `realtime` and never
 * echoes the secret. Served by the container (main.ts) and by `npm start` (infra/local/server.ts) alike.
 */
import { randomUUID } from "node:crypto";
import { STATUS_CODES, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { ApiError, asApiError } from "../../shared/domain/errors.js";
import { errorBody } from "../../shared/http/errors.js";
import { gatewayAnswers, type GatewayAnswer } from "../../shared/http/gateway.js";
import { logger } from "../../shared/observability/logger.js";
import { admitSession, authenticate, type Authenticated } from "../../shared/services/realtime/admission.js";
import { CLOSE_POLICY, errorEvent, runSession, type SessionSetup } from "../../shared/services/realtime/session.js";
import { headerReader, normalPath, REALTIME_PATH, REALTIME_PERMISSION } from "./routes.js";

/** The subprotocol a browser offers beside its client secret, and the one the server selects. */
export const REALTIME_SUBPROTOCOL = "realtime";
/** A base64 frame of 1 MiB of audio plus its JSON envelope (the schema refuses more audio than that). */
const MAX_MESSAGE_BYTES = 1.5 * 1024 * 1024;
/** Frames read ahead of the session before the socket stops reading (TCP then holds the client back). */
const READ_AHEAD = 16;
/** Below the load balancer's idle timeout (120 s) and CloudFront's (10 min): a quiet session stays open. */
const PING_MS = 30_000;
/** Sessions one task holds at most (each holds a provider stream): more get a 503 and go to another task. */
const DEFAULT_MAX_SESSIONS = 200;

export interface RealtimeSocketOptions {
  maxSessions?: number;
  /** Overrides a session's longest life (tests). */
  maxSeconds?: number;
}

const AT_CAPACITY: GatewayAnswer = { status: 503, body: errorBody(503, "server_error", "This server holds as many realtime sessions as it can; retry", "capacity") };

type Admission = { ok: true; setup: SessionSetup } | { ok: false; error: ApiError };

export function realtimeSockets(options: RealtimeSocketOptions = {}) {
  const server = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
    handleProtocols: (offered) => (offered.has(REALTIME_SUBPROTOCOL) ? REALTIME_SUBPROTOCOL : false),
  });
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  /** Sessions under way, until their usage is recorded: what a shutdown waits for. */
  const running = new Set<Promise<void>>();

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const requestId = randomUUID();
    socket.on("error", () => undefined);
    const url = new URL(req.url ?? "/", "http://socket");
    if (normalPath(url.pathname) !== REALTIME_PATH) return refuse(socket, gatewayAnswers.MISSING_AUTHENTICATION_TOKEN);
    if (server.clients.size >= maxSessions) return refuse(socket, AT_CAPACITY);
    let who: Authenticated | undefined;
    try {
      who = await authenticate(headerReader(req));
    } catch (error) {
      logger.error("realtime authentication failed", { requestId, error: error as Error });
      return refuse(socket, gatewayAnswers.AUTHORIZER_FAILURE);
    }
    if (!who) return refuse(socket, gatewayAnswers.UNAUTHORIZED);
    const policy = { permission: REALTIME_PERMISSION, route: `GET ${REALTIME_PATH}`, maxSeconds: options.maxSeconds };
    const admission = await admitSession(who, url.searchParams, requestId, policy).then(
      (setup): Admission => ({ ok: true, setup }),
      (error): Admission => ({ ok: false, error: asApiError(error) }),
    );
    server.handleUpgrade(req, socket, head, (ws) => void serve(ws, admission, requestId));
  }

  async function serve(ws: WebSocket, admission: Admission, requestId: string): Promise<void> {
    if (!admission.ok) {
      const { status, message } = admission.error;
      ws.send(JSON.stringify(errorEvent(status, message)), () => ws.close(CLOSE_POLICY, message.slice(0, 120)));
      logger.info("realtime session refused", { requestId, status });
      return;
    }
    const started = Date.now();
    const { caller } = admission.setup.ctx;
    logger.info("realtime session opened", { requestId, workspace: caller.workspace, model: admission.setup.model.id });
    const ping = setInterval(() => ws.ping(), PING_MS);
    ping.unref();
    const session = runSession(admission.setup, peerOf(ws), messagesOf(ws));
    running.add(session);
    try {
      await session;
    } finally {
      running.delete(session);
      clearInterval(ping);
      logger.info("realtime session closed", { requestId, workspace: caller.workspace, seconds: Math.round((Date.now() - started) / 1000) });
    }
  }

  return {
    upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void upgrade(req, socket, head),
    /**
     * Open sessions, each told the server is going away (1001): a task stopping, `npm start` shutting down. Resolves
     * once every session has recorded its usage.
     */
    async closeAll(): Promise<void> {
      for (const ws of server.clients) ws.close(1001, "server going away");
      await Promise.all(running);
    },
    get sessions(): number {
      return server.clients.size;
    },
  };
}

function peerOf(ws: WebSocket) {
  return {
    send: (event: Record<string, unknown>) =>
      new Promise<void>((resolve, reject) => {
        if (ws.readyState !== ws.OPEN) return resolve();
        ws.send(JSON.stringify(event), (error) => (error ? reject(error) : resolve()));
      }),
    close: (code: number, reason: string) => ws.close(code, reason),
  };
}

/**
 * The client's text frames in order; the socket stops reading while the session is READ_AHEAD frames behind. The
 * listeners are attached now, not at the first read: the SDK sends `session.update` as soon as `session.created`
 * arrives, while the session may still be admitting the call.
 */
function messagesOf(ws: WebSocket): AsyncIterable<string> {
  const queue: string[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  ws.on("message", (data) => {
    queue.push(Array.isArray(data) ? Buffer.concat(data).toString("utf8") : Buffer.from(data as ArrayBuffer).toString("utf8"));
    if (queue.length >= READ_AHEAD) ws.pause();
    notify();
  });
  ws.on("close", () => {
    closed = true;
    notify();
  });
  return {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const next = queue.shift();
        if (next !== undefined) {
          if (queue.length < READ_AHEAD / 4) ws.resume();
          yield next;
          continue;
        }
        if (closed) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

/** An HTTP answer instead of the upgrade, then the connection closes. */
function refuse(socket: Duplex, answer: GatewayAnswer): void {
  const body = JSON.stringify(answer.body);
  socket.end(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? "Error"}\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

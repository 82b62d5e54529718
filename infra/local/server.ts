import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from "aws-lambda";
import { DEFAULT_MEMORY_MB } from "../../functions/route-row.js";
import { UPLOAD_ROUTE_KEYS } from "../../functions/upload-service/routes.js";
import { authorizer, handlerModule, routes, type RouteRow } from "../../functions/routes.js";
import { routeKey } from "../../shared/http/policy.js";
import { corsOrigins, gatewayCorsHeaders, preflightHeaders } from "../../shared/http/cors.js";
import { BINARY_MEDIA_TYPES, LAMBDA_EVENT_MAX_BYTES, gatewayAnswers, methodNotAllowed, type GatewayAnswer, type GatewayAnswerType } from "../../shared/http/gateway.js";
import { bookkeepingSettled } from "../../shared/observability/after-answer.js";
import { inInvocation } from "./invoke-store.js";
import { installLambdaStreaming, ResponseStream, type Metadata } from "./lambda-streaming.js";
import { routeMatcher } from "./route-matcher.js";

type StreamingHandler = (event: APIGatewayProxyEvent, stream: ResponseStream, context: Context) => Promise<void>;

// Before any handler runs: the chains of streaming rows wrap themselves with awslambda.streamifyResponse.
installLambdaStreaming();

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

export interface ApiServerOptions {
  port: number;
  /** Default 127.0.0.1; `0.0.0.0` (or `::`) listens on every interface, for a container or a VM. */
  host?: string;
  /** One line per request on stdout: time, method, path (never the query), status, latency, request id. */
  accessLog?: boolean;
  /** Seconds an authorizer answer is reused per Authorization header (API Gateway's cache); 0 turns it off. */
  authorizerCacheSeconds: number;
  rootDir: string;
  /**
   * `POST /v1/files` and `POST /v1/libraries/{library_id}/documents` through the streaming upload service (the
   * default: what a deployment with the upload distribution serves, files to 512 MB, documents to 100 MiB), or
   * `lambda` for the inline Lambda routes alone (about 4 MB).
   */
  uploads?: "stream" | "lambda";
  /**
   * Serve the authorizer and the route handlers from these esbuild bundles (`<handler>/index.mjs`, infra/local/bundles.ts)
   * instead of the TypeScript modules: what `cdk deploy` ships (`npm start -- --bundled`).
   */
  bundles?: string;
}

export interface RunningApi {
  url: string;
  server: Server;
  stop(): Promise<void>;
}

/** API Gateway refuses larger requests before Lambda sees them. */
const GATEWAY_MAX_BYTES = 10 * 1024 * 1024;

/**
 * Serves the route table the way API Gateway REST + Lambda proxy would: the same proxy event (binary
 * bodies base64), the REQUEST authorizer first, then the row's handler module, its result written back.
 */
export async function startApiServer(options: ApiServerOptions): Promise<RunningApi> {
  const match = routeMatcher(routes);
  const modules = new Map<string, Promise<{ handler: unknown }>>();
  const load = (handler: string) => {
    const file = options.bundles ? join(options.bundles, handler, "index.mjs") : join(options.rootDir, handlerModule(handler));
    if (!modules.has(handler)) modules.set(handler, import(pathToFileURL(file).href));
    return modules.get(handler)!;
  };
  const authCache = new Map<string, { at: number; context: Record<string, string> }>();
  // Loaded when first needed, as the handler modules are: its SDK clients read the environment the stack set.
  let uploads: Promise<(req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void>> | undefined;
  const streamsUpload = (row: RouteRow) => options.uploads !== "lambda" && (UPLOAD_ROUTE_KEYS as readonly string[]).includes(routeKey(row));

  async function authorize(event: APIGatewayProxyEvent, row: RouteRow): Promise<Record<string, string> | GatewayAnswerType> {
    const header = event.headers.Authorization ?? event.headers.authorization ?? (row.keyHeader ? apiKeyHeader(event) : undefined);
    if (!header) return "UNAUTHORIZED";
    const cached = authCache.get(header);
    if (cached && Date.now() - cached.at < options.authorizerCacheSeconds * 1000) return cached.context;
    const { handler } = (await load(authorizer.handler)) as { handler: AuthorizerHandler };
    let result: APIGatewayAuthorizerResult;
    try {
      result = await inInvocation(event.requestContext.requestId, () => handler({
        type: "REQUEST",
        methodArn: `arn:aws:execute-api:local:000000000000:local/local/${row.method}${event.path}`,
        resource: event.resource,
        path: event.path,
        httpMethod: row.method,
        headers: event.headers as Record<string, string>,
        multiValueHeaders: event.multiValueHeaders as Record<string, string[]>,
        pathParameters: event.pathParameters,
        queryStringParameters: event.queryStringParameters as Record<string, string> | null,
        multiValueQueryStringParameters: event.multiValueQueryStringParameters as Record<string, string[]> | null,
        stageVariables: null,
        requestContext: event.requestContext,
      } as APIGatewayRequestAuthorizerEvent));
    } catch (error) {
      return (error as Error).message === "Unauthorized" ? "UNAUTHORIZED" : "AUTHORIZER_FAILURE";
    }
    if (result.policyDocument.Statement.some((s) => "Effect" in s && s.Effect !== "Allow")) return "ACCESS_DENIED";
    const context = { ...(result.context as Record<string, string>), principalId: result.principalId };
    if (options.authorizerCacheSeconds > 0) authCache.set(header, { at: Date.now(), context });
    return context;
  }

  async function serve(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const url = new URL(req.url ?? "/", "http://local");
    const found = match(req.method ?? "GET", url.pathname);
    if (!found.row && found.methodMismatch) {
      // API Gateway's OPTIONS mock when CORS is on (a preflight), its ANY mock otherwise: 405 with Allow.
      if (req.method === "OPTIONS" && corsOrigins()) {
        res.writeHead(204, { ...preflightHeaders(req.headers, found.allowed), "x-request-id": requestId });
        return void res.end();
      }
      return answer(res, requestId, methodNotAllowed(found.allowed), req);
    }
    if (!found.row) return answer(res, requestId, "MISSING_AUTHENTICATION_TOKEN", req);
    // As the deployment's CloudFront function sends it: to the upload service, which streams the body.
    if (streamsUpload(found.row)) {
      uploads ??= import("../../functions/upload-service/server.js").then((m) => m.uploadService());
      return (await uploads)(req, res, requestId);
    }
    const body = await readBody(req, GATEWAY_MAX_BYTES);
    if (body === "too_large") return answer(res, requestId, "REQUEST_TOO_LARGE", req);
    const event = toProxyEvent(req, url, found, body, requestId, options);
    if (event.body && Buffer.byteLength(event.body) > LAMBDA_EVENT_MAX_BYTES) return answer(res, requestId, "REQUEST_TOO_LARGE", req);
    if (found.row.auth !== "public") {
      const auth = await authorize(event, found.row);
      if (typeof auth === "string") return answer(res, requestId, auth, req);
      event.requestContext.authorizer = auth;
    }
    // Lambda has no such signal; locally a client that goes away stops the model call it started.
    const disconnected = new AbortController();
    res.once("close", () => res.writableFinished || disconnected.abort());
    Object.assign(event, { signal: disconnected.signal });
    // Locally, a read of what model calls write after their answers (usage, spans) sees every answer given so
    // far: deterministic for tests and users. In the cloud those writes land milliseconds after the answer.
    if (readsBookkeeping(found.row)) await bookkeepingSettled({ answeredOnly: true });
    const { handler } = (await load(found.row.handler)) as { handler: ProxyHandler | StreamingHandler };
    if (found.row.streaming) return inInvocation(requestId, () => serveStream(handler as StreamingHandler, event, res, lambdaContext(found.row, requestId)));
    const result = await inInvocation(requestId, () => (handler as ProxyHandler)(event, lambdaContext(found.row, requestId)));
    writeResult(res, result);
  }

  const server = createServer((req, res) => {
    const requestId = randomUUID();
    if (options.accessLog) logAccess(req, res, requestId);
    serve(req, res, requestId).catch((error: unknown) => {
      console.error("local api: request failed", error);
      if (!res.headersSent) answer(res, requestId, "DEFAULT_5XX", req);
      else res.end();
    });
  });
  // The realtime transcription socket, as the deployment's streaming service serves it (loaded on the first upgrade).
  let sockets: Promise<ReturnType<typeof import("../../functions/upload-service/realtime.js").realtimeSockets>> | undefined;
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    sockets ??= import("../../functions/upload-service/realtime.js").then((m) => m.realtimeSockets());
    sockets.then((s) => s.upgrade(req, socket, head)).catch((error: unknown) => {
      console.error("local api: upgrade failed", error);
      socket.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(error.code === "EADDRINUSE" ? new Error(`Port ${options.port} is in use: set PORT to a free port`) : error),
    );
    server.listen(options.port, options.host ?? "127.0.0.1", resolve);
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const host = options.host ?? "127.0.0.1";
  // A wildcard address is where it listens, not where a client connects: name the loopback then.
  const reachable = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${reachable}:${port}`,
    server,
    stop: async () => {
      const closed = new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // Realtime sessions are told to go and write their usage before the backends stop.
      await Promise.all([closed, sockets?.then((s) => s.closeAll())]);
    },
  };
}

/** Rows that read the usage or telemetry tables without calling a model themselves. */
const readsBookkeeping = (row: RouteRow): boolean => !row.grants.models && Boolean(row.grants.tables?.usage || row.grants.tables?.telemetry || row.grants.telemetry);

/** Written when the response is done (or the client went away): the path only, as query strings can hold tokens. */
function logAccess(req: IncomingMessage, res: ServerResponse, requestId: string): void {
  const started = process.hrtime.bigint();
  const path = (req.url ?? "/").split("?")[0];
  res.once("close", () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const status = res.writableFinished ? String(res.statusCode) : `${res.headersSent ? res.statusCode : 499} (client closed)`;
    process.stdout.write(`${new Date().toISOString()} ${req.method} ${path} ${status} ${ms.toFixed(1)}ms ${requestId}\n`);
  });
}

async function readBody(req: IncomingMessage, max: number): Promise<Buffer | "too_large"> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) {
      req.resume();
      return "too_large";
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function toProxyEvent(
  req: IncomingMessage,
  url: URL,
  { row, resource, pathParameters }: { row: RouteRow; resource: string; pathParameters: Record<string, string> },
  body: Buffer,
  requestId: string,
  options: ApiServerOptions,
): APIGatewayProxyEvent {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const value = req.rawHeaders[i + 1]!;
    headers[name] = value;
    (multiValueHeaders[name] ??= []).push(value);
  }
  headers["X-Forwarded-Proto"] ??= "http";
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [key, value] of url.searchParams) {
    query[key] = value;
    (multiQuery[key] ??= []).push(value);
  }
  const contentType = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  const binary = BINARY_MEDIA_TYPES.includes(contentType);
  const hasBody = body.length > 0;
  // API Gateway's resource path and its parameter names, not the row's (one variable name per level: decision 0032).
  return {
    resource,
    path: url.pathname,
    httpMethod: row.method,
    headers,
    multiValueHeaders,
    queryStringParameters: Object.keys(query).length ? query : null,
    multiValueQueryStringParameters: Object.keys(multiQuery).length ? multiQuery : null,
    pathParameters: Object.keys(pathParameters).length ? pathParameters : null,
    stageVariables: null,
    body: hasBody ? body.toString(binary ? "base64" : "utf8") : null,
    isBase64Encoded: hasBody && binary,
    requestContext: {
      accountId: "000000000000",
      apiId: "local",
      authorizer: null,
      domainName: req.headers.host ?? `127.0.0.1:${options.port}`,
      httpMethod: row.method,
      identity: { sourceIp: req.socket.remoteAddress ?? "127.0.0.1", userAgent: req.headers["user-agent"] ?? null } as APIGatewayProxyEvent["requestContext"]["identity"],
      path: url.pathname,
      protocol: `HTTP/${req.httpVersion}`,
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: "local",
      resourcePath: resource,
      stage: "local",
    },
  };
}

/** The `x-api-key` header whatever its case, for rows that take the key there (cached apart from bearer keys). */
function apiKeyHeader(event: APIGatewayProxyEvent): string | undefined {
  const value = Object.entries(event.headers).find(([name]) => name.toLowerCase() === "x-api-key")?.[1];
  return value ? `x-api-key ${value}` : undefined;
}

function lambdaContext(row: RouteRow, requestId: string): Context {
  const deadline = Date.now() + (row.streaming ? 900_000 : 29_000);
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `local-${row.handler.replace("/", "-")}`,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:local-${row.handler.replace("/", "-")}`,
    memoryLimitInMB: String(row.memoryMb ?? DEFAULT_MEMORY_MB),
    awsRequestId: requestId,
    logGroupName: "local",
    logStreamName: "local",
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * A streaming row's answer, each chunk written as the handler produces it, as API Gateway's STREAM mode does.
 * The headers go before the first body byte, as Lambda's prelude does; what the handler writes in the same turn
 * as its headers is held and sent with them at the next turn, or, when the answer ends in that turn (a plain
 * answer), headers, body and end in one write to the socket instead of three (docs/benchmarks.md §29). A stream
 * whose next chunk waits on the upstream has its headers sent then.
 */
async function serveStream(handler: StreamingHandler, event: APIGatewayProxyEvent, res: ServerResponse, context: Context): Promise<void> {
  let held: { metadata?: Metadata; chunks: Buffer[]; scheduled?: boolean } | undefined = { chunks: [] };
  const head = (metadata?: Metadata): void => {
    if (!res.headersSent) res.writeHead(metadata?.statusCode ?? 200, metadata?.headers ?? {});
  };
  const hold = () => {
    if (held && !held.scheduled) {
      held.scheduled = true;
      setImmediate(release);
    }
  };
  // The turn ended with the answer still open: headers and what came with them go now.
  const release = () => {
    if (!held || res.writableEnded || res.destroyed) return;
    const { metadata, chunks } = held;
    held = undefined;
    head(metadata);
    if (chunks.length) res.write(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    else res.flushHeaders();
  };
  // As Lambda's runtime does: the response ends with the handler's stream, before the invocation ends
  // (its bookkeeping runs after the answer: decision 0045).
  const finish = () => {
    if (res.writableEnded) return;
    const pending = held;
    held = undefined;
    head(pending?.metadata);
    res.end(pending?.chunks.length ? Buffer.concat(pending.chunks) : undefined);
  };
  const stream = new ResponseStream(
    (metadata) => {
      if (held) {
        held.metadata = metadata;
        return hold();
      }
      head(metadata);
      res.flushHeaders();
    },
    (chunk) => {
      if (held) {
        held.chunks.push(chunk);
        return hold();
      }
      head();
      res.write(chunk);
    },
    finish,
  );
  await handler(event, stream, context);
  finish();
}

function writeResult(res: ServerResponse, result: APIGatewayProxyResult): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  const body = result.isBase64Encoded ? Buffer.from(result.body, "base64") : Buffer.from(result.body ?? "", "utf8");
  res.writeHead(result.statusCode, headers);
  res.end(body);
}

/** An answer API Gateway makes itself: a gateway response (with its CORS headers when CORS is on), or the 405 mock. */
function answer(res: ServerResponse, requestId: string, type: GatewayAnswerType | (GatewayAnswer & { headers?: Record<string, string> }), req: IncomingMessage): void {
  const { status, body, headers } = typeof type === "string" ? { ...gatewayAnswers[type], headers: {} } : type;
  res.writeHead(status, { "content-type": "application/json", ...headers, ...gatewayCorsHeaders(req.headers), "x-request-id": requestId });
  res.end(JSON.stringify(body));
}

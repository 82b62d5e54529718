import { Readable } from "node:stream";
import middy from "@middy/core";
import httpHeaderNormalizer from "@middy/http-header-normalizer";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from "aws-lambda";
import * as z from "zod";
import type { Caller } from "../domain/caller.js";
import { ClientClosedRequest, Forbidden } from "../domain/errors.js";
import { permits } from "../domain/identity/permissions.js";
import { validated, type Location } from "../domain/validation.js";
import { withChangeOrigin, type ChangeOrigin } from "../observability/change-origin.js";
import { logger } from "../observability/logger.js";
import { answerFirst } from "../observability/after-answer.js";
import { requestMetricFields } from "../observability/signals.js";
import { jsonBody, optionalJsonBody, type BodyParser } from "./body.js";
import { callerFrom } from "./caller.js";
import { corsHeaders } from "./cors.js";
import { renderError } from "./errors.js";
import { routeKey, ROUTE_KEY_ENV, type RoutePolicy } from "./policy.js";
import { queryObject } from "./query.js";
import { fair } from "./fair-stream.js";
import { Reply } from "./reply.js";
import { renameParameters } from "./resource-paths.js";

type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a handler declares: its inputs and output. Its policy (auth, errors, streaming) is its route-table row's. */
export interface RouteSpec<P extends Schema | undefined, Q extends Schema | undefined, B extends Schema | undefined> {
  params?: P;
  query?: Q;
  /** Body schema: of the JSON body, or with `parser` of what that parser produced (e.g. a multipart form). */
  body?: B;
  /** A body parser other than JSON, e.g. `multipartForm` (shared/http/multipart.ts). */
  parser?: BodyParser;
  /** The JSON body may be left out altogether (no content type needed then); `body` then sees undefined. */
  optionalBody?: true;
  /** Shapes a plain return value into the wire body (unknown fields are dropped). */
  response?: Schema;
  /** Documents the success body of a handler that builds its reply itself (`Reply.json(201, …)`); only the OpenAPI document reads it. */
  returns?: Schema;
}

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** Who is calling; public rows have none. */
  caller: Caller;
  event: APIGatewayProxyEvent;
  requestId: string;
  /** The row's "METHOD path", e.g. for usage records. */
  route: string;
  signal?: AbortSignal;
}

export type RouteHandler = ((event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>) & {
  /** What the handler declared, for the tests generated over the route table. */
  readonly spec?: RouteSpec<Schema | undefined, Schema | undefined, Schema | undefined>;
};

/** How the chain finds the row it serves: by API Gateway's method and resource, or by the deployed ROUTE_KEY. */
export interface RouteTable {
  byRequest(method: string, resource: string): RoutePolicy | undefined;
  byKey(key: string): RoutePolicy | undefined;
}

/**
 * Binds handlers to a route table. `route(spec, fn)` is the one way to write a handler: it declares what it
 * takes and returns, and the chain does the rest from the row (auth, body parsing, validation to 422, the
 * row's error envelope, request id, logs, streaming).
 *
 * A deployed function serves one row, named by ROUTE_KEY, and is built for it once (streamed or not, as
 * Lambda needs to know at load). The local server and the tests load handler modules in one process, so
 * there the row is looked up from each event's method and resource, exactly as API Gateway routed it.
 */
/** Checks that may refuse a caller after its auth and permission passed (e.g. per-key rate limits), bound in functions/route.ts. */
export type CallerGuard = (caller: Caller) => Promise<void>;

export function routeFactory(table: RouteTable, guards: CallerGuard[] = []) {
  return function route<P extends Schema | undefined = undefined, Q extends Schema | undefined = undefined, B extends Schema | undefined = undefined>(
    spec: RouteSpec<P, Q, B>,
    fn: (input: RouteInput<Out<P>, Out<Q>, Out<B>>) => Promise<unknown>,
  ): RouteHandler {
    const chains = new Map<string, RouteHandler>();
    const chainFor = (policy: RoutePolicy): RouteHandler => {
      const key = routeKey(policy);
      if (!chains.has(key)) chains.set(key, buildChain(policy, spec as RouteSpec<Schema, Schema, Schema>, fn as never, guards));
      return chains.get(key)!;
    };

    const deployedKey = process.env[ROUTE_KEY_ENV];
    if (deployedKey) {
      const policy = table.byKey(deployedKey);
      if (!policy) throw new Error(`${ROUTE_KEY_ENV}=${deployedKey} names no row of the route table`);
      return Object.assign(chainFor(policy), { spec });
    }
    const dispatch = (event: APIGatewayProxyEvent, ...rest: unknown[]) => {
      const policy = table.byRequest(event.httpMethod, event.resource);
      if (!policy) throw new Error(`No route-table row for ${event.httpMethod} ${event.resource}`);
      return (chainFor(policy) as (...args: unknown[]) => Promise<APIGatewayProxyResult>)(event, ...rest);
    };
    return Object.assign(dispatch, { spec }) as RouteHandler;
  };
}

function buildChain(
  policy: RoutePolicy,
  spec: RouteSpec<Schema, Schema, Schema>,
  fn: (input: RouteInput<unknown, unknown, unknown>) => Promise<unknown>,
  guards: CallerGuard[],
): RouteHandler {
  const key = routeKey(policy);
  // The caller the first middleware let through, for the handler (the body parsers keep the event object).
  const callers = new WeakMap<APIGatewayProxyEvent, Caller>();
  const core = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const caller = callers.get(event) as Caller;
    const params = parse(spec.params, event.pathParameters ?? {}, "path");
    const query = parse(spec.query, queryObject(event), "query");
    const body = parse(spec.body, event.body, "body");
    const input = { params, query, body, caller, event, requestId: requestIdOf(event), route: key, signal: signalOf(event) };
    // Changes the operation makes are the caller's, from this request (the audit log reads it); a public row's
    // are the platform's unless the operation names whom it acts for (the OAuth callback names the requester).
    const result = await withChangeOrigin(changeOriginOf(caller, event), () => fn(input));
    if (result instanceof Reply) return toResult(result);
    return toResult(Reply.json(200, spec.response ? spec.response.parse(result) : result));
  };

  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(core, { streamifyResponse: policy.streaming })
    // API Gateway names the variables of its resource tree, one name per level (shared/http/resource-paths.ts):
    // from here on the event speaks the row's path and names (`connector_id`, `workflow_name`, ...).
    .use({
      before: (request) => {
        const event = request.event;
        event.pathParameters = renameParameters(event.pathParameters as Record<string, string> | null, event.resource ?? policy.path, policy.path);
        event.resource = policy.path;
      },
    })
    // resetKeys: the request's keys (below) leave with it; the next invocation of this container starts clean.
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(accessLog(key, callers))
    .use(httpHeaderNormalizer())
    // Who may call comes before reading what they sent: a refused caller learns nothing about the body's rules.
    .use({
      before: async (request) => {
        const caller = authorized(policy, request.event);
        if (!caller) return;
        logger.appendKeys({ workspace: caller.workspace });
        for (const guard of guards) await guard(caller);
        callers.set(request.event, caller);
      },
    });
  if (spec.parser) chain.use(spec.parser());
  else if (spec.body) chain.use(spec.optionalBody ? optionalJsonBody() : jsonBody());
  chain.use({
    after: (request) => {
      request.response = withRequestId(request.response, request.event);
    },
    onError: (request) => {
      const error = signalOf(request.event)?.aborted ? new ClientClosedRequest() : request.error;
      const wire = renderError(error, policy.errors);
      if (wire.status >= 500) logger.error("request failed", { error: request.error as Error });
      else logger.info("request refused", { status: wire.status });
      request.response = withRequestId(toResult(Reply.json(wire.status, wire.body, wire.headers)), request.event);
    },
  });
  return answeringFirst(policy, chain);
}

type StreamingChain = (event: APIGatewayProxyEvent, stream: unknown, context: Context) => Promise<void>;

/**
 * The chain inside one invocation whose bookkeeping runs after the answer (decision 0045): a streaming row's
 * writes start once its response stream has ended, a plain row's once its result is settled; either way
 * before the invocation ends. A streaming row stays marked for the Lambda runtime (`streamifyResponse`).
 */
function answeringFirst(policy: RoutePolicy, chain: unknown): RouteHandler {
  if (policy.streaming) {
    const inner = chain as StreamingChain;
    const lambda = (globalThis as unknown as { awslambda: { streamifyResponse<T>(handler: T): T } }).awslambda;
    return lambda.streamifyResponse((event: APIGatewayProxyEvent, stream: unknown, context: Context) =>
      answerFirst(requestIdOf(event), (answered) => {
        // The caller's response is complete when the stream ends, before the chain's promise settles.
        (stream as { once?: (name: string, listener: () => void) => void }).once?.("finish", answered);
        return inner(event, stream, context);
      }),
    ) as unknown as RouteHandler;
  }
  const inner = chain as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
  return ((event: APIGatewayProxyEvent, context: Context) => answerFirst(requestIdOf(event), () => inner(event, context))) as RouteHandler;
}

/**
 * One structured line per request (docs/operations.md "Logs"): `request` with its status and latency, after the
 * answer is settled (errors included). The request id and route, and the workspace once the caller is known,
 * are keys of every line the request logs. Never the path's query, headers or body: they can hold tokens,
 * keys and customer content. For streamed answers the latency is to the first byte (the headers).
 */
function accessLog(route: string, callers: WeakMap<APIGatewayProxyEvent, Caller>): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  const started = new WeakMap<APIGatewayProxyEvent, number>();
  const write = (request: middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult>) => {
    const start = started.get(request.event);
    const latencyMs = start === undefined ? undefined : Math.round((performance.now() - start) * 10) / 10;
    // Its own fields, whatever else the request appended or reset: this line must stand alone.
    const workspace = callers.get(request.event)?.workspace;
    const status = request.response?.statusCode;
    // The same line carries the area's request metrics in the cloud (embedded metric format: no extra write).
    logger.info("request", { requestId: requestIdOf(request.event), route, ...(workspace ? { workspace } : {}), status, latencyMs, ...requestMetricFields(latencyMs, status) });
  };
  return {
    before: (request) => {
      started.set(request.event, performance.now());
      logger.appendKeys({ requestId: requestIdOf(request.event), route });
    },
    after: write,
    onError: write,
  };
}

/** The caller, once the row's auth and permission let it through (public rows have none). */
function authorized(policy: RoutePolicy, event: APIGatewayProxyEvent): Caller | undefined {
  if (policy.auth === "public") return undefined;
  return admitted(policy, callerFrom(event));
}

/** The row's admin and permission checks on a caller the authorizer resolved (also the upload service's, functions/upload-service). */
export function admitted(policy: Pick<RoutePolicy, "auth" | "permission">, caller: Caller): Caller {
  if (policy.auth === "admin" && !caller.admin) throw new Forbidden("This route needs an admin API key", "admin_required");
  if (policy.permission && !permits(caller, policy.permission)) {
    throw new Forbidden(`This key's roles do not allow ${policy.permission} in this workspace`, "missing_permission");
  }
  return caller;
}

function parse(schema: Schema | undefined, value: unknown, where: Location): unknown {
  return schema ? validated(schema, value ?? (where === "body" ? undefined : {}), where) : undefined;
}

function toResult(reply: Reply): APIGatewayProxyResult {
  if (reply.body !== null && typeof reply.body === "object" && Symbol.asyncIterator in reply.body) {
    // middy pipes a Readable body into the Lambda response stream (streamifyResponse); a burst of frames lets the
    // event loop take turns (fair-stream.ts).
    return { statusCode: reply.status, headers: reply.headers, body: Readable.from(fair(reply.body)) as unknown as string };
  }
  if (Buffer.isBuffer(reply.body)) {
    return { statusCode: reply.status, headers: reply.headers, body: reply.body.toString("base64"), isBase64Encoded: true };
  }
  return { statusCode: reply.status, headers: reply.headers, body: (reply.body as string | null) ?? "" };
}

/** Aborted when the client disconnects, where the runtime tells us (the local server does). */
function signalOf(event: APIGatewayProxyEvent): AbortSignal | undefined {
  return (event as { signal?: AbortSignal }).signal;
}

/**
 * Who changes what through this request and from where. Behind CloudFront the viewer is in
 * `CloudFront-Viewer-Address` (`ip:port`), with CloudFront itself as API Gateway's source; otherwise the
 * source is the viewer (locally the socket's peer). Both are kept when they differ: the header alone could be
 * sent by a client that reaches the API directly.
 */
export function changeOriginOf(caller: Caller | undefined, event: APIGatewayProxyEvent): ChangeOrigin {
  const source = event.requestContext?.identity?.sourceIp ?? undefined;
  const header = event.headers?.["cloudfront-viewer-address"] ?? event.headers?.["CloudFront-Viewer-Address"];
  const viewer = header ? header.replace(/:\d+$/, "") : undefined;
  return {
    actor: caller ? { kind: caller.principalType, id: caller.principal, keyId: caller.keyId } : { kind: "system", id: "platform" },
    origin: { via: "api", requestId: requestIdOf(event), ...(viewer ? { address: viewer, ...(source && source !== viewer ? { forwardedBy: source } : {}) } : source ? { address: source } : {}) },
  };
}

function requestIdOf(event: APIGatewayProxyEvent): string {
  return event.requestContext?.requestId ?? "local";
}

/** Every answer's request id, and its CORS headers when the deployment allows browser clients (shared/http/cors.ts). */
function withRequestId(result: APIGatewayProxyResult, event: APIGatewayProxyEvent): APIGatewayProxyResult {
  return { ...result, headers: { ...result.headers, ...corsHeaders(event.headers), "x-request-id": requestIdOf(event) } };
}

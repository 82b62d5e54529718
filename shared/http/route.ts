import { Readable } from "node:stream";
import middy from "@middy/core";
import httpHeaderNormalizer from "@middy/http-header-normalizer";
import httpJsonBodyParser from "@middy/http-json-body-parser";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from "aws-lambda";
import * as z from "zod";
import { Unprocessable } from "../domain/errors.js";
import type { Caller } from "../domain/caller.js";
import { callerFrom } from "./caller.js";
import { toWireError, zodIssues } from "./errors.js";
import { logger } from "../observability/logger.js";
import { Reply } from "./reply.js";
import { queryObject } from "./query.js";

type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteSpec<P extends Schema | undefined, Q extends Schema | undefined, B extends Schema | undefined> {
  params?: P;
  query?: Q;
  /** Body schema: of the JSON body, or with `parser` of what that parser produced (e.g. a multipart form). */
  body?: B;
  /** A body parser other than JSON, e.g. `multipartForm` (shared/http/multipart.ts). */
  parser?: () => middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult>;
  /** Shapes a plain return value into the wire body (unknown fields are dropped). */
  response?: Schema;
  /** Routes API Gateway serves without the authorizer; their handlers get no caller. */
  public?: boolean;
  /**
   * A Lambda response-streaming handler (the route table row says `streaming: true`): it may return
   * `Reply.events(...)`, written to the client frame by frame. Errors before the first frame still get
   * a normal status and body.
   */
  streaming?: boolean;
}

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  caller: Caller;
  event: APIGatewayProxyEvent;
  requestId: string;
  signal?: AbortSignal;
}

export type RouteHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/**
 * The one way to write a handler: it declares what it takes and returns, and the chain does the rest
 * (headers, body parsing, validation to 422, caller from the authorizer, error bodies, request id, logs).
 */
export function route<P extends Schema | undefined = undefined, Q extends Schema | undefined = undefined, B extends Schema | undefined = undefined>(
  spec: RouteSpec<P, Q, B>,
  fn: (input: RouteInput<Out<P>, Out<Q>, Out<B>>) => Promise<unknown>,
): RouteHandler {
  const core = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const caller = spec.public ? (undefined as unknown as Caller) : callerFrom(event);
    const params = parse(spec.params, event.pathParameters ?? {}, "path");
    const query = parse(spec.query, queryObject(event), "query");
    const body = parse(spec.body, event.body, "body");
    const result = await fn({ params, query, body, caller, event, requestId: requestIdOf(event), signal: signalOf(event) } as RouteInput<Out<P>, Out<Q>, Out<B>>);
    if (result instanceof Reply) return toResult(result);
    return toResult(Reply.json(200, spec.response ? spec.response.parse(result) : result));
  };

  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(core, { streamifyResponse: spec.streaming ?? false })
    .use(injectLambdaContext(logger))
    .use(httpHeaderNormalizer());
  if (spec.parser) chain.use(spec.parser());
  else if (spec.body) chain.use(httpJsonBodyParser());
  chain.use({
    after: (request) => {
      request.response = withRequestId(request.response, request.event);
    },
    onError: (request) => {
      const wire = toWireError(request.error);
      if (wire.status >= 500) logger.error("request failed", { error: request.error as Error });
      else logger.info("request refused", { status: wire.status });
      request.response = withRequestId(toResult(Reply.json(wire.status, wire.body, wire.headers)), request.event);
    },
  });
  return chain as unknown as RouteHandler;
}

function parse(schema: Schema | undefined, value: unknown, where: "path" | "query" | "body"): unknown {
  if (!schema) return undefined;
  // reportInput: tells a missing field (input undefined) from one of the wrong type.
  const result = schema.safeParse(value ?? (where === "body" ? undefined : {}), { reportInput: true });
  if (!result.success) throw new Unprocessable(zodIssues(result.error, where));
  return result.data;
}

function toResult(reply: Reply): APIGatewayProxyResult {
  if (reply.body !== null && typeof reply.body === "object" && Symbol.asyncIterator in reply.body) {
    // middy pipes a Readable body into the Lambda response stream (streamifyResponse).
    return { statusCode: reply.status, headers: reply.headers, body: Readable.from(reply.body) as unknown as string };
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

function requestIdOf(event: APIGatewayProxyEvent): string {
  return event.requestContext?.requestId ?? "local";
}

function withRequestId(result: APIGatewayProxyResult, event: APIGatewayProxyEvent): APIGatewayProxyResult {
  return { ...result, headers: { ...result.headers, "x-request-id": requestIdOf(event) } };
}

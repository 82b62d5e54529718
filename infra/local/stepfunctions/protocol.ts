/**
 * Step Functions' JSON 1.0 protocol over HTTP, as @aws-sdk/client-sfn speaks it: `X-Amz-Target:
 * AWSStepFunctions.<Operation>`, a JSON body in and out, errors as `{__type, message}` with status 400.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

type Json = Record<string, any>;
export type Operation = (body: Json) => Json;

/** An error the service answers with: `name` is the exception's name (`__type`). */
export class ApiError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

/** Step Functions' JSON protocol sends timestamps as epoch seconds. */
export const seconds = (date: Date) => date.getTime() / 1000;

/** One page of `all` from a `nextToken` (an offset) and `maxResults` (default 100, at most 1000). */
export function page<T>(all: T[], body: Json): { items: T[]; nextToken?: string } {
  const from = body.nextToken ? Number(Buffer.from(String(body.nextToken), "base64url").toString()) : 0;
  if (!Number.isInteger(from) || from < 0) throw new ApiError("InvalidToken", "Invalid Token");
  const size = Math.min(Number(body.maxResults) || 100, 1000);
  return {
    items: all.slice(from, from + size),
    ...(from + size < all.length ? { nextToken: Buffer.from(String(from + size)).toString("base64url") } : {}),
  };
}

export interface JsonServer {
  endpoint: string;
  close(): Promise<void>;
}

/** Serves `operations` on a free loopback port. */
export async function serveJsonProtocol(operations: Record<string, Operation>): Promise<JsonServer> {
  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => send(res, 500, { __type: "InternalServerError", message: String(error) }));
  });
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = String(req.headers["x-amz-target"] ?? "");
    const operation = target.startsWith("AWSStepFunctions.") ? operations[target.slice("AWSStepFunctions.".length)] : undefined;
    if (!operation) return send(res, 400, { __type: "UnknownOperationException", message: `The local Step Functions does not serve ${target || "this request"}` });
    let body: Json;
    try {
      body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Json) : {};
    } catch {
      return send(res, 400, { __type: "SerializationException", message: "The body is not JSON" });
    }
    try {
      send(res, 200, operation(body));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      send(res, 400, { __type: error.name, message: error.message });
    }
  }

  await new Promise<void>((ready, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", ready);
  });
  const address = server.address();
  return {
    endpoint: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`,
    close: () =>
      new Promise<void>((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
      }),
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/x-amz-json-1.0" });
  res.end(JSON.stringify(body));
}

/**
 * How the local API Gateway stand-in writes a streaming row's answer to the socket (infra/local/server.ts
 * `serveStream`): a plain answer (headers, body and end in one turn) in one write; a stream's headers before
 * its first body byte, without waiting for the upstream.
 */
import { Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { inferenceClient, userSays } from "../../support/inference-client.js";

const { api, tenant } = useEmbeddedApi();
const client = inferenceClient(api, tenant);

/** What the server side of the stand-in's sockets is asked to write, one entry per write to a socket. */
function serverWrites(): string[] {
  const port = Number(new URL(api.url).port);
  const writes: string[] = [];
  const record = (socket: Socket, parts: (Buffer | string)[]) => {
    if (socket.localPort === port) writes.push(parts.map((p) => (typeof p === "string" ? p : p.toString("utf8"))).join(""));
  };
  const write = Socket.prototype._write;
  const writev = Socket.prototype._writev!;
  vi.spyOn(Socket.prototype, "_write").mockImplementation(function (this: Socket, chunk, encoding, callback) {
    record(this, [chunk as Buffer | string]);
    return write.call(this, chunk, encoding, callback);
  });
  vi.spyOn(Socket.prototype, "_writev").mockImplementation(function (this: Socket, chunks, callback) {
    record(this, chunks.map((c) => c.chunk as Buffer | string));
    return writev.call(this, chunks, callback);
  });
  return writes;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the stand-in's streaming rows", () => {
  it("writes a plain answer's headers, body and end to the socket at once", async () => {
    const writes = serverWrites();
    const reply = await client.chat(userSays("mistral-small-latest", "one write please"));

    expect(reply.status).toBe(200);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(writes[0]).toContain('"object":"chat.completion"');
    expect(writes[0]).toMatch(/\r\n0\r\n\r\n$/);
  });

  it("writes an offline stream whole, still as an event stream of many frames", async () => {
    const writes = serverWrites();
    const streamed = await client.chatStreamed(userSays("mistral-small-latest", "stream this at once"));

    expect(streamed.headers.get("content-type")).toBe("text/event-stream");
    expect(streamed.frames.length).toBeGreaterThan(3);
    expect(streamed.frames.at(-1)!.data).toBe("[DONE]");
    // One write on a quiet machine; a loaded one may cross shared/http/fair-stream.ts's 10 ms slice and take a
    // turn mid-stream, which sends what is held so far. Never the headers alone, never a write per frame.
    expect(writes[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n[\s\S]*data: /);
    expect(writes.length).toBeLessThan(streamed.frames.length);
    expect(writes.at(-1)).toMatch(/\r\n0\r\n\r\n$/);
  });

  it("answers a refused call in one write too", async () => {
    const writes = serverWrites();
    const reply = await client.chat(userSays("no-such-model", "hi"));

    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toContain(reply.headers.get("x-request-id")!);
  });
});

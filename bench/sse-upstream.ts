/**
 * A minimal OpenAI/Mistral-compatible upstream for the SSE benchmark: `POST /v1/fim/completions` with
 * `stream: true` sends its headers at once, waits `firstFrameDelayMs` (the model's "time to first token"),
 * then writes `frames` content chunks back to back, a last chunk with `finish_reason` and usage, and
 * `data: [DONE]`. Counts TCP connections, so the benchmark can tell whether callers reuse them.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface SseUpstream {
  url: string;
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function startSseUpstream(options: { firstFrameDelayMs: number; frames: number }): Promise<SseUpstream> {
  let connections = 0;
  const server = createServer((request, response) => void answer(request, response));
  server.on("connection", () => connections++);

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body: { model?: string; stream?: boolean } = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as typeof body;
    } catch {
      // answered below as a 400
    }
    if (request.method !== "POST" || request.url !== "/v1/fim/completions" || body.stream !== true) {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ object: "error", message: "bench upstream: only streamed FIM", type: "invalid_request_error" }));
      return;
    }
    const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id: "bench", object: "chat.completion.chunk", created: 1_700_000_000, model: body.model, choices: [{ index: 0, ...choice }], ...extra })}\n\n`;
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    response.flushHeaders();
    await sleep(options.firstFrameDelayMs);
    if (response.destroyed) return;
    for (let i = 0; i < options.frames; i++) {
      response.write(chunk({ delta: i === 0 ? { role: "assistant", content: "tok " } : { content: "tok " }, finish_reason: null }));
    }
    response.write(chunk({ delta: {}, finish_reason: "stop" }, { usage: { prompt_tokens: 8, completion_tokens: options.frames, total_tokens: 8 + options.frames } }));
    response.end("data: [DONE]\n\n");
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

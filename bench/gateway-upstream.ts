/**
 * The stub OpenAI-compatible upstream of `npm run bench:gateway`, run as its own process (so that neither
 * the bench's clients nor a gateway share its event loop). `POST /v1/chat/completions`:
 *
 *  - plain: answers at once with a fixed completion and its usage (the gateways' time is all that differs);
 *  - `stream: true`: sends its headers, waits STUB_FIRST_TOKEN_MS, then writes STUB_FRAMES content
 *    frames, a finish frame with usage and `data: [DONE]` back to back.
 *
 * Prints `listening <url>` once it serves, on 127.0.0.1 and a free port.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

const FIRST_TOKEN_MS = Number(process.env.STUB_FIRST_TOKEN_MS ?? 20);
const FRAMES = Number(process.env.STUB_FRAMES ?? 10);

const server = createServer((request, response) => void answer(request, response));
server.keepAliveTimeout = 60_000;

async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  let body: { model?: string; stream?: boolean } = {};
  try {
    body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as typeof body;
  } catch {
    // answered below as a 400
  }
  if (request.method !== "POST" || !request.url?.endsWith("/chat/completions") || !body.model) {
    response.writeHead(400, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: { message: "stub upstream: only chat completions", type: "invalid_request_error" } }));
    return;
  }
  const usage = { prompt_tokens: 50, completion_tokens: FRAMES, total_tokens: 50 + FRAMES };
  if (!body.stream) {
    const out = {
      id: "chatcmpl-stub",
      object: "chat.completion",
      created: 1_700_000_000,
      model: body.model,
      choices: [{ index: 0, message: { role: "assistant", content: "tok ".repeat(FRAMES).trim() }, finish_reason: "stop" }],
      usage,
    };
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(out));
    return;
  }
  const frame = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: "chatcmpl-stub", object: "chat.completion.chunk", created: 1_700_000_000, model: body.model, choices: [{ index: 0, ...choice }], ...extra })}\n\n`;
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  response.flushHeaders();
  await sleep(FIRST_TOKEN_MS);
  if (response.destroyed) return;
  let text = "";
  for (let i = 0; i < FRAMES; i++) text += frame({ delta: i === 0 ? { role: "assistant", content: "tok " } : { content: "tok " }, finish_reason: null });
  text += frame({ delta: {}, finish_reason: "stop" }, { usage });
  response.end(`${text}data: [DONE]\n\n`);
}

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  console.log(`listening http://127.0.0.1:${port}`);
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));

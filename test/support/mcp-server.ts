/**
 * A real MCP server on loopback for the connector tests: the official SDK's server side over streamable
 * HTTP (stateless: a server and transport per request), with a few tools that show what they received.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import * as z from "zod";

export interface TestMcpServer {
  url: string;
  /** The Authorization header of every request, in order. */
  authorizations: (string | undefined)[];
  /** Answer 401 to requests whose Authorization is not one of these (when set). */
  requireTokens?: Set<string>;
  close(): Promise<void>;
}

function tools(server: McpServer, seen: { authorization?: string }) {
  server.registerTool("echo", { description: "Echoes its text", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
    structuredContent: { echoed: text },
    _meta: { "test/echo": true },
  }));
  server.registerTool("add", { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));
  server.registerTool("whoami", { description: "Says which Authorization header came" }, async () => ({ content: [{ type: "text", text: seen.authorization ?? "none" }] }));
  server.registerTool("fails", { description: "Reports a tool error" }, async () => ({ content: [{ type: "text", text: "it broke" }], isError: true }));
  server.registerTool("slow", { description: "Answers after ms", inputSchema: { ms: z.number() } }, async ({ ms }) => {
    await new Promise((r) => setTimeout(r, ms));
    return { content: [{ type: "text", text: "late" }] };
  });
  server.registerTool("big", { description: "Answers n bytes of text", inputSchema: { bytes: z.number() } }, async ({ bytes }) => ({ content: [{ type: "text", text: "x".repeat(bytes) }] }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

/** `requireTokens`: bearer tokens it accepts (a live set the test may change); `authorizationServer`: published as its RFC 9728 protected-resource metadata. */
export async function startMcpServer(options: { requireTokens?: string[] | Set<string>; authorizationServer?: string } = {}): Promise<TestMcpServer> {
  const authorizations: (string | undefined)[] = [];
  const requireTokens = options.requireTokens instanceof Set ? options.requireTokens : options.requireTokens ? new Set(options.requireTokens) : undefined;
  const http: Server = createServer(async (req, res) => {
    const authorization = req.headers.authorization;
    authorizations.push(authorization);
    if (req.url?.startsWith("/.well-known/oauth-protected-resource") && options.authorizationServer) {
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ resource: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, authorization_servers: [options.authorizationServer] }));
    }
    if (req.url !== "/mcp") return void res.writeHead(404).end();
    if (requireTokens && !(authorization && requireTokens.has(authorization.replace(/^Bearer /, "")))) return void res.writeHead(401, { "content-type": "application/json" }).end('{"error":"invalid_token"}');
    if (req.method !== "POST") return void res.writeHead(405).end();
    const server = new McpServer({ name: "test-mcp", version: "1.0.0" });
    tools(server, { authorization });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, await readJson(req));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  // A fixture server may live for the whole run: it never holds the test process open.
  http.unref();
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    authorizations,
    requireTokens,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}

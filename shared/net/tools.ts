/**
 * Talking to a connector's server (decision 31): MCP servers over streamable HTTP through the official
 * MCP client, plain HTTP servers by their declared endpoint (`GET <server>/tools`, `POST <server>/tools/<name>`).
 * Every request goes through the outbound guard (shared/net/outbound.ts) with a deadline and a response
 * size cap; a server that fails answers 502, one that does not answer in time 504.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { UpstreamError } from "../domain/errors.js";
import { outboundCause, outboundFetch, type OutboundFetch } from "./outbound.js";

export interface ToolServer {
  protocol: "mcp" | "http";
  server: string;
  /** Sent with every request (configured headers, credentials); never logged. */
  headers: Record<string, string>;
}

export interface ToolDescription {
  name: string;
  title?: string | null;
  description?: string | null;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown> | null;
  annotations?: Record<string, unknown> | null;
  [key: string]: unknown;
}

export interface ToolResult {
  content: { type: string; [key: string]: unknown }[];
  structuredContent?: Record<string, unknown> | null;
  isError: boolean;
  meta?: Record<string, unknown> | null;
}

export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Settings: how long a call may take and how much a server may answer. */
export const TOOL_TIMEOUT_MS = () => Number(process.env.CONNECTOR_TOOL_TIMEOUT_MS ?? 25_000);
export const MAX_RESPONSE_BYTES = () => Number(process.env.CONNECTOR_MAX_RESPONSE_BYTES ?? 5 * 1024 * 1024);

let shared: OutboundFetch | undefined;
/** The guarded fetch every connector request uses (tests may swap it to stub DNS). */
export function connectorFetch(): OutboundFetch {
  return (shared ??= outboundFetch({ maxBytes: MAX_RESPONSE_BYTES() }));
}
export function useConnectorFetch(fetch: OutboundFetch | undefined): void {
  shared = fetch;
}

/** What a failure talking to the server means for the caller: 504 when it timed out, 502 otherwise. */
export function serverFailure(error: unknown, what: string): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const err = error as Error & { code?: unknown; cause?: unknown };
  const cause = (err?.cause ?? undefined) as (Error & { code?: unknown }) | undefined;
  const timedOut =
    err?.name === "TimeoutError" ||
    cause?.name === "TimeoutError" ||
    (err instanceof McpError && err.code === ErrorCode.RequestTimeout) ||
    err?.code === "UND_ERR_CONNECT_TIMEOUT" ||
    cause?.code === "UND_ERR_CONNECT_TIMEOUT";
  if (timedOut) return new UpstreamError(504, `The connector's server did not answer ${what} in time`);
  // A guard refusal, a size cap, a redirect past the limit: the guard's own words (the MCP transport wraps them).
  const refused = outboundCause(err);
  if (refused) return new UpstreamError(502, `The connector's server could not be reached for ${what}: ${refused.message}`);
  if (err instanceof McpError) return new UpstreamError(502, `The connector's MCP server refused ${what}: ${err.message}`);
  return new UpstreamError(502, `The connector's server failed ${what}`);
}

const deadline = (options: CallOptions, fallback: number) => {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? fallback);
  return options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
};

async function withMcp<T>(server: ToolServer, options: CallOptions, what: string, use: (client: Client, signal: AbortSignal) => Promise<T>): Promise<T> {
  const signal = deadline(options, TOOL_TIMEOUT_MS());
  const client = new Client({ name: "platform-api-connectors", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(server.server), { fetch: connectorFetch(), requestInit: { headers: server.headers, signal } });
  try {
    await client.connect(transport, { signal, timeout: options.timeoutMs ?? TOOL_TIMEOUT_MS() });
    return await use(client, signal);
  } catch (error) {
    throw serverFailure(signal.aborted && !(error instanceof McpError && error.code !== ErrorCode.RequestTimeout) ? Object.assign(new Error("timeout"), { name: "TimeoutError" }) : error, what);
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function httpJson(server: ToolServer, path: string, init: RequestInit, options: CallOptions, what: string): Promise<unknown> {
  const signal = deadline(options, TOOL_TIMEOUT_MS());
  const url = new URL(path, server.server.endsWith("/") ? server.server : `${server.server}/`);
  try {
    const response = await connectorFetch()(url, { ...init, headers: { accept: "application/json", ...(init.headers as Record<string, string>), ...server.headers }, signal });
    const text = await response.text();
    if (!response.ok) throw new UpstreamError(response.status === 504 ? 504 : 502, `The connector's server answered ${response.status} to ${what}`);
    try {
      return JSON.parse(text);
    } catch {
      throw new UpstreamError(502, `The connector's server did not answer ${what} with JSON`);
    }
  } catch (error) {
    throw serverFailure(signal.aborted ? Object.assign(new Error("timeout"), { name: "TimeoutError" }) : error, what);
  }
}

export async function listTools(server: ToolServer, options: CallOptions = {}): Promise<ToolDescription[]> {
  if (server.protocol === "mcp") {
    return withMcp(server, options, "the tool list", async (client, signal) => {
      const tools: ToolDescription[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { signal });
        tools.push(...(page.tools as ToolDescription[]));
        cursor = page.nextCursor;
      } while (cursor && tools.length < 10_000);
      return tools;
    });
  }
  const body = await httpJson(server, "tools", { method: "GET" }, options, "the tool list");
  const list = Array.isArray(body) ? body : (body as { tools?: unknown })?.tools;
  if (!Array.isArray(list)) throw new UpstreamError(502, "The connector's server did not answer the tool list with an array of tools");
  return list
    .filter((t): t is Record<string, unknown> => typeof t === "object" && t !== null && typeof (t as { name?: unknown }).name === "string")
    .map((t) => ({ ...t, name: t.name as string, description: (t.description as string | undefined) ?? null, inputSchema: (t.inputSchema ?? t.input_schema ?? t.parameters ?? { type: "object" }) as Record<string, unknown> }));
}

export async function callTool(server: ToolServer, name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<ToolResult> {
  if (server.protocol === "mcp") {
    return withMcp(server, options, `the call of tool '${name}'`, async (client, signal) => {
      const result = (await client.callTool({ name, arguments: args }, undefined, { signal, timeout: options.timeoutMs ?? TOOL_TIMEOUT_MS() })) as Record<string, unknown>;
      return {
        content: (result.content as ToolResult["content"]) ?? [],
        structuredContent: (result.structuredContent as Record<string, unknown> | undefined) ?? null,
        isError: result.isError === true,
        meta: (result._meta as Record<string, unknown> | undefined) ?? null,
      };
    });
  }
  const body = await httpJson(server, `tools/${encodeURIComponent(name)}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ arguments: args }) }, options, `the call of tool '${name}'`);
  if (body && typeof body === "object" && Array.isArray((body as { content?: unknown }).content)) {
    const r = body as { content: ToolResult["content"]; structuredContent?: Record<string, unknown>; isError?: boolean };
    return { content: r.content, structuredContent: r.structuredContent ?? null, isError: r.isError === true, meta: null };
  }
  const structured = body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  return { content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: structured, isError: false, meta: null };
}

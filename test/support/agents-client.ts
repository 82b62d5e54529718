import type { RunningApi } from "../../infra/local/server.js";
import type { ApiReply, Query } from "./files-client.js";
import { chunksOf, inferenceClient, SseReader, streamedText, within, type StreamReply } from "./inference-client.js";
import type { TestTenant } from "./tenant.js";

/** The Agents routes of one running server as one tenant sees them, over plain HTTP. */
export function agentsClient(api: Pick<RunningApi, "url">, tenant: Pick<TestTenant, "key">) {
  const inference = inferenceClient(api, tenant);
  const call = (method: string, path: string, options: { query?: Query; json?: unknown } = {}): Promise<ApiReply> =>
    within(inference.request(method, path, options), `${method} ${path}`);
  const at = (id: string) => `/v1/agents/${encodeURIComponent(id)}`;

  /** POSTs with `stream: true` and answers as soon as the response head has arrived. */
  async function stream(body: Record<string, unknown>): Promise<StreamReply> {
    const response = await within(
      fetch(`${api.url}/v1/agents/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
        body: JSON.stringify({ ...body, stream: true }),
      }),
      "the response head of POST /v1/agents/completions",
    );
    const type = response.headers.get("content-type") ?? "";
    if (type.startsWith("text/event-stream") && response.body) return { status: response.status, headers: response.headers, reader: new SseReader(response.body) };
    const text = await within(response.text(), "the body of POST /v1/agents/completions");
    return { status: response.status, headers: response.headers, body: type.includes("json") && text ? JSON.parse(text) : text };
  }

  return {
    call,
    create: (body: Record<string, unknown>) => call("POST", "/v1/agents", { json: body }),
    list: (query: Query = {}) => call("GET", "/v1/agents", { query }),
    listPages: (query: Query = {}) => call("GET", "/v1/agents/pages", { query }),
    get: (id: string, query: Query = {}) => call("GET", at(id), { query }),
    update: (id: string, body: Record<string, unknown>) => call("PATCH", at(id), { json: body }),
    remove: (id: string) => call("DELETE", at(id)),
    switchVersion: (id: string, version: number | string) => call("PATCH", `${at(id)}/version`, { query: { version } }),
    listVersions: (id: string, query: Query = {}) => call("GET", `${at(id)}/versions`, { query }),
    getVersion: (id: string, version: number | string) => call("GET", `${at(id)}/versions/${encodeURIComponent(String(version))}`),
    putAlias: (id: string, alias: string, version: number) => call("PUT", `${at(id)}/aliases`, { query: { alias, version } }),
    listAliases: (id: string) => call("GET", `${at(id)}/aliases`),
    removeAlias: (id: string, alias: string) => call("DELETE", `${at(id)}/aliases`, { query: { alias } }),
    complete: (body: Record<string, unknown>) => call("POST", "/v1/agents/completions", { json: body }),
    stream,
    /** A streamed completion read to its end: frames, chunks and the text of choice 0. */
    streamed: async (body: Record<string, unknown>) => {
      const reply = await stream(body);
      if (!reply.reader) throw new Error(`POST /v1/agents/completions did not stream: ${reply.status} ${JSON.stringify(reply.body)}`);
      const frames = await reply.reader.rest();
      const chunks = chunksOf(frames);
      return { ...reply, frames, chunks, text: streamedText(chunks) };
    },
  };
}

export type AgentsClient = ReturnType<typeof agentsClient>;

/** A minimal valid create request, on the offline catalog's chat model. */
export const anAgentRequest = (extra: Record<string, unknown> = {}) => ({ model: "mistral-small-latest", name: "helper", ...extra });

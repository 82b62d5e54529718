import type { RunningApi } from "../../infra/local/server.js";
import { filesClient, type ApiReply, type Query } from "./files-client.js";
import type { TestTenant } from "./tenant.js";

/** The Batch routes of one running server as one tenant sees them, over plain HTTP. */
export function batchClient(api: Pick<RunningApi, "url">, tenant: Pick<TestTenant, "key">) {
  const { request } = filesClient(api, tenant);
  const at = (id: string) => `/v1/batch/jobs/${encodeURIComponent(id)}`;
  return {
    create: (body: Record<string, unknown>): Promise<ApiReply> => request("POST", "/v1/batch/jobs", { json: body }),
    list: (query: Query = {}): Promise<ApiReply> => request("GET", "/v1/batch/jobs", { query }),
    get: (id: string, query: Query = {}): Promise<ApiReply> => request("GET", at(id), { query }),
    cancel: (id: string): Promise<ApiReply> => request("POST", `${at(id)}/cancel`),
    remove: (id: string): Promise<ApiReply> => request("DELETE", at(id)),
  };
}

export type BatchClient = ReturnType<typeof batchClient>;

/** JSONL request lines for chat completions, one per custom_id. */
export const chatLines = (...customIds: string[]): string =>
  customIds.map((id) => `${JSON.stringify({ custom_id: id, body: { messages: [{ role: "user", content: `question ${id}` }] } })}\n`).join("");

import type { RunningApi } from "../../infra/local/server.js";
import { filesClient, type ApiReply } from "./files-client.js";
import type { TestTenant } from "./tenant.js";

/** A search index as `PUT /v1/rag/deployments` takes it. */
export const aVespaIndex = (name = "docs", overrides: Record<string, unknown> = {}) => ({
  name,
  sd: `schema ${name} { document ${name} { field text type string { indexing: index } } }`,
  fields: [{ name: "text", type: "string", storage: "on_disk", ranking: "text", index_type: "bm25", multidimensional: false }],
  ...overrides,
});

/** A registration body: a Vespa deployment with the given indexes. */
export const aDeploymentBody = (name = "search", overrides: { status?: string; indexes?: unknown[]; query_url?: string } = {}) => ({
  name,
  ...(overrides.status ? { status: overrides.status } : {}),
  deployment: { type: "vespa", vespa_version: "8.400.1", query_url: overrides.query_url ?? "https://vespa.example/search/", indexes: overrides.indexes ?? [aVespaIndex()] },
});

/** `/v1/rag/...` of one running server as one tenant sees it, over plain HTTP. */
export function retrievalClient(api: Pick<RunningApi, "url">, tenant: Pick<TestTenant, "key">) {
  const { request } = filesClient(api, tenant);
  const ok = <T = any>(reply: ApiReply<T>, what: string): T => {
    if (reply.status !== 200) throw new Error(`${what} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const register = (body: unknown) => request("PUT", "/v1/rag/deployments", { json: body });
  const registerPipeline = (body: unknown) => request("PUT", "/v1/rag/ingestion_pipeline_configurations", { json: body });
  return {
    request,
    deployments: () => request("GET", "/v1/rag/deployments"),
    register,
    /** Registers and returns the id, failing the test on anything but a 200. */
    registered: async (body: unknown = aDeploymentBody()): Promise<string> => ok(await register(body), "register deployment").id,
    unregister: (id: string) => request("DELETE", `/v1/rag/deployments/${id}`),
    metrics: (id: string, body: unknown) => request("PUT", `/v1/rag/deployments/${id}/metrics`, { json: body }),
    pipelines: () => request("GET", "/v1/rag/ingestion_pipeline_configurations"),
    registerPipeline,
    registeredPipeline: async (body: unknown = { name: "ingest" }): Promise<any> => ok(await registerPipeline(body), "register pipeline"),
    runInfo: (id: string, body: unknown) => request("PUT", `/v1/rag/ingestion_pipeline_configurations/${id}/run_info`, { json: body }),
  };
}

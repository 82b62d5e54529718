import { randomUUID } from "node:crypto";
import type { RunningApi } from "../../infra/local/server.js";
import { filesClient, type ApiReply, type Query } from "./files-client.js";
import type { TestTenant } from "./tenant.js";

/** A detection pattern finding e-mail addresses. */
export const anEmailPattern = { name: "email", regex: "[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}", category: "pii", confidence: "high" };

/** A CreatePipelineConfigRequest: a detection pipeline over every span's conversation (overrides replace fields). */
export const aPipelineBody = (overrides: Record<string, unknown> = {}) => ({
  name: "pii detection",
  description: "Finds e-mail addresses in conversations",
  pipeline_kind: "detection",
  selectors: [{ source_kind: "span", filter: null }],
  definition: { target_attributes: ["input_messages", "output_messages"], patterns: [anEmailPattern] },
  enabled: true,
  ...overrides,
});

/** A judge pipeline on the offline catalog's chat model. */
export const aJudgePipelineBody = (overrides: Record<string, unknown> = {}) =>
  aPipelineBody({ name: "helpfulness", pipeline_kind: "judge", definition: { model: "mistral-small-latest", prompt: "Is the answer helpful?" }, ...overrides });

/** `/v1/observability/pipeline-configs…` of one running server as one tenant sees them, over plain HTTP. */
export function pipelinesClient(api: Pick<RunningApi, "url">, tenant: Pick<TestTenant, "key">) {
  const { request } = filesClient(api, tenant);
  const client = {
    request,
    create: (body: unknown = aPipelineBody()) => request("POST", "/v1/observability/pipeline-configs", { json: body }),
    list: (query: Query = {}) => request("GET", "/v1/observability/pipeline-configs", { query }),
    get: (id: string) => request("GET", `/v1/observability/pipeline-configs/${id}`),
    update: (id: string, body: unknown) => request("PUT", `/v1/observability/pipeline-configs/${id}`, { json: body }),
    remove: (id: string) => request("DELETE", `/v1/observability/pipeline-configs/${id}`),
    run: (id: string) => request("POST", `/v1/observability/pipeline-configs/${id}/run`),
    /** Creates and returns a pipeline (named uniquely unless the body names it), failing the test on anything but a 201. */
    created: async (overrides: Record<string, unknown> = {}): Promise<any> => {
      const reply: ApiReply = await client.create(aPipelineBody({ name: `pipeline ${randomUUID().slice(0, 8)}`, ...overrides }));
      if (reply.status !== 201) throw new Error(`create pipeline answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      return reply.body;
    },
  };
  return client;
}

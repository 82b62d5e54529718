import { randomUUID } from "node:crypto";
import type { RunningApi } from "../../infra/local/server.js";
import { filesClient, type ApiReply, type Query } from "./files-client.js";
import type { TestTenant } from "./tenant.js";

/** A CreateJudgeRequest: a two-option classification on the offline catalog's chat model (`name` 5..50, unique in a workspace). */
export const aJudgeBody = (overrides: Record<string, unknown> = {}) => ({
  name: "answer quality",
  description: "Is the assistant's answer right?",
  model_name: "mistral-small-latest",
  output: { type: "CLASSIFICATION", options: [{ value: "good", description: "Helpful and right" }, { value: "bad", description: "Unhelpful or wrong" }] },
  instructions: "Judge the assistant's last answer.",
  tools: [],
  ...overrides,
});

/** A REGRESSION output from `min` to `max`. */
export const aScale = (min = 1, max = 5) => ({ type: "REGRESSION", min, min_description: "useless", max, max_description: "perfect" });

/** `/v1/observability/judges…` of one running server as one tenant sees them, over plain HTTP. */
export function judgesClient(api: Pick<RunningApi, "url">, tenant: Pick<TestTenant, "key">) {
  const { request } = filesClient(api, tenant);
  const client = {
    request,
    create: (body: unknown = aJudgeBody()) => request("POST", "/v1/observability/judges", { json: body }),
    list: (query: Query = {}) => request("GET", "/v1/observability/judges", { query }),
    get: (id: string) => request("GET", `/v1/observability/judges/${id}`),
    update: (id: string, body: unknown) => request("PUT", `/v1/observability/judges/${id}`, { json: body }),
    remove: (id: string) => request("DELETE", `/v1/observability/judges/${id}`),
    judge: (id: string, body: unknown) => request("POST", `/v1/observability/judges/${id}/live-judging`, { json: body }),
    /** Creates and returns a judge (named uniquely unless the body names it), failing the test on anything but a 201. */
    created: async (overrides: Record<string, unknown> = {}): Promise<any> => {
      const reply: ApiReply = await client.create(aJudgeBody({ name: `judge ${randomUUID().slice(0, 8)}`, ...overrides }));
      if (reply.status !== 201) throw new Error(`create judge answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      return reply.body;
    },
  };
  return client;
}

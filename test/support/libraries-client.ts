import type { RunningApi } from "../../infra/local/server.js";
import { filesClient, type Query } from "./files-client.js";
import type { TestTenant } from "./tenant.js";

/** `/v1/libraries/...` of one running server as one key sees it, over plain HTTP. */
export function librariesClient(api: Pick<RunningApi, "url">, tenant: Pick<TestTenant, "key">) {
  const { request } = filesClient(api, tenant);
  const at = (id: string) => `/v1/libraries/${encodeURIComponent(id)}`;
  const create = (body: unknown) => request("POST", "/v1/libraries", { json: body });
  return {
    request,
    create,
    /** Creates and returns the library, failing the test on anything but a 201. */
    created: async (body: Record<string, unknown> = {}): Promise<any> => {
      const reply = await create({ name: "Handbook", ...body });
      if (reply.status !== 201) throw new Error(`create library answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      return reply.body;
    },
    list: (query: Query = {}) => request("GET", "/v1/libraries", { query }),
    get: (id: string) => request("GET", at(id)),
    update: (id: string, body: unknown) => request("PATCH", at(id), { json: body }),
    replace: (id: string, body: unknown) => request("PUT", at(id), { json: body }),
    remove: (id: string) => request("DELETE", at(id)),
    accesses: (id: string) => request("GET", `${at(id)}/share`),
    share: (id: string, body: unknown) => request("PUT", `${at(id)}/share`, { json: body }),
    unshare: (id: string, body: unknown) => request("DELETE", `${at(id)}/share`, { json: body }),
  };
}

import { randomUUID } from "node:crypto";
import type { RunningApi } from "../../infra/local/server.js";
import { filesClient, type ApiReply, type Query } from "./files-client.js";
import type { TestTenant } from "./tenant.js";

/** A `POST /v1/connectors` body; the server defaults to a loopback port nothing listens on (calls fail fast, nothing leaves the machine). */
export const aConnectorBody = (overrides: Record<string, unknown> = {}) => ({
  name: `connector-${randomUUID().slice(0, 8)}`,
  description: "A test connector",
  server: "http://127.0.0.1:9/mcp",
  ...overrides,
});

/** `/v1/connectors/...` of one running server as one key sees it, over plain HTTP. */
export function connectorsClient(api: Pick<RunningApi, "url">, tenant: Pick<TestTenant, "key">) {
  const { request } = filesClient(api, tenant);
  const at = (ref: string) => `/v1/connectors/${encodeURIComponent(ref)}`;
  const create = (body: unknown = aConnectorBody()) => request("POST", "/v1/connectors", { json: body });
  return {
    request,
    create,
    /** Creates and returns the connector, failing the test on anything but a 201. */
    created: async (body: unknown = aConnectorBody()): Promise<any> => {
      const reply = await create(body);
      if (reply.status !== 201) throw new Error(`create connector answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      return reply.body;
    },
    list: (query: Query = {}) => request("GET", "/v1/connectors", { query }),
    get: (ref: string) => request("GET", at(ref)),
    update: (id: string, body: unknown) => request("PATCH", at(id), { json: body }),
    remove: (id: string) => request("DELETE", at(id)),
    share: (id: string) => request("PUT", `${at(id)}/share`),
    unshare: (id: string) => request("DELETE", `${at(id)}/share`),
    shareToOrganization: (id: string) => request("PUT", `${at(id)}/organization/share`),
    unshareFromOrganization: (id: string) => request("DELETE", `${at(id)}/organization/share`),
    activate: (id: string, scope: string) => request("POST", `${at(id)}/${scope}/activate`),
    deactivate: (id: string, scope: string) => request("POST", `${at(id)}/${scope}/deactivate`),
    authUrl: (ref: string, query: Query = {}) => request("GET", `${at(ref)}/auth_url`, { query }),
    authMethods: (ref: string) => request("GET", `${at(ref)}/authentication_methods`),
    tools: (ref: string, query: Query = {}) => request("GET", `${at(ref)}/tools`, { query }),
    call: (ref: string, tool: string, args: Record<string, unknown> = {}, query: Query = {}) => request("POST", `${at(ref)}/tools/${encodeURIComponent(tool)}/call`, { json: { arguments: args }, query }),
    createCredentials: (ref: string, scope: string, body: unknown) => request("POST", `${at(ref)}/${scope}/credentials`, { json: body }),
    updateCredentials: (ref: string, scope: string, body: unknown) => request("PATCH", `${at(ref)}/${scope}/credentials`, { json: body }),
    credentials: (ref: string, scope: string, query: Query = {}) => request("GET", `${at(ref)}/${scope}/credentials`, { query }),
    deleteCredentials: (ref: string, scope: string, name: string) => request("DELETE", `${at(ref)}/${scope}/credentials/${encodeURIComponent(name)}`),
    deleteAllUserCredentials: (ref: string) => request("DELETE", `${at(ref)}/user/credentials`),
  };
}

export type ConnectorsClient = ReturnType<typeof connectorsClient>;
export type { ApiReply };

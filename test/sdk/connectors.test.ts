/**
 * Connectors (beta) driven by the official, unmodified SDK (`client.beta.connectors.*`) against the local
 * server: a real MCP server on loopback is registered, its tools listed and one called; sharing,
 * activation, credentials and the OAuth URL answer in the SDK's types.
 */
import { Mistral } from "@mistralai/mistralai";
import { HTTPValidationError, SDKError } from "@mistralai/mistralai/models/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { startMcpServer, type TestMcpServer } from "../support/mcp-server.js";
import { startOAuthServer, type TestOAuthServer } from "../support/oauth-server.js";
import { errorOf, sdkClient } from "../support/sdk.js";
import { newTenant } from "../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
let mcp: TestMcpServer;
let oauth: TestOAuthServer;
beforeAll(async () => {
  client = sdkClient(api, tenant.key);
  oauth = await startOAuthServer({ id: "sdk-client", secret: "sdk-secret" });
  mcp = await startMcpServer();
});
afterAll(async () => {
  await mcp.close();
  await oauth.close();
});

/** A connector the SDK parsed as MCP or HTTP (an item failing its schema would become UNKNOWN silently). */
function known<T extends { protocol: string }>(connector: T): Exclude<T, { isUnknown: true }> {
  expect(connector.protocol, JSON.stringify(connector)).not.toBe("UNKNOWN");
  return connector as Exclude<T, { isUnknown: true }>;
}

let n = 0;
const name = () => `sdk-${Date.now()}-${(n += 1)}`;
const created = async (extra: Record<string, unknown> = {}) => known(await client.beta.connectors.create({ protocol: "mcp", name: name(), description: "SDK connector", server: mcp.url, ...extra } as never));
const got = async (ref: string) => known(await client.beta.connectors.get({ connectorIdOrName: ref }));

describe("client.beta.connectors.create: POST /v1/connectors; list: GET /v1/connectors; get: GET /v1/connectors/{connector_id_or_name}", () => {
  it("creates (201), lists with a cursor and gets, every answer parsed as an MCP connector, not UNKNOWN", async () => {
    const a = await created();
    const b = await created();
    expect(a).toMatchObject({ protocol: "mcp", ownerType: "user", visibility: "private", privateToolExecution: false });
    expect(a.createdAt).toBeInstanceOf(Date);

    const first = await client.beta.connectors.list({ pageSize: 1 });
    expect(first.items).toHaveLength(1);
    expect(known(first.items[0]!)).toMatchObject({ id: a.id, protocol: "mcp" });
    expect(first.pagination.pageSize).toBe(1);
    const second = await client.beta.connectors.list({ pageSize: 1, cursor: first.pagination.nextCursor });
    expect(second.items.map((c) => known(c).id)).toEqual([b.id]);

    expect(await got(b.name)).toMatchObject({ id: b.id, protocol: "mcp" });
    const http = await client.beta.connectors.create({ protocol: "http", name: name(), description: "HTTP", server: "https://tools.example.com/api" });
    expect(http.protocol).toBe("http");
  });

  it("rejects a bad body with HTTPValidationError", async () => {
    const error = await errorOf(client.beta.connectors.create({ protocol: "mcp", name: name(), description: "x", server: "not a url" }), HTTPValidationError);
    expect(error.detail?.[0]?.loc).toEqual(["body", "server"]);
  });
});

describe("client.beta.connectors.update: PATCH /v1/connectors/{connector_id}; delete: DELETE /v1/connectors/{connector_id}", () => {
  it("updates and deletes", async () => {
    const made = await created();
    const updated = await client.beta.connectors.update({ connectorId: made.id, requestBody: { protocol: "mcp", description: "changed" } });
    expect(known(updated).description).toBe("changed");
    expect((await client.beta.connectors.delete({ connectorId: made.id })).message).toEqual(expect.any(String));
    await errorOf(client.beta.connectors.get({ connectorIdOrName: made.id }), SDKError);
  });
});

describe("client.beta.connectors.listTools: GET /v1/connectors/{connector_id_or_name}/tools; callTool: POST /v1/connectors/{connector_id_or_name}/tools/{tool_name}/call", () => {
  it("lists the real MCP server's tools and calls one, the MCP fields under mcp_meta", async () => {
    const made = await created();
    const tools = (await client.beta.connectors.listTools({ connectorIdOrName: made.id })) as { name: string }[];
    expect(tools.map((t) => t.name)).toContain("add");

    const result = await client.beta.connectors.callTool({ connectorIdOrName: made.name, toolName: "add", connectorCallToolRequest: { arguments: { a: 2, b: 3 } } });

    expect(result.content).toEqual([{ type: "text", text: "5" }]);
    expect(result.metadata?.mcpMeta).toMatchObject({ isError: false });
  });
});

describe("client.beta.connectors.share: PUT /v1/connectors/{connector_id}/share; unshare: DELETE /v1/connectors/{connector_id}/share", () => {
  it("shares to the workspace and back", async () => {
    const made = await created();
    expect((await client.beta.connectors.share({ connectorId: made.id })).message).toContain("workspace");
    expect((await got(made.id)).ownerType).toBe("workspace");
    expect((await client.beta.connectors.unshare({ connectorId: made.id })).message).toEqual(expect.any(String));
    expect((await got(made.id)).visibility).toBe("private");
  });
});

describe("client.beta.connectors.shareToOrganization: PUT /v1/connectors/{connector_id}/organization/share; unshareFromOrganization: DELETE /v1/connectors/{connector_id}/organization/share", () => {
  it("shares to the organization and back; a key without ShareConnectorToOrg is refused", async () => {
    const made = await created();
    expect((await client.beta.connectors.shareToOrganization({ connectorId: made.id })).message).toContain("organization");
    expect((await got(made.id)).ownerType).toBe("org");
    const member = sdkClient(api, (await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, roles: ["workspace_admin"] })).key);
    const refused = await errorOf(member.beta.connectors.unshareFromOrganization({ connectorId: made.id }), SDKError);
    expect(refused.statusCode).toBe(403);
    expect((await client.beta.connectors.unshareFromOrganization({ connectorId: made.id })).message).toEqual(expect.any(String));
  });
});

describe("client.beta.connectors.activateForConsumer: POST /v1/connectors/{connector_id}/{consumer_scope}/activate; deactivateForConsumer: POST /v1/connectors/{connector_id}/{consumer_scope}/deactivate", () => {
  it("activates for the user and filters the list with queryFilters.active", async () => {
    const made = await created();
    await client.beta.connectors.activateForConsumer({ connectorId: made.id, consumerScope: "user" });
    const active = await client.beta.connectors.list({ queryFilters: { active: true } });
    expect(active.items.map((c) => known(c).id)).toContain(made.id);
    await client.beta.connectors.deactivateForConsumer({ connectorId: made.id, consumerScope: "user" });
    expect((await got(made.id)).active).toBe(false);
  });
});

describe("client.beta.connectors credentials: POST /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials, PATCH /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials, GET /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials, DELETE /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials/{credentials_name}, DELETE /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials", () => {
  it("creates, updates, lists per scope and deletes credentials; authentication methods reflect them", async () => {
    const made = await created({ authMethods: [{ methodType: "bearer" }] });
    await client.beta.connectors.createCredentials({ connectorIdOrName: made.id, consumerScope: "user", credentialsCreateOrUpdate: { name: "mine", credentials: { bearerToken: "t1" } } });
    await client.beta.connectors.updateCredentials({ connectorIdOrName: made.id, consumerScope: "user", credentialsCreateOrUpdate: { name: "mine", title: "Mine", credentials: { bearerToken: "t2" } } });
    await client.beta.connectors.createCredentials({ connectorIdOrName: made.id, consumerScope: "workspace", credentialsCreateOrUpdate: { name: "team", credentials: { bearerToken: "t3" } } });

    const user = await client.beta.connectors.listUserCredentials({ connectorIdOrName: made.id });
    expect(user.credentials).toMatchObject([{ name: "mine", title: "Mine", authenticationType: "bearer", scope: "user", isDefault: true }]);
    expect((await client.beta.connectors.listWorkspaceCredentials({ connectorIdOrName: made.id })).credentials.map((c) => c.name)).toEqual(["team"]);
    expect((await client.beta.connectors.listOrganizationCredentials({ connectorIdOrName: made.id })).credentials).toEqual([]);
    const methods = await client.beta.connectors.getAuthenticationMethods({ connectorIdOrName: made.id });
    expect(methods).toMatchObject([{ methodType: "bearer", hasDefaultCredentials: true }]);

    await client.beta.connectors.deleteWorkspaceCredentials({ connectorIdOrName: made.id, credentialsName: "team" });
    await client.beta.connectors.deleteUserCredentials({ connectorIdOrName: made.id, credentialsName: "mine" });
    await client.beta.connectors.createCredentials({ connectorIdOrName: made.id, consumerScope: "user", credentialsCreateOrUpdate: { name: "again", credentials: { bearerToken: "t4" } } });
    await client.beta.connectors.deleteAllUserCredentials({ connectorIdOrName: made.id });
    expect((await client.beta.connectors.listUserCredentials({ connectorIdOrName: made.id })).credentials).toEqual([]);
  });
});

describe("client.beta.connectors.getAuthUrl: GET /v1/connectors/{connector_id_or_name}/auth_url; GET /v1/connectors/{connector_id_or_name}/authentication_methods", () => {
  it("answers the authorization URL (the platform's consent page) and its ttl", async () => {
    const made = await created({ authData: { clientId: "sdk-client", clientSecret: "sdk-secret" }, oauth2ServerMetadataUrl: oauth.metadataUrl });
    const { authUrl, ttl } = await client.beta.connectors.getAuthUrl({ connectorIdOrName: made.id });
    expect(authUrl).toMatch(/\/v1\/connectors\/oauth\/consent\?state=[A-Za-z0-9_-]{43}$/);
    const page = await fetch(authUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(made.name);
    expect(ttl).toBe(600);
    expect((await client.beta.connectors.getAuthenticationMethods({ connectorIdOrName: made.id })).map((m) => m.methodType)).toEqual(["oauth2"]);
  });
});

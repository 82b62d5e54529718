/**
 * OAuth 2.0 end to end on loopback: a local authorization server, a real MCP server that accepts only the
 * tokens it issued, and the API in between (auth_url, the callback, sealed tokens, refresh on expiry).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aConnectorBody, connectorsClient } from "../../support/connectors-client.js";
import { startMcpServer, type TestMcpServer } from "../../support/mcp-server.js";
import { startOAuthServer, type TestOAuthServer } from "../../support/oauth-server.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const connectors = connectorsClient(api, tenant);
const client = { id: "platform-client", secret: "client-secret-value" };

let oauth: TestOAuthServer;
let mcp: TestMcpServer;
beforeAll(async () => {
  oauth = await startOAuthServer(client);
  mcp = await startMcpServer({ requireTokens: oauth.valid, authorizationServer: oauth.issuer });
});
afterAll(async () => {
  await mcp.close();
  await oauth.close();
});

const oauthConnector = (overrides: Record<string, unknown> = {}) =>
  connectors.created(aConnectorBody({ server: mcp.url, auth_data: { client_id: client.id, client_secret: client.secret }, ...overrides }));

/** The user's browser: follows the authorization URL to the server, which sends it back to our callback. */
async function consent(authUrl: string): Promise<Response> {
  const atServer = await fetch(authUrl, { redirect: "manual" });
  expect(atServer.status).toBe(302);
  return fetch(atServer.headers.get("location")!, { redirect: "manual" });
}

describe("GET /v1/connectors/{connector_id_or_name}/auth_url", () => {
  it("builds the authorization URL from discovered metadata, with PKCE S256, a state and the callback, valid for ttl", async () => {
    const connector = await oauthConnector();

    const reply = await connectors.authUrl(connector.id);

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ auth_url: expect.any(String), ttl: 600 });
    const url = new URL(reply.body.auth_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${oauth.issuer}/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: "code",
      client_id: client.id,
      code_challenge_method: "S256",
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      redirect_uri: `${api.url}/v1/connectors/oauth/callback`,
    });
    expect(reply.body.auth_url).not.toContain(client.secret);
  });

  it("answers 400 for a connector without OAuth, 404 for one the caller cannot see", async () => {
    const plain = await connectors.created();
    const reply = await connectors.authUrl(plain.id);
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe("oauth_not_supported");
    const stranger = connectorsClient(api, await newTenant());
    expect((await stranger.authUrl(plain.id)).status).toBe(404);
  });

  it("accepts the spec's repo_installation_link and the SDK's github_installation_link", async () => {
    const connector = await oauthConnector();
    expect((await connectors.authUrl(connector.name, { repo_installation_link: "false", github_installation_link: "false" })).status).toBe(200);
  });
});

describe("GET /v1/connectors/oauth/callback", () => {
  it("exchanges the code for tokens kept sealed as the caller's credentials, which the connector then uses", async () => {
    const connector = await oauthConnector();
    expect((await connectors.call(connector.id, "whoami")).status).toBe(502);

    const { auth_url } = (await connectors.authUrl(connector.id, { credentials_name: "work" })).body;
    const back = await consent(auth_url);

    expect(back.status).toBe(200);
    expect(await back.json()).toStrictEqual({ message: expect.stringContaining("authorized") });
    const listed = (await connectors.credentials(connector.id, "user")).body.credentials;
    expect(listed).toMatchObject([{ name: "work", authentication_type: "oauth2", scope: "user", is_default: true }]);
    const [token] = [...oauth.valid];
    expect(JSON.stringify((await connectors.get(connector.id)).body)).not.toContain(token!);
    const call = await connectors.call(connector.id, "whoami");
    expect(call.status).toBe(200);
    expect(call.body.content[0].text).toBe(`Bearer ${token}`);
  });

  it("refreshes an expired access token before using it", async () => {
    oauth.expiresIn = 1;
    try {
      const connector = await oauthConnector();
      await consent((await connectors.authUrl(connector.id)).body.auth_url);
      const first = [...oauth.valid].at(-1)!;

      const call = await connectors.call(connector.id, "whoami");

      expect(call.status).toBe(200);
      expect(oauth.grants.at(-1)).toBe("refresh_token");
      expect(call.body.content[0].text).not.toBe(`Bearer ${first}`);
      expect(oauth.valid.has(first)).toBe(false);
    } finally {
      oauth.expiresIn = 3600;
    }
  });

  it("sends the user back to app_return_url when one was given", async () => {
    const connector = await oauthConnector();
    const { auth_url } = (await connectors.authUrl(connector.id, { app_return_url: "https://app.example.com/done" })).body;
    const back = await consent(auth_url);
    expect(back.status).toBe(302);
    expect(back.headers.get("location")).toBe("https://app.example.com/done");
  });

  it("takes a state once: a replayed or unknown state answers 400 and stores nothing", async () => {
    const connector = await oauthConnector();
    const atServer = await fetch((await connectors.authUrl(connector.id)).body.auth_url, { redirect: "manual" });
    const callback = atServer.headers.get("location")!;
    expect((await fetch(callback)).status).toBe(200);

    const replay = await fetch(callback);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ code: "oauth_state_invalid" });
    expect((await fetch(`${api.url}/v1/connectors/oauth/callback?state=forged&code=x`)).status).toBe(400);
  });

  it("binds the state to the caller: the tokens are the asking user's, not another member's", async () => {
    const connector = await oauthConnector({ visibility: "shared_workspace" });
    const member = connectorsClient(api, await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, roles: ["user"] }));
    await consent((await member.authUrl(connector.id)).body.auth_url);
    expect((await member.credentials(connector.id, "user")).body.credentials).toHaveLength(1);
    expect((await connectors.credentials(connector.id, "user")).body.credentials).toHaveLength(0);
  });
});

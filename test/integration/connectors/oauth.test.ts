/**
 * OAuth 2.0 end to end on loopback: a local authorization server, a real MCP server that accepts only the
 * tokens it issued, and the API in between (auth_url, the consent page and its form, the callback, sealed
 * tokens, refresh on expiry). Browsers are cookie jars: the flow completes only in the one that confirmed.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aConnectorBody, connectorsClient } from "../../support/connectors-client.js";
import { startMcpServer, type TestMcpServer } from "../../support/mcp-server.js";
import { startOAuthServer, type TestOAuthServer } from "../../support/oauth-server.js";
import { aBrowser, consent } from "../../support/oauth-browser.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const connectors = connectorsClient(api, tenant);
const client = { id: "platform-client", secret: "client-secret-value" };

let oauth: TestOAuthServer;
let mcp: TestMcpServer;
beforeAll(async () => {
  oauth = await startOAuthServer(client);
  mcp = await startMcpServer({ requireTokens: oauth.valid, authorizationServer: oauth.issuer });
  process.env.CONNECTOR_OAUTH_RETURN_URLS = "https://app.example.com/done";
});
afterAll(async () => {
  delete process.env.CONNECTOR_OAUTH_RETURN_URLS;
  await mcp.close();
  await oauth.close();
});

const oauthConnector = (overrides: Record<string, unknown> = {}) =>
  connectors.created(aConnectorBody({ server: mcp.url, auth_data: { client_id: client.id, client_secret: client.secret }, ...overrides }));

describe("GET /v1/connectors/{connector_id_or_name}/auth_url", () => {
  it("answers the platform's consent page, which names the workspace and the connector and leads to the authorization server with PKCE S256", async () => {
    const connector = await oauthConnector({ title: "Team tracker" });

    const reply = await connectors.authUrl(connector.id);

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ auth_url: expect.any(String), ttl: 600 });
    const url = new URL(reply.body.auth_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${api.url}/v1/connectors/oauth/consent`);
    const browser = aBrowser();
    const page = await browser.get(reply.body.auth_url);
    const html = await page.text();
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(html).toContain(`Team tracker (${connector.name})`);
    expect(html).toContain("<dt>Workspace</dt><dd>test</dd>");
    const provider = new URL((await browser.submit(reply.body.auth_url, html)).headers.get("location")!);
    expect(`${provider.origin}${provider.pathname}`).toBe(`${oauth.issuer}/authorize`);
    expect(Object.fromEntries(provider.searchParams)).toMatchObject({
      response_type: "code",
      client_id: client.id,
      code_challenge_method: "S256",
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      state: url.searchParams.get("state"),
      redirect_uri: `${api.url}/v1/connectors/oauth/callback`,
    });
    expect(reply.body.auth_url).not.toContain(client.secret);
  });

  it("builds its URLs from configuration: a spoofed Host or X-Forwarded-* changes nothing", async () => {
    const connector = await oauthConnector();
    const { port } = new URL(api.url);
    const spoofed = await new Promise<any>((resolve, reject) => {
      const req = httpRequest(
        { host: "127.0.0.1", port, path: `/v1/connectors/${connector.id}/auth_url`, headers: { authorization: `Bearer ${tenant.key}`, host: "evil.example", "x-forwarded-proto": "http", "x-forwarded-host": "evil.example" } },
        (res) => {
          let text = "";
          res.on("data", (chunk) => (text += chunk));
          res.on("end", () => resolve({ status: res.statusCode, body: JSON.parse(text) }));
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(spoofed.status).toBe(200);
    expect(spoofed.body.auth_url.startsWith(`${api.url}/v1/connectors/oauth/consent?state=`)).toBe(true);
    const browser = aBrowser();
    const provider = new URL((await browser.submit(spoofed.body.auth_url, await (await browser.get(spoofed.body.auth_url)).text())).headers.get("location")!);
    expect(provider.searchParams.get("redirect_uri")).toBe(`${api.url}/v1/connectors/oauth/callback`);
  });

  it("answers 422 for an app_return_url the deployment does not list", async () => {
    const connector = await oauthConnector();
    const reply = await connectors.authUrl(connector.id, { app_return_url: "https://evil.example/done" });
    expect(reply.status).toBe(422);
    expect(reply.body.detail).toMatchObject([{ loc: ["query", "app_return_url"] }]);
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
    expect(back.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await back.text()).toContain("is authorized");
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

  it("takes a state once: a replayed or unknown state answers a 400 page and stores nothing", async () => {
    const connector = await oauthConnector();
    const browser = aBrowser();
    const authUrl = (await connectors.authUrl(connector.id)).body.auth_url;
    const confirmed = await browser.submit(authUrl, await (await browser.get(authUrl)).text());
    const callback = (await browser.get(confirmed.headers.get("location")!)).headers.get("location")!;
    const nonce = [...browser.jar].find(([name]) => name.startsWith("oauth_browser_"))!;
    expect((await browser.get(callback)).status).toBe(200);

    const replay = await fetch(callback, { headers: { cookie: `${nonce[0]}=${nonce[1].value}` } });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain("no longer valid");
    expect((await fetch(`${api.url}/v1/connectors/oauth/callback?state=forged&code=x`)).status).toBe(400);
    expect((await connectors.credentials(connector.id, "user")).body.credentials).toHaveLength(1);
  });

  it("completes only in the browser that confirmed: another browser following the same authorization is refused and stores nothing", async () => {
    const connector = await oauthConnector();
    const requester = aBrowser();
    const authUrl = (await connectors.authUrl(connector.id)).body.auth_url;
    const providerUrl = (await requester.submit(authUrl, await (await requester.get(authUrl)).text())).headers.get("location")!;

    // The requester hands the authorization server's URL to someone else, who signs in there.
    const victim = aBrowser();
    const back = await victim.get((await victim.get(providerUrl)).headers.get("location")!);
    expect(back.status).toBe(403);
    expect(await back.text()).toContain("not confirmed in this browser");
    expect((await connectors.credentials(connector.id, "user")).body.credentials).toHaveLength(0);

    // And the consent link itself, opened elsewhere after it was confirmed, is refused too.
    expect((await victim.get(authUrl)).status).toBe(409);
    expect((await victim.submit(authUrl, `<form method="post" action="/v1/connectors/oauth/consent"><input type="hidden" name="state" value="${new URL(authUrl).searchParams.get("state")}"><input type="hidden" name="csrf" value="guess">`)).status).toBe(403);
  });

  it("binds the state to the caller: the tokens are the asking user's, not another member's", async () => {
    const connector = await oauthConnector({ visibility: "shared_workspace" });
    const member = connectorsClient(api, await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, roles: ["user"] }));
    await consent((await member.authUrl(connector.id)).body.auth_url);
    expect((await member.credentials(connector.id, "user")).body.credentials).toHaveLength(1);
    expect((await connectors.credentials(connector.id, "user")).body.credentials).toHaveLength(0);
  });
});

describe("GET /v1/connectors/oauth/consent", () => {
  it("shows a strict page naming the connector, and a 400 page for a state it does not know", async () => {
    const connector = await oauthConnector();
    const authUrl = (await connectors.authUrl(connector.id)).body.auth_url;
    const page = await fetch(authUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.getSetCookie()[0]).toMatch(/^oauth_consent_[\w-]+=[\w-]+; Path=\/v1\/connectors\/oauth\/consent; Max-Age=600; HttpOnly; SameSite=Strict$/);
    expect(await page.text()).toContain(connector.name);

    const unknown = await fetch(`${api.url}/v1/connectors/oauth/consent?state=forged`);
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain("no longer valid");
  });
});

describe("POST /v1/connectors/oauth/consent", () => {
  it("sends the confirming browser to the authorization server with a cookie for the callback path only, and refuses a cross-site post", async () => {
    const connector = await oauthConnector();
    const authUrl = (await connectors.authUrl(connector.id)).body.auth_url;
    const browser = aBrowser();
    const html = await (await browser.get(authUrl)).text();
    const fields = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
    const cookie = [...browser.jar].map(([name, c]) => `${name}=${c.value}`).join("; ");

    const crossSite = await fetch(`${api.url}/v1/connectors/oauth/consent`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example", cookie }, body: new URLSearchParams(fields).toString() });
    expect(crossSite.status).toBe(403);

    const confirmed = await browser.submit(authUrl, html);
    expect(confirmed.status).toBe(302);
    expect(confirmed.headers.get("location")!.startsWith(`${oauth.issuer}/authorize?`)).toBe(true);
    expect(confirmed.headers.getSetCookie()[0]).toMatch(/^oauth_browser_[\w-]+=[\w-]+; Path=\/v1\/connectors\/oauth\/callback; Max-Age=600; HttpOnly; SameSite=Lax$/);
  });
});

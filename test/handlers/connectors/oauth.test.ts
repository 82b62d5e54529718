import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { handler as authUrl } from "../../../functions/connectors/auth-url.js";
import { handler as callback } from "../../../functions/connectors/oauth-callback.js";
import { handler as confirm } from "../../../functions/connectors/oauth-confirm.js";
import { handler as consent } from "../../../functions/connectors/oauth-consent.js";
import { browserCookieName, consentCookieName } from "../../../shared/domain/connectors/oauth-consent.js";
import { seal } from "../../../shared/store/connectors/secrets.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { aConnectorItems, aConnectorRecord } from "../../support/connector-items.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { startOAuthServer, type TestOAuthServer } from "../../support/oauth-server.js";

const dynamo = mockDynamo();
const caller = aCaller();
const client = { id: "client-1", secret: "secret-1" };
const BASE = "https://platform.example.test/prod";
const CONSENT = "/v1/connectors/oauth/consent";
const CALLBACK = "/v1/connectors/oauth/callback";
let tables: FakeTables;
let oauth: TestOAuthServer;
beforeAll(async () => {
  oauth = await startOAuthServer(client);
});
afterAll(() => oauth.close());
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
  process.env.PUBLIC_URL = BASE;
  process.env.CONNECTOR_OAUTH_RETURN_URLS = "https://app.example.com/done,https://app.example.com/flows/";
});
afterEach(() => {
  delete process.env.PUBLIC_URL;
  delete process.env.CONNECTOR_OAUTH_RETURN_URLS;
});

async function oauthConnector() {
  const id = crypto.randomUUID();
  const secrets = await seal(JSON.stringify({ headers: {}, clientSecret: client.secret }), { organization: caller.organization, connector: id });
  const record = aConnectorRecord(caller, { id, authMethods: ["oauth2"], oauthClientId: client.id, oauthMetadataUrl: oauth.metadataUrl, secrets });
  tables.put("connectors", ...aConnectorItems(record));
  return record;
}
const asking = (ref: string, query: Record<string, string> = {}, headers: Record<string, string> = {}) =>
  anEvent({ path: `/v1/connectors/${ref}/auth_url`, resource: "/v1/connectors/{connector_id_or_name}/auth_url", pathParameters: { connector_id_or_name: ref }, query, caller, headers });
const stateItem = (state: string) => tables.items("connectors").find((i) => i.pk === `OAUTH#${state}`);
/** The cookie a Set-Cookie value sets, and its attributes. */
const cookieOf = (header: unknown) => {
  const [pair, ...attributes] = String(header).split("; ");
  return { value: decodeURIComponent(pair!.slice(pair!.indexOf("=") + 1)), name: pair!.slice(0, pair!.indexOf("=")), attributes };
};
const formEvent = (fields: Record<string, string>, headers: Record<string, string>) =>
  anEvent({ method: "POST", path: CONSENT, caller: null, headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers }, body: new URLSearchParams(fields).toString() });

/** auth_url, the consent page read in a browser, and its form posted from there. */
async function confirmed(query: Record<string, string> = {}) {
  const record = await oauthConnector();
  const state = new URL((await invoke(authUrl, asking(record.id, query))).json.auth_url).searchParams.get("state")!;
  const page = await invoke(consent, anEvent({ path: CONSENT, query: { state }, caller: null }));
  const csrf = cookieOf(page.headers!["set-cookie"]).value;
  const answer = await invoke(confirm, formEvent({ state, csrf }, { Cookie: `${consentCookieName(state)}=${csrf}`, Origin: "https://platform.example.test" }));
  return { record, state, answer, nonce: cookieOf(answer.headers!["set-cookie"]).value };
}

/** The browser at the authorization server: it consents at once and sends the browser back with a code. */
async function atServer(providerUrl: string): Promise<Record<string, string>> {
  const back = new URL((await fetch(providerUrl, { redirect: "manual" })).headers.get("location")!);
  return Object.fromEntries(back.searchParams);
}
const callbackEvent = (query: Record<string, string>, cookie?: string) => anEvent({ path: CALLBACK, query, caller: null, headers: cookie ? { Cookie: cookie } : {} });

describe("GET /v1/connectors/{connector_id_or_name}/auth_url", () => {
  it("answers the platform's consent page and keeps the state, verifier and authorization URL bound to the caller until ttl", async () => {
    const record = await oauthConnector();
    const response = await invoke(authUrl, asking(record.id, { credentials_name: "work" }));

    expect(response.statusCode).toBe(200);
    const url = new URL(response.json.auth_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${BASE}${CONSENT}`);
    const state = url.searchParams.get("state")!;
    const item = stateItem(state)!;
    expect(item).toMatchObject({ connectorId: record.id, organization: caller.organization, workspace: caller.workspace, principal: caller.principal, scope: "user", credentialsName: "work", redirectUri: `${BASE}${CALLBACK}` });
    expect(item.nonceHash).toBeUndefined();
    const provider = new URL(String(item.providerUrl));
    expect(`${provider.origin}${provider.pathname}`).toBe(`${oauth.issuer}/authorize`);
    expect(Object.fromEntries(provider.searchParams)).toMatchObject({ state, redirect_uri: `${BASE}${CALLBACK}`, code_challenge_method: "S256" });
    expect(Number(item.ttl)).toBe(item.expiresAt);
    expect(Number(item.ttl) - Date.now() / 1000).toBeGreaterThan(590);
  });

  it("builds its URLs from PUBLIC_URL only, whatever Host and X-Forwarded-* say", async () => {
    const record = await oauthConnector();
    const spoofed = await invoke(authUrl, asking(record.id, {}, { Host: "evil.example", "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "http" }));
    const url = new URL(spoofed.json.auth_url);
    expect(url.origin).toBe("https://platform.example.test");
    expect(stateItem(url.searchParams.get("state")!)).toMatchObject({ redirectUri: `${BASE}${CALLBACK}` });
  });

  it("answers 422 for an app_return_url the deployment does not list, and stores nothing", async () => {
    const record = await oauthConnector();
    for (const unlisted of ["https://evil.example/done", "https://app.example.com/other", "https://app.example.com@evil.example/done", "https://app.example.com/flows"]) {
      const response = await invoke(authUrl, asking(record.id, { app_return_url: unlisted }));
      expect(response.statusCode, unlisted).toBe(422);
      expect(response.json.detail[0].loc).toEqual(["query", "app_return_url"]);
    }
    expect(dynamo.commandCalls(PutCommand).filter((c) => String(c.args[0].input.Item?.pk).startsWith("OAUTH#"))).toHaveLength(0);
    expect((await invoke(authUrl, asking(record.id, { app_return_url: "https://app.example.com/flows/42?step=2" }))).statusCode).toBe(200);
  });

  it("answers 422 for a method_type other than oauth2", async () => {
    const record = await oauthConnector();
    expect((await invoke(authUrl, asking(record.id, { method_type: "bearer" }))).statusCode).toBe(422);
  });
});

describe("GET /v1/connectors/oauth/consent", () => {
  it("names who asks and for which connector, on a page without script, and sets the form's token as a Strict cookie", async () => {
    const record = await oauthConnector();
    const state = new URL((await invoke(authUrl, asking(record.id))).json.auth_url).searchParams.get("state")!;

    const page = await invoke(consent, anEvent({ path: CONSENT, query: { state }, caller: null }));

    expect(page.statusCode).toBe(200);
    expect(page.headers!["content-type"]).toBe("text/html; charset=utf-8");
    const policy = String(page.headers!["content-security-policy"]);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain(`form-action 'self' ${oauth.issuer}`);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain("script-src");
    expect(page.body).not.toContain("<script");
    expect(page.body).toContain(record.name);
    expect(page.body).toContain(caller.workspace);
    const cookie = cookieOf(page.headers!["set-cookie"]);
    expect(cookie.name).toBe(consentCookieName(state));
    expect(cookie.attributes).toEqual(expect.arrayContaining(["Path=/prod/v1/connectors/oauth/consent", "HttpOnly", "SameSite=Strict", "Secure"]));
    expect(page.body).toContain(`name="csrf" value="${cookie.value}"`);
  });

  it("escapes the names it shows", async () => {
    const id = crypto.randomUUID();
    const secrets = await seal(JSON.stringify({ headers: {}, clientSecret: client.secret }), { organization: caller.organization, connector: id });
    tables.put("connectors", ...aConnectorItems(aConnectorRecord(caller, { id, title: '<img src=x onerror="alert(1)">', authMethods: ["oauth2"], oauthClientId: client.id, oauthMetadataUrl: oauth.metadataUrl, secrets })));
    const state = new URL((await invoke(authUrl, asking(id))).json.auth_url).searchParams.get("state")!;
    const page = await invoke(consent, anEvent({ path: CONSENT, query: { state }, caller: null }));
    expect(page.body).not.toContain("<img");
    expect(page.body).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
  });

  it("answers an unknown state with a 400 page", async () => {
    const page = await invoke(consent, anEvent({ path: CONSENT, query: { state: "forged" }, caller: null }));
    expect(page.statusCode).toBe(400);
    expect(page.body).toContain("no longer valid");
  });
});

describe("POST /v1/connectors/oauth/consent", () => {
  it("binds the flow to this browser once and sends it to the authorization server with a Lax cookie for the callback only", async () => {
    const { state, answer, nonce } = await confirmed();

    expect(answer.statusCode).toBe(302);
    expect(answer.headers!.location).toBe(stateItem(state)!.providerUrl);
    const cookie = cookieOf(answer.headers!["set-cookie"]);
    expect(cookie.name).toBe(browserCookieName(state));
    expect(cookie.attributes).toEqual(expect.arrayContaining(["Path=/prod/v1/connectors/oauth/callback", "HttpOnly", "SameSite=Lax", "Secure", "Max-Age=600"]));
    expect(stateItem(state)!.nonceHash).toEqual(expect.any(String));
    expect(stateItem(state)!.nonceHash).not.toBe(nonce);
  });

  it("refuses a form without the page's cookie, with another token, or from another origin, and binds nothing", async () => {
    const record = await oauthConnector();
    const state = new URL((await invoke(authUrl, asking(record.id))).json.auth_url).searchParams.get("state")!;
    const page = await invoke(consent, anEvent({ path: CONSENT, query: { state }, caller: null }));
    const csrf = cookieOf(page.headers!["set-cookie"]).value;
    const cookie = `${consentCookieName(state)}=${csrf}`;

    for (const [fields, headers] of [
      [{ state, csrf }, {}],
      [{ state, csrf: "x".repeat(csrf.length) }, { Cookie: cookie }],
      [{ state, csrf }, { Cookie: cookie, Origin: "https://evil.example" }],
      [{ state, csrf }, { Cookie: cookie, "Sec-Fetch-Site": "cross-site" }],
    ] as const) {
      const answer = await invoke(confirm, formEvent(fields, headers));
      expect(answer.statusCode, JSON.stringify(headers)).toBe(403);
      expect(answer.headers!["set-cookie"]).toBeUndefined();
    }
    expect(stateItem(state)!.nonceHash).toBeUndefined();
  });

  it("refuses a second confirmation of the same flow (409), so no second browser can take it over", async () => {
    const { state } = await confirmed();
    const page = await invoke(consent, anEvent({ path: CONSENT, query: { state }, caller: null }));
    expect(page.statusCode).toBe(409);
  });

  it("answers 422 for a form without its fields", async () => {
    expect((await invoke(confirm, formEvent({}, {}))).statusCode).toBe(422);
  });
});

describe("GET /v1/connectors/oauth/callback", () => {
  it("from the confirming browser: takes the state once, exchanges the code and stores sealed oauth2 credentials for the asking user", async () => {
    const { state, nonce } = await confirmed();
    const query = await atServer(String(stateItem(state)!.providerUrl));
    const cookie = `${browserCookieName(state)}=${nonce}`;

    const response = await invoke(callback, callbackEvent(query, cookie));

    expect(response.statusCode).toBe(200);
    expect(response.headers!["content-type"]).toBe("text/html; charset=utf-8");
    expect(cookieOf(response.headers!["set-cookie"]).attributes).toContain("Max-Age=0");
    const stored = tables.items("connectors").find((i) => String(i.sk).startsWith("CRED#"));
    expect(stored).toMatchObject({ sk: `CRED#user#${caller.principal}#default`, authType: "oauth2", secret: expect.stringMatching(/^v1\./) });
    expect(JSON.stringify(stored)).not.toContain([...oauth.valid].at(-1)!);
    expect(stateItem(state)).toBeUndefined();
    expect((await invoke(callback, callbackEvent(query, cookie))).statusCode).toBe(400);
  });

  it("refuses another browser (no cookie, or another one) with a 403 page, stores nothing and leaves the flow to its browser", async () => {
    const { state, nonce } = await confirmed();
    const query = await atServer(String(stateItem(state)!.providerUrl));

    for (const cookie of [undefined, `${browserCookieName(state)}=${"y".repeat(nonce.length)}`]) {
      const refused = await invoke(callback, callbackEvent(query, cookie));
      expect(refused.statusCode).toBe(403);
      expect(refused.body).toContain("not confirmed in this browser");
    }
    expect(tables.items("connectors").some((i) => String(i.sk).startsWith("CRED#"))).toBe(false);
    expect(stateItem(state)).toBeDefined();
    expect((await invoke(callback, callbackEvent(query, `${browserCookieName(state)}=${nonce}`))).statusCode).toBe(200);
  });

  it("refuses a flow nobody confirmed on the consent page, even with a code", async () => {
    const record = await oauthConnector();
    const state = new URL((await invoke(authUrl, asking(record.id))).json.auth_url).searchParams.get("state")!;
    const query = await atServer(String(stateItem(state)!.providerUrl));
    expect((await invoke(callback, callbackEvent(query))).statusCode).toBe(403);
    expect((await invoke(callback, callbackEvent(query, `${browserCookieName(state)}=anything`))).statusCode).toBe(403);
  });

  it("sends the user back to an allowed app_return_url", async () => {
    const { state, nonce } = await confirmed({ app_return_url: "https://app.example.com/done" });
    const query = await atServer(String(stateItem(state)!.providerUrl));
    const response = await invoke(callback, callbackEvent(query, `${browserCookieName(state)}=${nonce}`));
    expect(response.statusCode).toBe(302);
    expect(response.headers!.location).toBe("https://app.example.com/done");
  });

  it("answers a 400 page when the server sent an error instead of a code", async () => {
    const { state, nonce } = await confirmed();
    const response = await invoke(callback, callbackEvent({ state, error: "access_denied" }, `${browserCookieName(state)}=${nonce}`));
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain("access_denied");
    expect(tables.items("connectors").some((i) => String(i.sk).startsWith("CRED#"))).toBe(false);
  });
});

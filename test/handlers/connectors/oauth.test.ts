import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { handler as authUrl } from "../../../functions/connectors/auth-url.js";
import { handler as callback } from "../../../functions/connectors/oauth-callback.js";
import { seal } from "../../../shared/store/connectors/secrets.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { aConnectorItems, aConnectorRecord } from "../../support/connector-items.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { startOAuthServer, type TestOAuthServer } from "../../support/oauth-server.js";

const dynamo = mockDynamo();
const caller = aCaller();
const client = { id: "client-1", secret: "secret-1" };
let tables: FakeTables;
let oauth: TestOAuthServer;
beforeAll(async () => {
  oauth = await startOAuthServer(client);
});
afterAll(() => oauth.close());
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
});

async function oauthConnector() {
  const id = crypto.randomUUID();
  const secrets = await seal(JSON.stringify({ headers: {}, clientSecret: client.secret }), { organization: caller.organization, connector: id });
  const record = aConnectorRecord(caller, { id, authMethods: ["oauth2"], oauthClientId: client.id, oauthMetadataUrl: oauth.metadataUrl, secrets });
  tables.put("connectors", ...aConnectorItems(record));
  return record;
}
const asking = (ref: string, query: Record<string, string> = {}) =>
  anEvent({ path: `/v1/connectors/${ref}/auth_url`, resource: "/v1/connectors/{connector_id_or_name}/auth_url", pathParameters: { connector_id_or_name: ref }, query, caller });

describe("GET /v1/connectors/{connector_id_or_name}/auth_url", () => {
  it("keeps the state and PKCE verifier, bound to the caller, until ttl, and answers the URL", async () => {
    const record = await oauthConnector();
    const response = await invoke(authUrl, asking(record.id, { credentials_name: "work" }));

    expect(response.statusCode).toBe(200);
    const url = new URL(response.json.auth_url);
    expect(url.searchParams.get("redirect_uri")).toBe("https://api.example.test/prod/v1/connectors/oauth/callback");
    const [put] = dynamo.commandCalls(PutCommand);
    const item = put!.args[0].input.Item!;
    expect(item).toMatchObject({ pk: `OAUTH#${url.searchParams.get("state")}`, connectorId: record.id, organization: caller.organization, workspace: caller.workspace, principal: caller.principal, scope: "user", credentialsName: "work" });
    expect(item.ttl).toBe(item.expiresAt);
    expect(item.ttl - Date.now() / 1000).toBeGreaterThan(590);
  });

  it("answers 422 for a method_type other than oauth2", async () => {
    const record = await oauthConnector();
    expect((await invoke(authUrl, asking(record.id, { method_type: "bearer" }))).statusCode).toBe(422);
  });
});

describe("GET /v1/connectors/oauth/callback", () => {
  it("takes the state once, exchanges the code and stores sealed oauth2 credentials for the asking user", async () => {
    const record = await oauthConnector();
    const asked = await invoke(authUrl, asking(record.id));
    const atServer = await fetch(asked.json.auth_url, { redirect: "manual" });
    const back = new URL(atServer.headers.get("location")!);

    const response = await invoke(callback, anEvent({ path: "/v1/connectors/oauth/callback", query: Object.fromEntries(back.searchParams), caller: null }));

    expect(response.statusCode).toBe(200);
    const stored = tables.items("connectors").find((i) => String(i.sk).startsWith("CRED#"));
    expect(stored).toMatchObject({ sk: `CRED#user#${caller.principal}#default`, authType: "oauth2", secret: expect.stringMatching(/^v1\./) });
    expect(JSON.stringify(stored)).not.toContain([...oauth.valid][0]!);
    expect(tables.items("connectors").some((i) => String(i.pk).startsWith("OAUTH#"))).toBe(false);
    const replay = await invoke(callback, anEvent({ path: "/v1/connectors/oauth/callback", query: Object.fromEntries(back.searchParams), caller: null }));
    expect(replay.statusCode).toBe(400);
  });

  it("answers 400 when the server sent an error instead of a code", async () => {
    const record = await oauthConnector();
    const state = new URL((await invoke(authUrl, asking(record.id))).json.auth_url).searchParams.get("state")!;
    const response = await invoke(callback, anEvent({ path: "/v1/connectors/oauth/callback", query: { state, error: "access_denied" }, caller: null }));
    expect(response.statusCode).toBe(400);
    expect(response.json.code).toBe("oauth_denied");
  });
});

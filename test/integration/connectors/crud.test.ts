import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aConnectorBody, connectorsClient } from "../../support/connectors-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi();
const connectors = connectorsClient(api, tenant);

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("POST /v1/connectors", () => {
  it("creates a private MCP connector owned by its creator and answers 201 with the whole record", async () => {
    const reply = await connectors.create(aConnectorBody({ name: "github", title: "GitHub", description: "Issues and PRs", server: "https://mcp.example.com/mcp" }));

    expect(reply.status).toBe(201);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.body).toStrictEqual({
      id: expect.stringMatching(UUID),
      name: "github",
      title: "GitHub",
      description: "Issues and PRs",
      created_at: expect.stringMatching(ISO),
      modified_at: expect.stringMatching(ISO),
      server: "https://mcp.example.com/mcp",
      protocol: "mcp",
      supports_mcp: true,
      icon_url: null,
      server_card: null,
      owner_id: tenant.caller.principal,
      owner_type: "user",
      visibility: "private",
      creator_id: tenant.caller.principal,
      locale: null,
      system_prompt: null,
      supported_auth_methods: [{ method_type: "none", headers: null, global_headers: {}, has_default_credentials: true, oauth2_server_metadata: null }],
      connection_preferences: null,
      connection_credentials: [],
      active: false,
      private_tool_execution: false,
      mistral: false,
      is_authenticated: true,
      tools: null,
      system_prompt_route: null,
      connection_config: null,
      execution_env: null,
    });
  });

  it("creates an HTTP connector (protocol in lower case) and one with bearer auth", async () => {
    const http = await connectors.created(aConnectorBody({ protocol: "http" }));
    expect(http).toMatchObject({ protocol: "http", supports_mcp: false });
    const bearer = await connectors.created(aConnectorBody({ auth_methods: [{ method_type: "bearer" }] }));
    expect(bearer).toMatchObject({ is_authenticated: false, supported_auth_methods: [{ method_type: "bearer", has_default_credentials: false }] });
  });

  it("answers 409 for a name the organization already has, 422 for a bad body", async () => {
    await connectors.created(aConnectorBody({ name: "dup" }));
    const again = await connectors.create(aConnectorBody({ name: "dup" }));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ type: "conflict_error", code: "connector_name_taken" });

    for (const [body, loc] of [
      [{ ...aConnectorBody(), server: "ftp://x" }, "server"],
      [{ ...aConnectorBody(), protocol: "MCP" }, "protocol"],
      [{ ...aConnectorBody(), name: randomUUID() }, "name"],
      [{ ...aConnectorBody(), visibility: "shared_global" }, "visibility"],
      [{ description: "x", server: "https://a.example" }, "name"],
    ] as const) {
      const reply = await connectors.create(body);
      expect(reply.status, JSON.stringify(body)).toBe(422);
      expect(reply.body.detail[0].loc).toEqual(["body", loc]);
    }
  });

  it("needs auth_data for an oauth2 connector, and keeps the client secret out of every answer", async () => {
    const missing = await connectors.create(aConnectorBody({ auth_methods: [{ method_type: "oauth2" }] }));
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: "oauth_client_missing", param: "auth_data" });
    const made = await connectors.create(aConnectorBody({ auth_data: { client_id: "client", client_secret: "very-secret" } }));
    expect(made.status).toBe(201);
    expect(JSON.stringify(made.body)).not.toContain("very-secret");
  });

  it("creating an already shared connector needs the share permission", async () => {
    const contributor = connectorsClient(api, await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, roles: ["contributor"] }));
    expect((await contributor.create(aConnectorBody({ visibility: "shared_workspace" }))).status).toBe(403);
    expect((await connectors.create(aConnectorBody({ visibility: "shared_workspace" }))).body).toMatchObject({ visibility: "shared_workspace", owner_type: "workspace" });
  });
});

describe("GET /v1/connectors", () => {
  it("pages with a cursor, page_size 100 by default, oldest first", async () => {
    const made = [];
    for (let i = 0; i < 5; i += 1) made.push((await connectors.created()).id);

    const all = await connectors.list();
    expect(all.status).toBe(200);
    expect(all.body.items.map((c: any) => c.id)).toEqual(made);
    expect(all.body.pagination).toStrictEqual({ next_cursor: null, page_size: 100 });

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await connectors.list({ page_size: 2, ...(cursor ? { cursor } : {}) });
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((c: any) => c.id));
      cursor = page.body.pagination.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(made);
  });

  it("shows only what the caller may see: not another member's private connectors, nor another organization's", async () => {
    const mine = await connectors.created();
    const member = connectorsClient(api, await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, roles: ["contributor"] }));
    const theirs = await member.created();
    const stranger = connectorsClient(api, await newTenant());
    await stranger.created();

    expect((await connectors.list()).body.items.map((c: any) => c.id)).toEqual([mine.id]);
    expect((await member.list()).body.items.map((c: any) => c.id)).toEqual([theirs.id]);
  });

  it("filters on active (exploded or as query_filters JSON)", async () => {
    const on = await connectors.created();
    await connectors.created();
    await connectors.activate(on.id, "user");
    expect((await connectors.list({ active: "true" })).body.items.map((c: any) => c.id)).toEqual([on.id]);
    expect((await connectors.list({ query_filters: JSON.stringify({ active: false }) })).body.items.map((c: any) => c.id)).not.toContain(on.id);
  });

  it("answers 422 for a cursor it did not issue and a page_size out of range", async () => {
    expect((await connectors.list({ cursor: "garbage" })).status).toBe(422);
    expect((await connectors.list({ page_size: 0 })).status).toBe(422);
    expect((await connectors.list({ page_size: 1001 })).status).toBe(422);
  });
});

describe("GET /v1/connectors/{connector_id_or_name}", () => {
  it("finds a connector by id or by name; 404 for others' and unknown ones", async () => {
    const made = await connectors.created();
    expect((await connectors.get(made.id)).body).toStrictEqual(made);
    expect((await connectors.get(made.name)).body).toStrictEqual(made);
    expect((await connectors.get(randomUUID())).status).toBe(404);
    const stranger = connectorsClient(api, await newTenant());
    const reply = await stranger.get(made.id);
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe("connector_not_found");
  });
});

describe("PATCH /v1/connectors/{connector_id}", () => {
  it("changes the given fields and the name (freeing the old one)", async () => {
    const made = await connectors.created(aConnectorBody({ name: "before" }));
    const reply = await connectors.update(made.id, { name: "after", description: "new", title: "T" });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: made.id, name: "after", description: "new", title: "T", server: made.server });
    expect((await connectors.get("after")).body.id).toBe(made.id);
    expect((await connectors.get("before")).status).toBe(404);
    expect((await connectors.create(aConnectorBody({ name: "before" }))).status).toBe(201);
    expect((await connectors.update(made.id, { name: "before" })).status).toBe(409);
  });

  it("lets only the creator change a workspace-shared connector, or a holder of ShareConnectorToWorkspace", async () => {
    const made = await connectors.created(aConnectorBody({ visibility: "shared_workspace" }));
    const member = connectorsClient(api, await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, roles: ["contributor"] }));
    expect((await member.update(made.id, { description: "mine now" })).status).toBe(403);
    expect((await connectors.get(made.id)).body.description).toBe(made.description);
  });
});

describe("DELETE /v1/connectors/{connector_id}", () => {
  it("deletes the connector, its name and its connections", async () => {
    const made = await connectors.created();
    await connectors.activate(made.id, "user");
    const reply = await connectors.remove(made.id);
    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ message: expect.any(String) });
    expect((await connectors.get(made.id)).status).toBe(404);
    expect((await connectors.remove(made.id)).status).toBe(404);
    expect((await connectors.create(aConnectorBody({ name: made.name }))).status).toBe(201);
  });
});

describe("GET /v1/connectors/{connector_id_or_name}/authentication_methods", () => {
  it("answers the methods the connector supports", async () => {
    const made = await connectors.created(aConnectorBody({ auth_methods: [{ method_type: "bearer" }, { method_type: "none" }] }));
    const reply = await connectors.authMethods(made.name);
    expect(reply.status).toBe(200);
    expect(reply.body.map((m: any) => m.method_type)).toEqual(["bearer", "none"]);
  });
});

describe("POST /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials", () => {
  it("stores credentials sealed, lists them without their secret, and uses the default", async () => {
    const made = await connectors.created(aConnectorBody({ auth_methods: [{ method_type: "bearer" }] }));
    const reply = await connectors.createCredentials(made.id, "user", { name: "work", title: "Work account", credentials: { bearer_token: "tok-1" } });
    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ message: expect.any(String) });
    expect((await connectors.createCredentials(made.id, "user", { name: "work", credentials: { bearer_token: "x" } })).status).toBe(409);

    const listed = await connectors.credentials(made.id, "user");
    expect(listed.body).toStrictEqual({
      credentials: [{ name: "work", title: "Work account", authentication_type: "bearer", scope: "user", status: { status_type: "valid", last_checked_at: expect.stringMatching(ISO) }, is_default: true, creator_id: null }],
      connector_preset_credentials_for_auth: [],
    });
    expect(JSON.stringify(listed.body)).not.toContain("tok-1");
    expect((await connectors.get(made.id)).body).toMatchObject({ is_authenticated: true, supported_auth_methods: [{ method_type: "bearer", has_default_credentials: true }] });
  });

  it("needs a bearer_token or headers (400), and ShareConnectorToWorkspace for the workspace's", async () => {
    const made = await connectors.created();
    expect((await connectors.createCredentials(made.id, "user", { name: "empty" })).status).toBe(400);
    const member = connectorsClient(api, await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, roles: ["user"] }));
    await connectors.share(made.id);
    expect((await member.createCredentials(made.id, "workspace", { name: "w", credentials: { bearer_token: "t" } })).status).toBe(403);
    expect((await member.createCredentials(made.id, "user", { name: "w", credentials: { bearer_token: "t" } })).status).toBe(200);
  });
});

describe("PATCH /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials", () => {
  it("replaces existing credentials; 404 for unknown ones", async () => {
    const made = await connectors.created();
    await connectors.createCredentials(made.id, "user", { name: "a", credentials: { bearer_token: "1" } });
    await connectors.createCredentials(made.id, "user", { name: "b", credentials: { bearer_token: "2" } });
    expect((await connectors.updateCredentials(made.id, "user", { name: "b", is_default: true, credentials: { bearer_token: "3" } })).status).toBe(200);
    const listed = (await connectors.credentials(made.id, "user")).body.credentials;
    expect(listed.map((c: any) => [c.name, c.is_default])).toEqual([["a", false], ["b", true]]);
    expect((await connectors.credentials(made.id, "user", { fetch_default: "true" })).body.credentials.map((c: any) => c.name)).toEqual(["b"]);
    expect((await connectors.updateCredentials(made.id, "user", { name: "zzz", credentials: { bearer_token: "3" } })).status).toBe(404);
  });
});

describe("GET /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials", () => {
  it("lists only the scope's own credentials", async () => {
    const made = await connectors.created();
    await connectors.createCredentials(made.id, "user", { name: "u", credentials: { bearer_token: "1" } });
    await connectors.createCredentials(made.id, "workspace", { name: "w", credentials: { bearer_token: "2" } });
    expect((await connectors.credentials(made.id, "workspace")).body.credentials.map((c: any) => [c.name, c.scope])).toEqual([["w", "workspace"]]);
    expect((await connectors.credentials(made.id, "organization")).body.credentials).toEqual([]);
  });
});

describe("DELETE /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials/{credentials_name}", () => {
  it("deletes one; 404 when there is none", async () => {
    const made = await connectors.created();
    await connectors.createCredentials(made.id, "user", { name: "u", credentials: { bearer_token: "1" } });
    expect((await connectors.deleteCredentials(made.id, "user", "u")).status).toBe(200);
    expect((await connectors.deleteCredentials(made.id, "user", "u")).status).toBe(404);
  });
});

describe("DELETE /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials", () => {
  it("deletes all of the user's own credentials, no one else's", async () => {
    const made = await connectors.created();
    await connectors.createCredentials(made.id, "user", { name: "a", credentials: { bearer_token: "1" } });
    await connectors.createCredentials(made.id, "user", { name: "b", credentials: { bearer_token: "2" } });
    await connectors.createCredentials(made.id, "workspace", { name: "w", credentials: { bearer_token: "3" } });
    expect((await connectors.deleteAllUserCredentials(made.id)).status).toBe(200);
    expect((await connectors.credentials(made.id, "user")).body.credentials).toEqual([]);
    expect((await connectors.credentials(made.id, "workspace")).body.credentials).toHaveLength(1);
  });
});

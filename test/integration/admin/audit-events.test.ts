/**
 * The audit log end to end (docs/decisions/0044-audit-log.md): every privileged route of the route table records
 * its event, answered by "what did key K change" through the admin route's filters; a sequence of changes from
 * the API and the CLIs' services reads back exactly; another organization's events stay out of sight.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes as routeTable } from "../../../functions/routes.js";
import { AUDIT_OPERATIONS } from "../../../shared/domain/audit.js";
import { cliOrigin, withChangeOrigin } from "../../../shared/observability/change-origin.js";
import { consent } from "../../support/oauth-browser.js";
import { useEmbeddedApi } from "../../support/api.js";
import { aConnectorBody, connectorsClient } from "../../support/connectors-client.js";
import { filesClient } from "../../support/files-client.js";
import { startMcpServer, type TestMcpServer } from "../../support/mcp-server.js";
import { startOAuthServer, type TestOAuthServer } from "../../support/oauth-server.js";
import { newTenant, type TestTenant } from "../../support/tenant.js";
import { aUserOf } from "../../support/users.js";
import { workersClient } from "../../support/workers-client.js";
import { seedRegistration } from "../../support/workflow-builders.js";
import { EXAMPLE_ACTIVITIES, exampleProgram } from "../../support/workflow-programs.js";

const { api, tenant } = useEmbeddedApi();
const http = (who: Pick<TestTenant, "key"> = tenant) => filesClient(api, who);
const connectors = () => connectorsClient(api, tenant);
const client = { id: "audit-client", secret: "audit-client-secret" };

let oauth: TestOAuthServer;
let mcp: TestMcpServer;
beforeAll(async () => {
  oauth = await startOAuthServer(client);
  mcp = await startMcpServer({ requireTokens: oauth.valid, authorizationServer: oauth.issuer });
});
afterAll(async () => {
  await mcp?.close();
  await oauth?.close();
});

async function ok(reply: Promise<{ status: number; body: any }> | { status: number; body: any }, what: string) {
  const answer = await reply;
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
  return answer.body;
}

const events = async (query: Record<string, string | number>, who: Pick<TestTenant, "key"> = tenant) => ok(http(who).request("GET", "/v1/admin/audit-events", { query }), "audit events");

/** A workspace of the tenant's organization with a user as its admin, made through the API. */
async function aWorkspace(): Promise<{ id: string; owner: string }> {
  const owner = await aUserOf(tenant.caller.organization);
  const workspace = await ok(http().request("POST", "/v1/admin/workspaces", { json: { name: "Audited", admin_user_id: owner.id } }), "workspace");
  return { id: workspace.uuid, owner: owner.id };
}
const aServiceAccount = async () => ok(http().request("POST", "/v1/service-accounts", { json: { name: "robot", workspace_id: tenant.caller.workspace } }), "service account");
const aConnector = (overrides: Record<string, unknown> = {}) => connectors().created(aConnectorBody(overrides));
const aWorkflow = (archived = false) => seedRegistration(tenant.caller.workspace, { organization: tenant.caller.organization, workflow: { archived } });
const aDeployment = async (hardened = false) => {
  const name = `audited-${Math.random().toString(36).slice(2, 8)}`;
  const created = await ok(http().request("POST", "/v1/workflows/deployments", { json: { name, spec: { github_url: "https://x" }, hardened } }), "deployment");
  return { name, id: created.service_id as string };
};

/**
 * One successful call of each privileged row, made with the tenant's key; it answers the id the event must
 * name among its targets. Keyed by the row's "METHOD path": the test below fails for a privileged row without one.
 */
const calls: Record<string, () => Promise<string>> = {
  "POST /v1/admin/workspaces": async () => (await aWorkspace()).id,
  "DELETE /v1/admin/workspaces/{workspace_uuid}": async () => {
    const { id } = await aWorkspace();
    await ok(http().request("DELETE", `/v1/admin/workspaces/${id}`), "archive");
    return id;
  },
  "PATCH /v1/admin/workspaces/{workspace_uuid}": async () => {
    const { id } = await aWorkspace();
    await ok(http().request("PATCH", `/v1/admin/workspaces/${id}`, { json: { name: "Renamed" } }), "update");
    return id;
  },
  "POST /v1/admin/workspaces/{workspace_uuid}/add-users": async () => {
    const { id } = await aWorkspace();
    const user = await aUserOf(tenant.caller.organization);
    await ok(http().request("POST", `/v1/admin/workspaces/${id}/add-users`, { json: { members: [{ user_uuid: user.id }] } }), "add users");
    return user.id;
  },
  "PATCH /v1/admin/workspaces/{workspace_uuid}/users": async () => {
    const { id, owner } = await aWorkspace();
    const user = await aUserOf(tenant.caller.organization);
    await ok(http().request("PATCH", `/v1/admin/workspaces/${id}/users`, { json: { members: [{ user_uuid: user.id, role_name: "workspace_admin" }, { user_uuid: owner, role_name: "workspace_admin" }] } }), "put users");
    return user.id;
  },
  "DELETE /v1/admin/workspaces/{workspace_uuid}/remove-users": async () => {
    const { id } = await aWorkspace();
    const user = await aUserOf(tenant.caller.organization);
    await ok(http().request("POST", `/v1/admin/workspaces/${id}/add-users`, { json: { members: [{ user_uuid: user.id }] } }), "add users");
    await ok(http().request("DELETE", `/v1/admin/workspaces/${id}/remove-users`, { json: { members: [{ user_uuid: user.id }] } }), "remove users");
    return user.id;
  },
  "POST /v1/service-accounts": async () => (await aServiceAccount()).id,
  "DELETE /v1/service-accounts/{service_account_id}": async () => {
    const account = await aServiceAccount();
    await ok(http().request("DELETE", `/v1/service-accounts/${account.id}`), "delete account");
    return account.id;
  },
  "PATCH /v1/service-accounts/{service_account_id}": async () => {
    const account = await aServiceAccount();
    await ok(http().request("PATCH", `/v1/service-accounts/${account.id}`, { json: { description: "changed" } }), "update account");
    return account.id;
  },
  "PUT /v1/service-accounts/{service_account_id}/roles": async () => {
    const account = await aServiceAccount();
    await ok(http().request("PUT", `/v1/service-accounts/${account.id}/roles`, { json: { role_ids: ["workspace_admin"] } }), "roles");
    return account.id;
  },
  "POST /v1/service-accounts/{service_account_id}/keys": async () => {
    const account = await aServiceAccount();
    return (await ok(http().request("POST", `/v1/service-accounts/${account.id}/keys`, { json: { name: "k" } }), "key")).id;
  },
  "PATCH /v1/service-accounts/{service_account_id}/keys/{key_id}": async () => {
    const account = await aServiceAccount();
    const key = await ok(http().request("POST", `/v1/service-accounts/${account.id}/keys`, { json: { name: "k" } }), "key");
    await ok(http().request("PATCH", `/v1/service-accounts/${account.id}/keys/${key.id}`, { json: { tokens_per_minute: 1000 } }), "key limits");
    return key.id;
  },
  "DELETE /v1/service-accounts/{service_account_id}/keys/{key_id}": async () => {
    const account = await aServiceAccount();
    const key = await ok(http().request("POST", `/v1/service-accounts/${account.id}/keys`, { json: { name: "k" } }), "key");
    await ok(http().request("DELETE", `/v1/service-accounts/${account.id}/keys/${key.id}`), "revoke");
    return key.id;
  },
  "POST /v1/admin/users": async () => {
    const { tenancyStore } = await import("../../../shared/store/tenancy.js");
    await tenancyStore.putOrganization({ id: tenant.caller.organization, name: "Audited organization", createdAt: new Date().toISOString() });
    return (await ok(http().request("POST", "/v1/admin/users", { json: { email: `audited-${crypto.randomUUID()}@example.com` } }), "user")).id;
  },
  "POST /v1/admin/api-keys": async () => {
    const user = await aUserOf(tenant.caller.organization, { organizationRoles: ["organization_admin"] });
    return (await ok(http().request("POST", "/v1/admin/api-keys", { json: { workspace_id: tenant.caller.workspace, user_id: user.id } }), "user key")).id;
  },
  "DELETE /v1/admin/api-keys/{key_id}": async () => {
    const user = await aUserOf(tenant.caller.organization, { organizationRoles: ["organization_admin"] });
    const key = await ok(http().request("POST", "/v1/admin/api-keys", { json: { workspace_id: tenant.caller.workspace, user_id: user.id } }), "user key");
    await ok(http().request("DELETE", `/v1/admin/api-keys/${key.id}`), "revoke user key");
    return key.id;
  },
  "PUT /v1/usage/spend-limit": async () => {
    await ok(http().request("PUT", "/v1/usage/spend-limit", { json: { value: 25 } }), "spend limit");
    return tenant.caller.workspace;
  },
  "POST /v1/connectors": async () => (await aConnector()).id,
  "PUT /v1/connectors/{connector_id}/share": async () => {
    const c = await aConnector();
    await ok(connectors().share(c.id), "share");
    return c.id;
  },
  "DELETE /v1/connectors/{connector_id}/share": async () => {
    const c = await aConnector();
    await ok(connectors().share(c.id), "share");
    await ok(connectors().unshare(c.id), "unshare");
    return c.id;
  },
  "PUT /v1/connectors/{connector_id}/organization/share": async () => {
    const c = await aConnector();
    await ok(connectors().shareToOrganization(c.id), "share to organization");
    return c.id;
  },
  "DELETE /v1/connectors/{connector_id}/organization/share": async () => {
    const c = await aConnector();
    await ok(connectors().shareToOrganization(c.id), "share to organization");
    await ok(connectors().unshareFromOrganization(c.id), "unshare from organization");
    return c.id;
  },
  "POST /v1/connectors/{connector_id}/{consumer_scope}/activate": async () => {
    const c = await aConnector();
    await ok(connectors().activate(c.id, "user"), "activate");
    return c.id;
  },
  "POST /v1/connectors/{connector_id}/organization/activate": async () => {
    const c = await aConnector();
    await ok(connectors().activate(c.id, "organization"), "activate for the organization");
    return c.id;
  },
  "POST /v1/connectors/{connector_id}/organization/deactivate": async () => {
    const c = await aConnector();
    await ok(connectors().deactivate(c.id, "organization"), "deactivate for the organization");
    return c.id;
  },
  "PATCH /v1/connectors/{connector_id}": async () => {
    const c = await aConnector();
    await ok(connectors().update(c.id, { description: "changed" }), "update connector");
    return c.id;
  },
  "DELETE /v1/connectors/{connector_id}": async () => {
    const c = await aConnector();
    await ok(connectors().remove(c.id), "delete connector");
    return c.id;
  },
  "POST /v1/connectors/{connector_id}/{consumer_scope}/deactivate": async () => {
    const c = await aConnector();
    await ok(connectors().deactivate(c.id, "user"), "deactivate");
    return c.id;
  },
  "POST /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials": async () => {
    const c = await aConnector();
    await ok(connectors().createCredentials(c.id, "user", { name: "main", credentials: { bearer_token: "audit-bearer-secret" } }), "credentials");
    return c.id;
  },
  "PATCH /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials": async () => {
    const c = await aConnector();
    await ok(connectors().createCredentials(c.id, "user", { name: "main", credentials: { bearer_token: "audit-bearer-secret" } }), "credentials");
    await ok(connectors().updateCredentials(c.id, "user", { name: "main", credentials: { bearer_token: "audit-bearer-secret-2" } }), "update credentials");
    return c.id;
  },
  "DELETE /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials": async () => {
    const c = await aConnector();
    await ok(connectors().createCredentials(c.id, "user", { name: "main", credentials: { bearer_token: "audit-bearer-secret" } }), "credentials");
    await ok(connectors().deleteAllUserCredentials(c.id), "delete all credentials");
    return c.id;
  },
  "DELETE /v1/connectors/{connector_id_or_name}/{consumer_scope}/credentials/{credentials_name}": async () => {
    const c = await aConnector();
    await ok(connectors().createCredentials(c.id, "user", { name: "main", credentials: { bearer_token: "audit-bearer-secret" } }), "credentials");
    await ok(connectors().deleteCredentials(c.id, "user", "main"), "delete credentials");
    return c.id;
  },
  "GET /v1/connectors/oauth/callback": async () => {
    const c = await aConnector({ server: mcp.url, auth_data: { client_id: client.id, client_secret: client.secret } });
    const url = await ok(connectors().authUrl(c.id), "auth url");
    // The user's browser: the platform's consent page, the authorization server, back to the public callback.
    const back = await consent(url.auth_url);
    expect(back.status).toBeLessThan(400);
    return c.id;
  },
  "POST /v1/workflows/deployments/{name}/principals": async () => {
    const deployment = await aDeployment();
    await ok(http().request("POST", `/v1/workflows/deployments/${deployment.name}/principals`, { json: { add: [tenant.caller.keyId] } }), "principals");
    return deployment.id;
  },
  "POST /v1/workflows/deployments/{deployment_id}/unharden": async () => {
    const deployment = await aDeployment(true);
    await ok(http().request("POST", `/v1/workflows/deployments/${deployment.id}/unharden`), "unharden");
    return deployment.id;
  },
  "PUT /v1/workflows/{workflow_identifier}/archive": async () => {
    const { workflow } = await aWorkflow();
    await ok(http().request("PUT", `/v1/workflows/${workflow.name}/archive`), "archive workflow");
    return workflow.id;
  },
  "PUT /v1/workflows/{workflow_identifier}/unarchive": async () => {
    const { workflow } = await aWorkflow(true);
    await ok(http().request("PUT", `/v1/workflows/${workflow.id}/unarchive`), "unarchive workflow");
    return workflow.id;
  },
  "PUT /v1/workflows/archive": async () => {
    const { workflow } = await aWorkflow();
    await ok(http().request("PUT", "/v1/workflows/archive", { json: { workflow_ids: [workflow.id] } }), "bulk archive");
    return workflow.id;
  },
  "PUT /v1/workflows/unarchive": async () => {
    const { workflow } = await aWorkflow(true);
    await ok(http().request("PUT", "/v1/workflows/unarchive", { json: { workflow_ids: [workflow.id] } }), "bulk unarchive");
    return workflow.id;
  },
  "PUT /v1/libraries/{library_id}/share": async () => {
    const library = await ok(http().request("POST", "/v1/libraries", { json: { name: "audited" } }), "library");
    await ok(http().request("PUT", `/v1/libraries/${library.id}/share`, { json: { level: "Viewer", share_with_type: "Org", share_with_uuid: tenant.caller.organization } }), "share library");
    return library.id;
  },
  "DELETE /v1/libraries/{library_id}/share": async () => {
    const library = await ok(http().request("POST", "/v1/libraries", { json: { name: "audited" } }), "library");
    const org = { share_with_type: "Org", share_with_uuid: tenant.caller.organization };
    await ok(http().request("PUT", `/v1/libraries/${library.id}/share`, { json: { ...org, level: "Viewer" } }), "share library");
    await ok(http().request("DELETE", `/v1/libraries/${library.id}/share`, { json: org }), "unshare library");
    return library.id;
  },
  "POST /v1/client/sessions": async () => (await ok(http().request("POST", "/v1/client/sessions", { json: { purpose: "realtime", model: "voxtral-mini-transcribe-realtime-2602" } }), "client session")).id,
};

const privileged = routeTable.filter((row) => row.audit);

describe("GET /v1/admin/audit-events", () => {
  it("has a call for every privileged row of the route table, and every row that changes identity, keys, limits or sharing is privileged", () => {
    expect(Object.keys(calls).sort()).toStrictEqual(privileged.map((row) => `${row.method} ${row.path}`).sort());
    const mustAudit = routeTable.filter(
      (row) =>
        row.method !== "GET" &&
        (row.path.startsWith("/v1/admin/") ||
          row.path.startsWith("/v1/service-accounts") ||
          row.path === "/v1/usage/spend-limit" ||
          /\/(share|credentials|principals|unharden|activate|deactivate)(\/|$)/.test(row.path) ||
          // The OAuth consent form binds a pending flow to a browser; the callback that stores the credential is audited.
          (row.path.startsWith("/v1/connectors") && !row.path.includes("/tools/") && row.path !== "/v1/connectors/oauth/consent")),
    );
    expect(mustAudit.filter((row) => !row.audit).map((row) => `${row.method} ${row.path}`)).toStrictEqual([]);
    for (const row of privileged) expect(AUDIT_OPERATIONS).toContain(row.audit);
  });

  it.each(privileged.map((row) => [`${row.method} ${row.path}`, row.audit!] as const))("answers what key K changed through %s (%s)", async (route, operation) => {
    const since = new Date(Date.now() - 1000).toISOString();
    const target = await calls[route]!();

    const page = await events({ actor: tenant.caller.keyId, operation, target, since });

    expect(page.data.length, `${route} recorded no ${operation} event naming ${target}`).toBeGreaterThanOrEqual(1);
    const [event] = page.data;
    expect(event).toMatchObject({
      object: "audit_event",
      operation,
      organization_id: tenant.caller.organization,
      actor: { id: tenant.caller.principal, api_key_id: tenant.caller.keyId },
      origin: { request_id: expect.any(String) },
    });
    expect(event.targets.map((t: { id: string }) => t.id)).toContain(target);
    expect(Date.parse(event.created_at)).toBeGreaterThanOrEqual(Date.parse(since));
  });

  it("reads back exactly a sequence of changes from the API and the CLIs, newest first, with before and after, and nothing of another organization", async () => {
    const other = await newTenant();
    await ok(http(other).request("PUT", "/v1/usage/spend-limit", { json: { value: 3 } }), "another organization's change");
    const { tenancyStore } = await import("../../../shared/store/tenancy.js");
    await tenancyStore.putOrganization({ id: tenant.caller.organization, name: "Audited", createdAt: new Date().toISOString() });
    // From now on: the earlier tests' events in this organization (the last one's a moment ago) are not part of the sequence.
    const since = new Date().toISOString();

    await ok(http().request("PUT", "/v1/usage/spend-limit", { json: { value: 10 } }), "first limit");
    await ok(http().request("PUT", "/v1/usage/spend-limit", { json: { value: 20 } }), "second limit");
    const account = await aServiceAccount();
    await ok(http().request("PUT", `/v1/service-accounts/${account.id}/roles`, { json: { role_ids: ["workspace_contributor"] } }), "roles");
    // What `npm run keys -- create` and `npm run users -- create` do: the same services, as the OS user at a CLI.
    const tenants = await import("../../../shared/services/tenancy/tenants.js");
    const users = await import("../../../shared/services/identity/users.js");
    const cliKey = await withChangeOrigin(cliOrigin(), () => tenants.createApiKey({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, name: "from the cli", admin: false, roles: ["user"] }));
    const cliUser = await withChangeOrigin(cliOrigin(), () => users.createUser({ organization: tenant.caller.organization, email: `cli-${Date.now()}@example.com` }));

    const page = await events({ since });

    expect(page.data.map((e: { operation: string }) => e.operation)).toStrictEqual(["user.create", "key.create", "service-account.set-roles", "service-account.create", "spend-limit.set", "spend-limit.set"]);
    const [user, key, roles, , second, first] = page.data;
    expect(first.before).toStrictEqual({ spend_limit: null, soft_limit: null });
    expect(first.after).toStrictEqual({ spend_limit: { value: 10, currency: "USD", no_monthly_limit: false }, soft_limit: null });
    expect(second.before).toStrictEqual({ spend_limit: { value: 10, currency: "USD", no_monthly_limit: false }, soft_limit: null });
    expect(roles).toMatchObject({ before: { roles: [] }, after: { roles: ["workspace_contributor"] }, targets: [{ type: "service_account", id: account.id }] });
    expect(key).toMatchObject({ actor: { type: "cli", api_key_id: null }, origin: { via: "cli", request_id: null, address: null }, targets: [{ type: "api_key", id: cliKey.record.keyId }, expect.anything()] });
    expect(user).toMatchObject({ actor: { type: "cli" }, targets: [{ type: "user", id: cliUser.id }] });
    // Never the key, its hash or its preview.
    expect(JSON.stringify(page)).not.toContain(cliKey.key);
    expect(JSON.stringify(page)).not.toContain(cliKey.record.hash);
    expect(JSON.stringify(page)).not.toContain(cliKey.record.preview);
    // The other organization's admin sees its own change only.
    const theirs = await events({ since: new Date(Date.now() - 60_000).toISOString() }, other);
    expect(theirs.data.map((e: { organization_id: string }) => e.organization_id)).not.toContain(tenant.caller.organization);
    expect(theirs.data.map((e: { operation: string }) => e.operation)).toContain("spend-limit.set");
  });

  it("records the hardened deployment a worker's register makes, once, as the registering key's change", async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const name = `registered-${Math.random().toString(36).slice(2, 8)}`;
    const worker = workersClient(api, tenant, { deployment: name, name: "w1" });
    const definition = { name: `audited-${name}`, definition: { input_schema: { type: "object" } }, program: exampleProgram(), activities: EXAMPLE_ACTIVITIES };

    await ok(worker.register({ definitions: [definition] }), "first register");
    await ok(worker.register({ definitions: [definition] }), "register again");

    const deployment = await ok(http().request("GET", `/v1/workflows/deployments/${name}`), "deployment");
    const hardenings = (await events({ since, operation: "deployment.harden" })).data.filter((e: { targets: { id: string }[] }) => e.targets.some((t) => t.id === deployment.id));
    expect(hardenings).toHaveLength(1);
    expect(hardenings[0]).toMatchObject({ actor: { api_key_id: tenant.caller.keyId }, before: { principals: [] }, after: { principals: [tenant.caller.keyId] } });
  });

  it("records the viewer's address: CloudFront's viewer header when present, the socket's peer otherwise", async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    await ok(http().request("PUT", "/v1/usage/spend-limit", { json: { value: 1 } }), "direct");
    await ok(http().request("PUT", "/v1/usage/spend-limit", { json: { value: 2 }, headers: { "CloudFront-Viewer-Address": "198.51.100.7:46532" } }), "behind CloudFront");

    const [behind, direct] = (await events({ since, operation: "spend-limit.set" })).data;

    expect(direct.origin).toMatchObject({ via: "api", address: expect.stringMatching(/127\.0\.0\.1|::1/), forwarded_by: null });
    expect(behind.origin).toMatchObject({ via: "api", address: "198.51.100.7", forwarded_by: expect.stringMatching(/127\.0\.0\.1|::1/) });
  });

  it("pages newest first with next_cursor, and refuses a bad cursor, an inverted range and an unknown operation with 422", async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    for (const value of [1, 2, 3]) await ok(http().request("PUT", "/v1/usage/spend-limit", { json: { value } }), `limit ${value}`);

    const first = await events({ since, operation: "spend-limit.set", page_size: 2 });
    const second = await events({ since, operation: "spend-limit.set", page_size: 2, cursor: first.next_cursor });

    expect(first.data.map((e: any) => e.after.spend_limit.value)).toStrictEqual([3, 2]);
    expect(second.data.map((e: any) => e.after.spend_limit.value)).toStrictEqual([1]);
    expect(second.next_cursor).toBeNull();
    for (const query of [{ cursor: "not-a-cursor" }, { since: "2026-01-02T00:00:00Z", until: "2026-01-01T00:00:00Z" }, { operation: "key.steal" }, { page_size: 0 }]) {
      expect((await http().request("GET", "/v1/admin/audit-events", { query })).status, JSON.stringify(query)).toBe(422);
    }
  });

  it("answers 403 to a key that is no admin, and offers no way to change or delete an event", async () => {
    const member = await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, roles: ["workspace_admin"] });
    expect((await http(member).request("GET", "/v1/admin/audit-events")).status).toBe(403);
    const writes = routeTable.filter((row) => row.path.startsWith("/v1/admin/audit-events") && row.method !== "GET");
    expect(writes).toStrictEqual([]);
  });
});

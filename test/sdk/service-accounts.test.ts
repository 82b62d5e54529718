/**
 * Service accounts (beta) driven by the official, unmodified SDK against the local server: every
 * `client.beta.serviceAccounts.*` call, parsed by the SDK's own schemas (all nine ServiceAccount keys required).
 */
import type { Mistral } from "@mistralai/mistralai";
import { SDKError } from "@mistralai/mistralai/models/errors";
import { HTTPValidationError } from "@mistralai/mistralai/models/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
beforeAll(() => {
  client = sdkClient(api, tenant.key);
});

const create = (name: string) => client.beta.serviceAccounts.create({ name, workspaceId: tenant.caller.workspace, description: `${name} account` });

describe("beta.serviceAccounts (POST /v1/service-accounts, GET /v1/service-accounts/{service_account_id})", () => {
  it("creates (201) and gets an account with every field parsed", async () => {
    const account = await create("sdk-create");

    expect(account).toMatchObject({
      name: "sdk-create",
      customerId: tenant.caller.organization,
      organizationId: tenant.caller.organization,
      workspaceId: tenant.caller.workspace,
      description: "sdk-create account",
      deletedAt: null,
    });
    expect(account.createdAt).toBeInstanceOf(Date);
    expect(await client.beta.serviceAccounts.get({ serviceAccountId: account.id })).toStrictEqual(account);
  });
});

describe("beta.serviceAccounts.list (GET /v1/service-accounts)", () => {
  it("pages with offset and limit as the SDK sends them, iterating until a short page", async () => {
    const made = [await create("sdk-list-1"), await create("sdk-list-2"), await create("sdk-list-3")];

    const pages = await client.beta.serviceAccounts.list({ workspaceId: tenant.caller.workspace, offset: 0, limit: 2 });
    const seen: string[] = [];
    for await (const page of pages) seen.push(...page.result.items.map((a) => a.id));

    expect(seen).toEqual(expect.arrayContaining(made.map((a) => a.id)));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("lists deleted accounts with includeDeleted", async () => {
    const gone = await create("sdk-list-gone");
    await client.beta.serviceAccounts.delete({ serviceAccountId: gone.id });

    const live = await client.beta.serviceAccounts.list({ offset: 0, limit: 100 });
    const all = await client.beta.serviceAccounts.list({ offset: 0, limit: 100, includeDeleted: true });

    expect(live.result.items.map((a) => a.id)).not.toContain(gone.id);
    expect(all.result.items.find((a) => a.id === gone.id)?.deletedAt).toBeInstanceOf(Date);
  });
});

describe("beta.serviceAccounts.update (PATCH /v1/service-accounts/{service_account_id})", () => {
  it("changes the description", async () => {
    const account = await create("sdk-update");

    const updated = await client.beta.serviceAccounts.update({ serviceAccountId: account.id, updateServiceAccountRequest: { description: "changed" } });

    expect(updated.description).toBe("changed");
  });
});

describe("beta.serviceAccounts.delete (DELETE /v1/service-accounts/{service_account_id})", () => {
  it("resolves on the 204 and leaves the account readable with deletedAt", async () => {
    const account = await create("sdk-delete");

    await expect(client.beta.serviceAccounts.delete({ serviceAccountId: account.id })).resolves.toBeUndefined();

    expect((await client.beta.serviceAccounts.get({ serviceAccountId: account.id })).deletedAt).toBeInstanceOf(Date);
  });

  it("rejects an unknown id with a 404", async () => {
    const error = await errorOf(client.beta.serviceAccounts.delete({ serviceAccountId: "00000000-0000-4000-8000-000000000000" }), SDKError);
    expect(error.statusCode).toBe(404);
  });
});

describe("beta.serviceAccounts roles (GET and PUT /v1/service-accounts/{service_account_id}/roles, GET /v1/service-accounts/assignable-roles)", () => {
  it("sets roles from the assignable list and lists them back", async () => {
    const account = await create("sdk-roles");
    const assignable = await client.beta.serviceAccounts.listAssignableRoles({ workspaceId: tenant.caller.workspace });
    const viewer = assignable.items.find((r) => r.name === "observability_viewer")!;
    expect(viewer).toMatchObject({ uuid: "ff86d432-7f27-47f8-b02f-b5c102ef6a55", isCustomRole: false });

    const set = await client.beta.serviceAccounts.setRoles({ serviceAccountId: account.id, setServiceAccountRolesRequest: { roleIds: [viewer.uuid] } });

    expect(set.items).toEqual([{ roleId: viewer.uuid }]);
    expect(await client.beta.serviceAccounts.listRoles({ serviceAccountId: account.id })).toEqual(set);
  });

  it("rejects an unknown role with the SDK's validation error", async () => {
    const account = await create("sdk-roles-bad");

    const error = await errorOf(client.beta.serviceAccounts.setRoles({ serviceAccountId: account.id, setServiceAccountRolesRequest: { roleIds: ["nobody"] } }), HTTPValidationError);

    expect(error.detail?.[0]?.loc).toEqual(["body", "role_ids", 0]);
  });
});

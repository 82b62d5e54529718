/**
 * The official SDK's `beta.users` (GET /v1/users/me, /v1/users/me/organizations, /v1/users/me/workspaces)
 * against the local server, unmodified: the SDK sends these three with `x-api-key: <key>` (its
 * DashboardUserContextAuth scheme), which their rows take (row.keyHeader).
 */
import { randomUUID } from "node:crypto";
import type { Mistral } from "@mistralai/mistralai";
import { beforeAll, describe, expect, it } from "vitest";
import type { UserRecord } from "../../shared/domain/identity/records.js";
import { createWorkspace } from "../../shared/services/tenancy/tenants.js";
import { useEmbeddedApi } from "../support/api.js";
import { sdkClient } from "../support/sdk.js";
import { aUserKey, aUserOf } from "../support/users.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });

let client: Mistral;
let ada: UserRecord;
let key: string;
let lab: { id: string };
// Addresses are unique across organizations, and every test file shares one DynamoDB.
const email = `ada-${randomUUID()}@example.com`;
beforeAll(async () => {
  ada = await aUserOf(tenant.caller.organization, { email, firstName: "Ada", lastName: "Lovelace" });
  key = await aUserKey(ada, tenant.caller.workspace, ["user"]);
  lab = await createWorkspace(tenant.caller.organization, "lab");
  await aUserKey(ada, lab.id, ["user"]);
  client = sdkClient(api, key);
});

const security = () => ({ dashboardUserContextAuth: key });

describe("GET /v1/users/me through the SDK", () => {
  it("parses the identity: the user, its workspace, organization and key", async () => {
    const me = await client.beta.users.getIdentity(security());

    expect(me).toMatchObject({
      id: ada.id,
      email,
      firstName: "Ada",
      lastName: "Lovelace",
      workspace: { id: tenant.caller.workspace, name: "test" },
      organization: { id: tenant.caller.organization, name: "Test organization" },
      apiKey: { id: expect.any(String), name: email },
    });
  });
});

describe("GET /v1/users/me/organizations through the SDK", () => {
  it("pages the user's organizations", async () => {
    const pages = await client.beta.users.listOrganizations(security());

    expect(pages.result.organizations).toStrictEqual([{ id: tenant.caller.organization, name: "Test organization" }]);
  });
});

describe("GET /v1/users/me/workspaces through the SDK", () => {
  it("pages the user's workspaces, following offsets to the end", async () => {
    const seen: string[] = [];
    for await (const page of await client.beta.users.listWorkspaces(security(), { limit: 1 })) {
      seen.push(...page.result.workspaces.map((w) => `${w.name}@${w.organizationId === tenant.caller.organization}`));
    }

    expect(seen).toStrictEqual(["lab@true", "test@true"]);
  });
});

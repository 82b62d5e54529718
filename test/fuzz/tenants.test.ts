/**
 * The tenant matrix over every row of the route table (docs/testing.md): keys every keyed row refuses,
 * and another workspace's key against each record a row names (404, the record unchanged) and each list
 * (never shows it). A row whose path parameter has no fixture fails here: add one in test/support/route-fixtures.ts.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { routes } from "../../functions/routes.js";
import { routeKey } from "../../shared/http/policy.js";
import { newApiKey } from "../../shared/domain/api-keys.js";
import { tenancyStore } from "../../shared/store/tenancy.js";
import { useEmbeddedApi } from "../support/api.js";
import { fixtureFor, fixturePath, pathParamsOf, type FixtureOwner } from "../support/route-fixtures.js";
import { callRow, crossTenantProblem, leakedIds, matrixTenants } from "../support/tenant-matrix.js";
import { newTenant } from "../support/tenant.js";

const { api } = useEmbeddedApi({ tenant: "none" });
const keyed = routes.filter((row) => row.auth !== "public");
const naming = keyed.filter((row) => row.path.includes("{"));
const lists = keyed.filter((row) => row.method === "GET" && !row.path.includes("{"));
/**
 * Lists an organization's admins read across its workspaces by design (the audit log, decision 44: its events name
 * records of every workspace of the organization; its users and API keys, decision 73). Their boundary is the
 * organization: another one's key must see none.
 */
const organizationWide = new Set(["GET /v1/admin/audit-events", "GET /v1/admin/users", "GET /v1/admin/api-keys"]);

let owner: FixtureOwner;
let intruder: FixtureOwner;
let stranger: FixtureOwner;
let revoked: string;
let archived: string;

beforeAll(async () => {
  // The intruder works in another workspace of the owner's organization: the closest a key gets to the owner's records.
  ({ owner, intruder, stranger } = await matrixTenants(api));
  const gone = await newTenant();
  await tenancyStore.revokeApiKey(gone.caller.keyId, new Date().toISOString());
  revoked = gone.key;
  // A key of a workspace archived since it was made (DELETE /v1/admin/workspaces/{id} sets archivedAt).
  const shelved = await newTenant();
  await tenancyStore.updateWorkspace(shelved.caller.organization, shelved.caller.workspace, { archivedAt: new Date().toISOString() });
  archived = shelved.key;
  for (const row of naming) await fixturePath(owner, row.path);
}, 120_000);

describe("every path parameter has a fixture", () => {
  it.each([...new Set(routes.flatMap((row) => pathParamsOf(row.path)))])("{%s}", (param) => {
    expect(() => fixtureFor(param)).not.toThrow();
  });
});

const badKeys = (): [string, string | undefined][] => [
  ["no key", undefined],
  ["an empty bearer", "Bearer "],
  ["another scheme", `Basic ${Buffer.from("user:pass").toString("base64")}`],
  ["a malformed key", "Bearer \u0000not a key"],
  ["an unknown key", `Bearer ${newApiKey()}`],
  ["a revoked key", `Bearer ${revoked}`],
  ["a key of an archived workspace", `Bearer ${archived}`],
];

describe.each(keyed.map((row) => [routeKey(row), row] as const))("%s", (_, row) => {
  it("refuses no key, a malformed, unknown or revoked key, and an archived workspace's, with 401 and a request id", async () => {
    const path = row.path.replace(/\{([A-Za-z_]+)\}/g, () => randomUUID());
    for (const [what, authorization] of badKeys()) {
      const reply = await callRow(api.url, row, path, { authorization: authorization === undefined ? undefined : authorization.replace("\u0000", "") });
      expect(reply.status, `${what}: ${reply.text}`).toBe(401);
      expect(reply.requestId, what).toBeTruthy();
    }
  });
});

describe.each(naming.map((row) => [routeKey(row), row] as const))("%s", (_, row) => {
  it("answers another workspace's key naming the owner's record with 404, the record unchanged", async () => {
    expect(await crossTenantProblem(api.url, row, owner, intruder)).toBeUndefined();
  });
});

describe.each(lists.map((row) => [routeKey(row), row] as const))("%s", (_, row) => {
  it("never lists another workspace's records", async () => {
    expect(await leakedIds(api.url, row, owner, organizationWide.has(routeKey(row)) ? stranger : intruder)).toEqual([]);
  });
});

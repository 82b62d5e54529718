/**
 * The permission matrix, generated from the route table: for every row that needs a permission, a key
 * whose roles do not grant it is refused with 403 in the row's family before anything runs, and a key
 * whose roles do is not. Requests go through the local API Gateway stand-in and the real authorizer.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { routes, type RouteRow } from "../../functions/routes.js";
import { ROLE_PERMISSIONS, UNIVERSAL_PERMISSIONS, type Permission } from "../../shared/domain/identity/permissions.js";
import { WORKSPACE_ROLE_NAMES } from "../../shared/domain/identity/roles.js";
import { routeKey } from "../../shared/http/policy.js";
import { useEmbeddedApi } from "../support/api.js";
import { newTenant, type TestTenant } from "../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });

/** One key per workspace role, all in the tenant's workspace. */
const keys = new Map<string, TestTenant>();
beforeAll(async () => {
  for (const role of WORKSPACE_ROLE_NAMES) {
    keys.set(role, await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, roles: [role] }));
  }
});

const grants = (role: string, permission: Permission) => (ROLE_PERMISSIONS as Record<string, readonly Permission[]>)[role]!.includes(permission);

const Forbidden: Record<RouteRow["errors"], z.ZodType> = {
  platform: z.looseObject({ object: z.literal("error"), type: z.literal("permission_error"), code: z.literal("missing_permission") }),
  workflow: z.looseObject({ detail: z.string(), code: z.string().regex(/^WF_/) }),
  observability: z.looseObject({ detail: z.looseObject({ error_code: z.literal("AUTH_FORBIDDEN") }) }),
};

async function call(row: RouteRow, key: string): Promise<{ status: number; body: unknown }> {
  const path = row.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => (name === "version" ? "1" : randomUUID()));
  const response = await fetch(`${api.url}${path}`, { method: row.method, headers: { authorization: `Bearer ${key}` } });
  const text = await response.text();
  return { status: response.status, body: text && (response.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : text };
}

const guarded = routes.filter((row) => row.permission && row.auth === "key");

describe.concurrent.each(guarded.map((row) => [routeKey(row), row] as const))("%s", (_, row) => {
  const permission = row.permission!;

  it(`refuses every workspace role without ${permission} with 403, and lets every role with it through`, async () => {
    // The roles' calls at once: each waits mostly on the embedded backends, and 5 × every guarded row one after
    // another made this the longest file of `npm run test:fast`.
    const answers = await Promise.all(WORKSPACE_ROLE_NAMES.map((role) => call(row, keys.get(role)!.key)));
    for (const [index, role] of WORKSPACE_ROLE_NAMES.entries()) {
      const answer = answers[index]!;
      if (grants(role, permission)) {
        expect(answer.status, `${role} holds ${permission}`).not.toBe(403);
      } else {
        expect(answer.status, `${role} lacks ${permission}`).toBe(403);
        expect(Forbidden[row.errors].safeParse(answer.body).success, JSON.stringify(answer.body)).toBe(true);
      }
    }
  });
});

describe("the route table and the permission table", () => {
  it("names a permission on every row that takes a key", () => {
    expect(routes.filter((row) => row.auth !== "public" && !row.permission).map(routeKey)).toStrictEqual([]);
  });

  it("has, for every permission a row needs, a workspace role that grants it and one that does not (but for those every role holds)", () => {
    for (const row of guarded) {
      expect(WORKSPACE_ROLE_NAMES.some((role) => grants(role, row.permission!)), routeKey(row)).toBe(true);
      if (UNIVERSAL_PERMISSIONS.includes(row.permission!)) continue;
      expect(WORKSPACE_ROLE_NAMES.some((role) => !grants(role, row.permission!)), routeKey(row)).toBe(true);
    }
  });

  it("grants the permissions every role holds to every role, organization roles too", () => {
    for (const [role, permissions] of Object.entries(ROLE_PERMISSIONS)) {
      for (const permission of UNIVERSAL_PERMISSIONS) expect(permissions, role).toContain(permission);
    }
  });
});

/**
 * The audit log in the cloud (docs/decisions/0044-audit-log.md): its writers may only append (PutItem; never
 * UpdateItem, DeleteItem or BatchWriteItem, on any role), only the admin read route may read it, and the
 * functions that append carry the retention setting. The table's deletion protection, PITR and RETAIN are
 * checked with every table's in test/infra/data.synth.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { routes, type RouteRow } from "../../functions/routes.js";
import { AUDIT_RETENTION_ENV, DEFAULT_AUDIT_RETENTION_DAYS } from "../../shared/config.js";
import { allowStatements, list, methodsOf, scopeOf, synth, type Json, type Synth } from "./synth.js";

let s: Synth;
beforeAll(async () => {
  s = await synth({ validate: false });
});

const refName = (resource: Json): string | undefined => resource.Ref ?? resource["Fn::Join"]?.[1]?.[0]?.Ref ?? resource["Fn::GetAtt"]?.[0];
const onAudit = (statement: Json) => list<Json | string>(statement.Resource).some((r) => typeof r !== "string" && /^AuditTable/.test(refName(r) ?? ""));

function functionOf(row: RouteRow): { statements: Json[]; environment: Record<string, string> } {
  const m = methodsOf(s).find((x) => x.key === `${row.method} ${row.path}`)!;
  const fn = m.scope.template.Resources[m.functionId];
  const role = m.scope.template.Resources[fn.Properties.Role["Fn::GetAtt"][0]];
  return { statements: role.Properties.Policies.flatMap((p: Json) => p.PolicyDocument.Statement), environment: fn.Properties.Environment.Variables };
}

describe("the audit log's grants", () => {
  it("let every privileged row append (PutItem alone) and carry the retention setting", () => {
    const privileged = routes.filter((row) => row.audit);
    expect(privileged.length).toBeGreaterThan(20);
    for (const row of privileged) {
      const { statements, environment } = functionOf(row);
      const audit = statements.filter(onAudit);
      expect(audit.map((st) => list<string>(st.Action)), `${row.method} ${row.path}`).toStrictEqual([["dynamodb:PutItem"]]);
      expect(environment[AUDIT_RETENTION_ENV], `${row.method} ${row.path}`).toBe(String(DEFAULT_AUDIT_RETENTION_DAYS));
    }
  });

  it("let only the admin read route read it, and no role anywhere update, delete or batch-write an event", () => {
    const readers = routes.filter((row) => functionOf(row).statements.filter(onAudit).some((st) => list<string>(st.Action).includes("dynamodb:Query")));
    expect(readers.map((row) => `${row.method} ${row.path}`)).toStrictEqual(["GET /v1/admin/audit-events"]);
    const everywhere = s.stacks.flatMap((stack) => allowStatements(scopeOf(s, stack).template)).map((x) => x.statement).filter(onAudit);
    expect(everywhere.length).toBeGreaterThan(20);
    const actions = new Set(everywhere.flatMap((st) => list<string>(st.Action)));
    for (const forbidden of ["dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem", "dynamodb:*", "dynamodb:PartiQLUpdate", "dynamodb:PartiQLDelete"]) expect(actions.has(forbidden), forbidden).toBe(false);
  });

  it("keep rows that change nothing privileged off the table", () => {
    for (const row of routes.filter((r) => !r.audit && r.path !== "/v1/admin/audit-events")) {
      expect(functionOf(row).statements.filter(onAudit), `${row.method} ${row.path}`).toStrictEqual([]);
    }
  });
});

/**
 * The ingest side of observability in CDK: the ingest and point-read functions and the span writers' grants.
 * The telemetry table's TTL (`ttl`, the retention) is built from its definition: test/infra/data.synth.ts checks it for every table.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { routes, type RouteRow } from "../../functions/routes.js";
import { list, methodsOf, synth, type Json, type Synth } from "./synth.js";

let s: Synth;
beforeAll(async () => {
  s = await synth({ validate: false });
});

const rowOf = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)!;

function dynamoActions(row: RouteRow): { actions: string[]; resources: string } {
  const m = methodsOf(s).find((x) => x.key === `${row.method} ${row.path}`)!;
  const fn = m.scope.template.Resources[m.functionId];
  const role = m.scope.template.Resources[fn.Properties.Role["Fn::GetAtt"][0]];
  const statements: Json[] = role.Properties.Policies.flatMap((p: Json) => p.PolicyDocument.Statement);
  const telemetry = statements.filter((st) => JSON.stringify(st.Resource).toLowerCase().includes("telemetry") && list<string>(st.Action).some((a) => a.startsWith("dynamodb:")));
  return { actions: telemetry.flatMap((st) => list<string>(st.Action)).toSorted(), resources: JSON.stringify(telemetry.map((st) => st.Resource)) };
}

describe("the ingest and point-read functions", () => {
  it("lets the OTLP trace ingest write the telemetry table, never read it", () => {
    const { actions } = dynamoActions(rowOf("POST", "/telemetry/v1/traces"));
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.some((a) => /Write|Put/.test(a))).toBe(true);
    expect(actions.filter((a) => /Get|Query|Scan/.test(a))).toEqual([]);
  });

  it("lets the point reads only read the telemetry table, and the log ingest not touch it", () => {
    for (const path of ["/v1/observability/traces/{trace_id}", "/v1/observability/traces/{trace_id}/spans", "/v1/observability/traces/{trace_id}/spans/{span_id}"]) {
      const { actions } = dynamoActions(rowOf("GET", path));
      expect(actions.length, path).toBeGreaterThan(0);
      expect(actions.filter((a) => /Put|Write|Update|Delete/.test(a)), path).toEqual([]);
    }
    expect(dynamoActions(rowOf("POST", "/telemetry/v1/logs")).actions).toEqual([]);
  });

  it("gives every span-writing model route telemetry write, and marks the ingest routes as extensions with the telemetry grant", () => {
    for (const path of ["/v1/chat/completions", "/v1/fim/completions", "/v1/embeddings", "/v1/agents/completions"]) {
      const row = rowOf("POST", path);
      expect(row.grants.telemetry, path).toBe("write");
      expect(dynamoActions(row).actions.some((a) => /Write|Put/.test(a)), path).toBe(true);
    }
    for (const path of ["/telemetry/v1/traces", "/telemetry/v1/logs"]) expect(rowOf("POST", path)).toMatchObject({ extension: true, permission: "observability:write", grants: { telemetry: "write" } });
  });
});

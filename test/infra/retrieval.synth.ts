/** The retrieval area in CDK: its table (docs/retrieval.md) and its rows' roles, limited to that table. */
import { beforeAll, describe, expect, it } from "vitest";
import { retrievalRoutes } from "../../functions/retrieval/routes.js";
import { retrievalTable } from "../../shared/store/tables.js";
import { actionsOf, expectWorkspaceTable, list, refName, routeRoleStatements, synth, TABLE_READ, TABLE_WRITE, tableOf, type Json, type Synth } from "./synth.js";

let s: Synth;
beforeAll(async () => {
  s = await synth({ validate: false });
});


const roleStatements = (method: string, path: string): Json[] => routeRoleStatements(s, `${method} ${path}`);

const onRetrieval = (statements: Json[]) => statements.filter((st) => list<Json>(st.Resource).some((r) => refName(r) === "RetrievalTableArn"));

describe("the retrieval table", () => {
  it("is keyed by workspace and sort key, with the byId local index, on demand and recoverable", () => {
    expectWorkspaceTable(tableOf(s, "retrieval"), "byId", "idKey");
    expect(retrievalTable.localIndexes.map((i) => i.name)).toEqual(["byId"]);
  });
});

describe("the retrieval routes' roles", () => {
  it("read the table and its index on the list rows, and write nothing", () => {
    for (const row of retrievalRoutes.filter((r) => r.method === "GET")) {
      const statements = onRetrieval(roleStatements(row.method, row.path));
      expect(actionsOf(statements), row.path).toEqual(TABLE_READ);
      const query = statements.find((st) => list<string>(st.Action).includes("dynamodb:Query"))!;
      expect(list<Json>(query.Resource)).toEqual([{ Ref: "RetrievalTableArn" }, { "Fn::Join": ["", [{ Ref: "RetrievalTableArn" }, "/index/byId"]] }]);
    }
  });

  it("give the register rows write actions only, and the rows that name an id read and write", () => {
    const expected: Record<string, string[]> = {
      "PUT /v1/rag/deployments": TABLE_WRITE,
      "PUT /v1/rag/ingestion_pipeline_configurations": TABLE_WRITE,
      "DELETE /v1/rag/deployments/{deployment_id}": [...new Set([...TABLE_READ, ...TABLE_WRITE])].toSorted(),
      "PUT /v1/rag/deployments/{deployment_id}/metrics": [...new Set([...TABLE_READ, ...TABLE_WRITE])].toSorted(),
      "PUT /v1/rag/ingestion_pipeline_configurations/{id}/run_info": [...new Set([...TABLE_READ, ...TABLE_WRITE])].toSorted(),
    };
    for (const [key, actions] of Object.entries(expected)) {
      const [method, path] = key.split(" ") as [string, string];
      expect(actionsOf(onRetrieval(roleStatements(method, path))), key).toEqual(actions.toSorted());
    }
  });

  it("touch no other table but the rate counters, and no bucket", () => {
    for (const row of retrievalRoutes) {
      const statements = roleStatements(row.method, row.path);
      const tablesTouched = new Set(statements.filter((st) => list<string>(st.Action).some((a) => a.startsWith("dynamodb:"))).flatMap((st) => list<Json>(st.Resource).map(refName)));
      expect([...tablesTouched].toSorted(), row.path).toEqual(["RatesTableArn", "RetrievalTableArn"]);
      expect(actionsOf(statements).filter((a) => a.startsWith("s3:")), row.path).toEqual([]);
    }
  });
});

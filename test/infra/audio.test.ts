/** The voices in CDK: the audio table (docs/audio.md) and its rows' roles, limited to that table and the workspaces/ objects. */
import { beforeAll, describe, expect, it } from "vitest";
import { audioRoutes } from "../../functions/audio/routes.js";
import { audioTable, tableEnvVar } from "../../shared/store/tables.js";
import { list, methodsOf, synth, type Json, type Synth } from "./synth.js";

let s: Synth;
beforeAll(async () => {
  s = await synth({ validate: false });
});

// Written out here so that widening a grant in infra/grants.ts fails this test.
const TABLE_READ = ["dynamodb:BatchGetItem", "dynamodb:ConditionCheckItem", "dynamodb:GetItem", "dynamodb:Query"];
const TABLE_WRITE = ["dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", "dynamodb:PutItem", "dynamodb:UpdateItem"];
const OBJECTS = { Bucket: { "Fn::Join": ["", [{ Ref: "FilesBucketArn" }, "/workspaces/*"]] } };

function roleStatements(method: string, path: string): Json[] {
  const m = methodsOf(s).find((x) => x.key === `${method} ${path}`)!;
  const fn = m.scope.template.Resources[m.functionId];
  const role = m.scope.template.Resources[fn.Properties.Role["Fn::GetAtt"][0]];
  return role.Properties.Policies.flatMap((p: Json) => p.PolicyDocument.Statement);
}

const refName = (resource: Json): string | undefined => resource.Ref ?? resource["Fn::Join"]?.[1]?.[0]?.Ref;
const onAudio = (statements: Json[]) => statements.filter((st) => list<Json>(st.Resource).some((r) => refName(r) === "AudioTableArn"));
const actionsOf = (statements: Json[]) => [...new Set(statements.flatMap((st) => list<string>(st.Action)))].toSorted();
const objectStatements = (statements: Json[]) => statements.filter((st) => list<string>(st.Action).some((a) => a.startsWith("s3:")));

describe("the audio table", () => {
  it("is keyed by workspace and sort key, with the byCreated local index, on demand and recoverable", () => {
    const data = s.template(s.data);
    const output = Object.values(data.Outputs as Record<string, Json>).find((o) => o.Description === tableEnvVar("audio"))!;
    const table = data.Resources[output.Value.Ref];
    expect(table.Properties.KeySchema).toEqual([
      { AttributeName: "workspace", KeyType: "HASH" },
      { AttributeName: "sk", KeyType: "RANGE" },
    ]);
    expect(table.Properties.LocalSecondaryIndexes).toEqual([
      { IndexName: "byCreated", KeySchema: [{ AttributeName: "workspace", KeyType: "HASH" }, { AttributeName: "createdKey", KeyType: "RANGE" }], Projection: { ProjectionType: "ALL" } },
    ]);
    expect(table.Properties.BillingMode).toBe("PAY_PER_REQUEST");
    expect(table.Properties.PointInTimeRecoverySpecification ?? table.Properties.PointInTimeRecoveryEnabled).toBeTruthy();
    expect(audioTable.localIndexes.map((i) => i.name)).toEqual(["byCreated"]);
  });
});

describe("the voices routes' roles", () => {
  it("give each row exactly its table and object actions", () => {
    const expected: Record<string, { table: string[]; objects: string[] }> = {
      "GET /v1/audio/voices": { table: TABLE_READ, objects: [] },
      "POST /v1/audio/voices": { table: TABLE_WRITE, objects: ["s3:AbortMultipartUpload", "s3:DeleteObject", "s3:ListMultipartUploadParts", "s3:PutObject"] },
      "GET /v1/audio/voices/{voice_id}": { table: TABLE_READ, objects: [] },
      "PATCH /v1/audio/voices/{voice_id}": { table: [...new Set([...TABLE_READ, ...TABLE_WRITE])].toSorted(), objects: [] },
      "DELETE /v1/audio/voices/{voice_id}": { table: TABLE_WRITE, objects: ["s3:DeleteObject"] },
      "GET /v1/audio/voices/{voice_id}/sample": { table: TABLE_READ, objects: ["s3:GetObject"] },
    };
    expect(Object.keys(expected).toSorted()).toEqual(audioRoutes.map((r) => `${r.method} ${r.path}`).toSorted());
    for (const [key, { table, objects }] of Object.entries(expected)) {
      const [method, path] = key.split(" ") as [string, string];
      const statements = roleStatements(method, path);
      expect(actionsOf(onAudio(statements)), key).toEqual(table.toSorted());
      expect(actionsOf(objectStatements(statements)), key).toEqual(objects);
    }
  });

  it("reach objects only under the workspaces/ prefix of the files bucket", () => {
    for (const row of audioRoutes) {
      for (const st of objectStatements(roleStatements(row.method, row.path))) expect(st.Resource, row.path).toEqual(OBJECTS.Bucket);
    }
  });

  it("touch no other table but the rate counters", () => {
    for (const row of audioRoutes) {
      const statements = roleStatements(row.method, row.path);
      const tablesTouched = new Set(statements.filter((st) => list<string>(st.Action).some((a) => a.startsWith("dynamodb:"))).flatMap((st) => list<Json>(st.Resource).map(refName)));
      expect([...tablesTouched].toSorted(), row.path).toEqual(["AudioTableArn", "RatesTableArn"]);
    }
  });

  it("query the byCreated index on the list row only", () => {
    const query = roleStatements("GET", "/v1/audio/voices").find((st) => list<string>(st.Action).includes("dynamodb:Query") && refName(list<Json>(st.Resource)[0]!) === "AudioTableArn")!;
    expect(list<Json>(query.Resource)).toEqual([{ Ref: "AudioTableArn" }, { "Fn::Join": ["", [{ Ref: "AudioTableArn" }, "/index/byCreated"]] }]);
  });
});

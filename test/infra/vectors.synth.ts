/**
 * The document libraries' vector store in CDK (docs/vector-search.md, "In the cloud"): the data stack's S3 Vectors
 * bucket, what a `vectors` grant allows (infra/grants.ts) and the VECTOR_BUCKET setting it brings, and cdk-nag's
 * index wildcard acknowledged wherever a function holds one.
 */
import * as cdk from "aws-cdk-lib";
import { beforeAll, describe, expect, it } from "vitest";
import { routes, type Grants, type RouteRow } from "../../functions/routes.js";
import { VECTOR_BUCKET_ENV } from "../../shared/config.js";
import type { DataRefs } from "../../infra/data-refs.js";
import { grantEnvironment, grantStatements } from "../../infra/grants.js";
import { list, methodsOf, resourcesOf, synth, type Json, type Synth } from "./synth.js";

const BUCKET_ARN = "arn:aws:s3vectors:us-east-1:111122223333:bucket/library-vectors";
/** Only what a `vectors` grant reads of the data stack: its vector bucket (and the secrets key, for the env test). */
const data = { vectorBucket: { arn: BUCKET_ARN, name: "library-vectors" }, secretsKey: { keyArn: "arn:aws:kms:us-east-1:111122223333:key/k" } } as unknown as DataRefs;

const statementsOf = (grants: Grants): Json[] => grantStatements(grants, data).map((st) => st.toStatementJson() as Json);
const actionsOf = (statements: Json[]) => [...new Set(statements.flatMap((st) => list<string>(st.Action)))].toSorted();

describe("a vectors grant", () => {
  it("to query allows only QueryVectors and GetVectors (which a filtered query returning metadata needs), on the bucket's indexes", () => {
    const statements = statementsOf({ vectors: "query" });

    expect(actionsOf(statements)).toEqual(["s3vectors:GetVectors", "s3vectors:QueryVectors"]);
    expect(statements.map((st) => list<string>(st.Resource).toSorted())).toEqual([[BUCKET_ARN, `${BUCKET_ARN}/index/*`]]);
  });

  it("to write allows exactly what the store sends to upsert and delete, and reading, on the bucket's indexes", () => {
    const statements = statementsOf({ vectors: "write" });

    expect(actionsOf(statements)).toEqual([
      "s3vectors:CreateIndex",
      "s3vectors:DeleteIndex",
      "s3vectors:DeleteVectors",
      "s3vectors:GetVectors",
      "s3vectors:ListVectors",
      "s3vectors:PutVectors",
      "s3vectors:QueryVectors",
    ]);
    expect(statements.map((st) => list<string>(st.Resource).toSorted())).toEqual([[BUCKET_ARN, `${BUCKET_ARN}/index/*`]]);
  });

  it("never reaches the bucket's own settings or any other vector bucket", () => {
    for (const access of ["query", "write"] as const) {
      const statements = statementsOf({ vectors: access });
      expect(actionsOf(statements).filter((a) => /VectorBucket|Policy|ListIndexes/.test(a))).toEqual([]);
      expect(statements.flatMap((st) => list<string>(st.Resource)).every((r) => r.startsWith(`${BUCKET_ARN}`))).toBe(true);
    }
  });

  it("brings VECTOR_BUCKET with the bucket's name, and a function without one gets neither the setting nor an s3vectors action", () => {
    expect(grantEnvironment({ vectors: "query" }, data)).toEqual({ [VECTOR_BUCKET_ENV]: "library-vectors" });
    expect(grantEnvironment({ vectors: "write", secrets: true }, data)).toMatchObject({ [VECTOR_BUCKET_ENV]: "library-vectors" });
    expect(grantEnvironment({ secrets: true }, data)).not.toHaveProperty(VECTOR_BUCKET_ENV);
    expect(actionsOf(statementsOf({ secrets: true, ocr: "detect-text" })).filter((a) => a.startsWith("s3vectors:"))).toEqual([]);
  });
});

describe("the deployment", () => {
  let s: Synth;
  const row = (method: string, path: string, handler: string, grants: Grants): RouteRow => ({ method, path, handler, grants, auth: "key", errors: "platform", streaming: false }) as RouteRow;
  const QUERY = row("GET", "/v1/files", "files/list", { tables: { files: "read" }, vectors: "query" });
  const WRITE = row("DELETE", "/v1/files/{file_id}", "files/delete", { tables: { files: "readwrite" }, vectors: "write" });
  const PLAIN = row("GET", "/v1/files/{file_id}", "files/retrieve", { tables: { files: "read" } });
  beforeAll(async () => {
    s = await synth({ routes: [QUERY, WRITE, PLAIN], validate: false });
  });

  const functionOf = (r: RouteRow) => {
    const m = methodsOf(s).find((x) => x.key === `${r.method} ${r.path}`)!;
    const fn = m.scope.template.Resources[m.functionId];
    const role = m.scope.template.Resources[fn.Properties.Role["Fn::GetAtt"][0]];
    return { env: fn.Properties.Environment.Variables as Json, statements: role.Properties.Policies.flatMap((p: Json) => p.PolicyDocument.Statement) as Json[] };
  };
  const vectorStatements = (r: RouteRow) => functionOf(r).statements.filter((st) => list<string>(st.Action).some((a) => a.startsWith("s3vectors:")));

  it("keeps one S3 Vectors bucket in the data stack, SSE-S3, retained, its name an output", () => {
    const buckets = resourcesOf(s.template(s.data), "AWS::S3Vectors::VectorBucket");

    expect(buckets).toHaveLength(1);
    const [, bucket] = buckets[0]!;
    expect(bucket.Properties.EncryptionConfiguration).toEqual({ SseType: "AES256" });
    expect(bucket.DeletionPolicy).toBe("Retain");
    expect(bucket.UpdateReplacePolicy).toBe("Retain");
    expect(Object.values(s.template(s.data).Outputs as Json).some((o) => o.Description === VECTOR_BUCKET_ENV)).toBe(true);
  });

  it("grants a querying route its queries on the vector bucket's indexes, and names the bucket in VECTOR_BUCKET", () => {
    const statements = vectorStatements(QUERY);
    const { env } = functionOf(QUERY);

    expect(actionsOf(statements)).toEqual(["s3vectors:GetVectors", "s3vectors:QueryVectors"]);
    expect(statements[0]!.Resource).toEqual([{ Ref: "VectorBucketArn" }, { "Fn::Join": ["", [{ Ref: "VectorBucketArn" }, "/index/*"]] }]);
    // The name is the ARN's last part (S3 Vectors' Ref is the ARN; it has no name attribute).
    expect(env[VECTOR_BUCKET_ENV]).toEqual({ "Fn::Select": [1, { "Fn::Split": ["/", { Ref: "VectorBucketArn" }] }] });
  });

  it("grants a writing route the write actions", () => {
    expect(actionsOf(vectorStatements(WRITE))).toContain("s3vectors:PutVectors");
    expect(functionOf(WRITE).env).toHaveProperty(VECTOR_BUCKET_ENV);
  });

  it("gives a route without a vectors grant no s3vectors action and no VECTOR_BUCKET", () => {
    expect(vectorStatements(PLAIN)).toEqual([]);
    expect(functionOf(PLAIN).env).not.toHaveProperty(VECTOR_BUCKET_ENV);
  });

  it("keeps cdk-nag clean: the index wildcard is acknowledged on the functions that hold the grant", () => {
    const violations = (s.validationReport().pluginReports as Json[]).flatMap((p) => (p.violations ?? []).map((v: Json) => `${p.pluginName}: ${v.ruleName}`));
    expect(violations).toEqual([]);
  });

  it("spells the bucket's ARN as the S3 Vectors ARN of the data stack's bucket", () => {
    const resolved = s.data.resolve(s.data.vectorBucket.arn) as Json;
    expect(resolved).toEqual({ "Fn::GetAtt": [s.data.getLogicalId(s.data.vectorBucketResource as unknown as cdk.CfnElement), "VectorBucketArn"] });
  });
});

describe("the route table's functions", () => {
  let app: Synth;
  beforeAll(async () => {
    app = await synth({ validate: false });
  });

  it("reach the vector bucket, and get VECTOR_BUCKET, exactly when their row is granted vectors", () => {
    const methods = methodsOf(app);
    for (const r of routes) {
      const m = methods.find((x) => x.key === `${r.method} ${r.path}`);
      if (!m) continue;
      const fn = m.scope.template.Resources[m.functionId];
      const role = m.scope.template.Resources[fn.Properties.Role["Fn::GetAtt"][0]];
      const actions = (role.Properties.Policies as Json[]).flatMap((p) => p.PolicyDocument.Statement as Json[]).flatMap((st) => list<string>(st.Action));
      const vectorActions = actions.filter((a) => a.startsWith("s3vectors:"));
      expect(vectorActions.length > 0, `${r.method} ${r.path}`).toBe(Boolean(r.grants.vectors));
      expect(VECTOR_BUCKET_ENV in (fn.Properties.Environment.Variables as Json), `${r.method} ${r.path}`).toBe(Boolean(r.grants.vectors));
    }
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { routes } from "../../functions/routes.js";
import { fieldCatalogues } from "../../shared/domain/observability/fields.js";
import { grantStatements } from "../../infra/grants.js";
import type { DataRefs } from "../../infra/data-refs.js";
import { list, methodsOf, resourcesOf, synth, type Json, type Synth } from "./synth.js";

// The telemetry store (infra/telemetry.ts): bucket, Glue tables with partition projection, Athena workgroup, grants.
let s: Synth;
let data: Json;
beforeAll(async () => {
  s = await synth({ validate: false, context: { telemetryRetentionDays: 7, telemetryScanLimitBytes: 5_000_000_000 } });
  data = s.template(s.data);
});

const telemetryBucket = () => {
  const output = Object.values(data.Outputs as Record<string, Json>).find((o) => o.Description === "BUCKET_TELEMETRY")!;
  return [output.Value.Ref as string, data.Resources[output.Value.Ref]] as const;
};

describe("the telemetry bucket", () => {
  it("is encrypted, private, TLS-only, and expires telemetry after the configured retention and Athena results after a day", () => {
    const [id, bucket] = telemetryBucket();
    expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe("AES256");
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    expect(bucket.Properties.LifecycleConfiguration.Rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Id: "telemetry-retention", Prefix: "telemetry/", ExpirationInDays: 7, Status: "Enabled" }),
        expect.objectContaining({ Id: "athena-results", Prefix: "athena-results/", ExpirationInDays: 1, Status: "Enabled" }),
      ]),
    );
    const policy = resourcesOf(data, "AWS::S3::BucketPolicy").find(([, p]) => p.Properties.Bucket.Ref === id)![1];
    expect(policy.Properties.PolicyDocument.Statement).toContainEqual(expect.objectContaining({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }));
  });
});

describe("the Glue tables", () => {
  it("declare every stored field of spans, logs and evaluations over the JSON lines, partitioned by workspace (injected) and day (projected)", () => {
    const tables = resourcesOf(data, "AWS::Glue::Table").map(([, t]) => t.Properties.TableInput);
    expect(tables.map((t) => t.Name).toSorted()).toEqual(["logs", "span_evaluations", "spans"]);
    for (const table of tables) {
      const kind = table.Name as "spans" | "logs" | "span_evaluations";
      expect(table.PartitionKeys).toEqual([{ Name: "workspace_id", Type: "string" }, { Name: "dt", Type: "string" }]);
      expect(table.StorageDescriptor.Columns.map((c: Json) => c.Name)).toEqual(fieldCatalogues[kind].map((f) => f.name).filter((n) => n !== "workspace_id"));
      expect(table.Parameters).toMatchObject({ "projection.enabled": "true", "projection.workspace_id.type": "injected", "projection.dt.type": "date", "projection.dt.format": "yyyy-MM-dd" });
      expect(JSON.stringify(table.Parameters["storage.location.template"])).toContain(`/telemetry/${kind}/workspace_id=\${workspace_id}/dt=\${dt}/`);
      expect(table.StorageDescriptor.SerdeInfo).toEqual({ SerializationLibrary: "org.openx.data.jsonserde.JsonSerDe", Parameters: { "ignore.malformed.json": "true" } });
    }
    const spans = tables.find((t) => t.Name === "spans")!.StorageDescriptor.Columns as Json[];
    expect(spans).toContainEqual({ Name: "span_attributes", Type: "map<string,string>" });
    expect(spans).toContainEqual({ Name: "response_finish_reasons", Type: "array<string>" });
    expect(spans).toContainEqual({ Name: "duration_ns", Type: "bigint" });
  });
});

describe("the Athena workgroup", () => {
  it("enforces its encrypted result location under athena-results/ and the per-query scan cutoff", () => {
    const [, wg] = resourcesOf(data, "AWS::Athena::WorkGroup")[0]!;
    const config = wg.Properties.WorkGroupConfiguration;
    expect(config).toMatchObject({ EnforceWorkGroupConfiguration: true, BytesScannedCutoffPerQuery: 5_000_000_000, ResultConfiguration: { EncryptionConfiguration: { EncryptionOption: "SSE_S3" } } });
    expect(JSON.stringify(config.ResultConfiguration.OutputLocation)).toContain("/athena-results/");
  });
});

describe("the telemetry grants", () => {
  const role = (key: string) => {
    const m = methodsOf(s).find((x) => x.key === key)!;
    const fn = m.scope.template.Resources[m.functionId!];
    const statements: Json[] = m.scope.template.Resources[fn.Properties.Role["Fn::GetAtt"][0]].Properties.Policies.flatMap((p: Json) => p.PolicyDocument.Statement);
    return { statements, env: fn.Properties.Environment.Variables as Json };
  };

  it("lets a query row run Athena in its workgroup only, read the telemetry database's tables and objects, and use the results prefix", () => {
    const { statements, env } = role("POST /v1/observability/spans/search");
    const athena = statements.find((st) => list<string>(st.Action).includes("athena:StartQueryExecution"))!;
    expect(list<string>(athena.Action).toSorted()).toEqual(["athena:GetQueryExecution", "athena:GetQueryResults", "athena:StartQueryExecution", "athena:StopQueryExecution"]);
    expect(JSON.stringify(athena.Resource)).toContain(`:workgroup/${s.data.telemetry.workGroup}`);
    const glue = statements.find((st) => list<string>(st.Action).includes("glue:GetTable"))!;
    expect(JSON.stringify(glue.Resource)).toContain(`table/${s.data.telemetry.database}/*`);
    const objectResources = statements.filter((st) => list<string>(st.Action).some((a) => a.startsWith("s3:"))).flatMap((st) => list<Json>(st.Resource)).map((r) => JSON.stringify(r));
    expect(objectResources.every((r) => r.includes("TelemetryBucketArn"))).toBe(true);
    expect(objectResources.some((r) => r.includes("/telemetry/*"))).toBe(true);
    expect(objectResources.some((r) => r.includes("/athena-results/*"))).toBe(true);
    expect(statements.flatMap((st) => list<string>(st.Action))).not.toContain("s3:DeleteObject");
    expect(env).toMatchObject({ TELEMETRY_DATABASE: s.data.telemetry.database, TELEMETRY_WORKGROUP: s.data.telemetry.workGroup, TELEMETRY_RETENTION_DAYS: "7" });
    expect(env.BUCKET_TELEMETRY).toBeUndefined();
  });

  it("builds each telemetry statement once for a grant (the template would hide a duplicate: CDK merges equal statements)", () => {
    for (const access of ["write", "query", "query-write"] as const) {
      const statements = grantStatements({ telemetry: access }, s.data as unknown as DataRefs).map((st) => JSON.stringify(st.toStatementJson()));
      expect(statements.length, access).toBeGreaterThan(0);
      expect(new Set(statements).size, access).toBe(statements.length);
    }
  });

  it("gives the field catalogue rows no telemetry access at all", () => {
    const { statements } = role("GET /v1/observability/spans/fields");
    expect(statements.flatMap((st) => list<string>(st.Action)).filter((a) => /^(athena|glue|s3):/.test(a))).toEqual([]);
    // The engine's searches, aggregations and field options (12), and the import from conversations, which finds them by their spans.
    expect(routes.filter((r) => r.grants.telemetry === "query").length).toBe(13);
  });
});

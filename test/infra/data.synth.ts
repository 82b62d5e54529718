import { beforeAll, describe, expect, it } from "vitest";
import { tables, tableEnvVar, type KeyAttribute, type TableDefinition, type TableName } from "../../shared/store/tables.js";
import { resourcesOf, synth, type Json, type Synth } from "./synth.js";

let s: Synth;
let data: Json;
beforeAll(async () => {
  s = await synth({ validate: false });
  data = s.template(s.data);
});

const keySchema = (partition: KeyAttribute, sort?: KeyAttribute) => [
  { AttributeName: partition.name, KeyType: "HASH" },
  ...(sort ? [{ AttributeName: sort.name, KeyType: "RANGE" }] : []),
];

/** The synthesized table the stack output for this definition names (several tables share a key schema). */
function tableFor(def: TableDefinition): Json {
  const outputs = data.Outputs as Record<string, Json>;
  const output = Object.values(outputs).find((o) => o.Description === tableEnvVar(def.name as TableName));
  expect(output, def.name).toBeDefined();
  const table = data.Resources[output!.Value.Ref];
  expect(table?.Type, def.name).toBe("AWS::DynamoDB::Table");
  expect(table.Properties.KeySchema).toEqual(keySchema(def.partitionKey, def.sortKey));
  return table;
}

describe("tables", () => {
  it("builds exactly one table per definition", () => {
    expect(resourcesOf(data, "AWS::DynamoDB::Table")).toHaveLength(tables.length);
    // By the resource each definition's output names: two tables may be alike to the byte (telemetry and audit: pk, sk, ttl).
    const outputs = Object.values(data.Outputs as Record<string, Json>);
    const ids = new Set(
      tables.map((def) => {
        tableFor(def);
        return outputs.find((o) => o.Description === tableEnvVar(def.name as TableName))!.Value.Ref as string;
      }),
    );
    expect(ids.size).toBe(tables.length);
  });

  it.each(tables.map((def) => [def.name, def] as const))("%s matches its definition: keys, indexes, TTL", (_, def: TableDefinition) => {
    const t = tableFor(def).Properties;
    const gsis = (t.GlobalSecondaryIndexes ?? []).map((i: Json) => ({ name: i.IndexName, keys: i.KeySchema }));
    expect(gsis).toEqual((def.globalIndexes ?? []).map((i) => ({ name: i.name, keys: keySchema(i.partitionKey, i.sortKey) })));
    const lsis = (t.LocalSecondaryIndexes ?? []).map((i: Json) => ({ name: i.IndexName, keys: i.KeySchema }));
    expect(lsis).toEqual((def.localIndexes ?? []).map((i) => ({ name: i.name, keys: keySchema(def.partitionKey, i.sortKey) })));
    expect(t.TimeToLiveSpecification).toEqual(def.timeToLive ? { AttributeName: def.timeToLive, Enabled: true } : undefined);
    const keyAttributes = [def.partitionKey, def.sortKey, ...(def.globalIndexes ?? []).flatMap((i) => [i.partitionKey, i.sortKey]), ...(def.localIndexes ?? []).map((i) => i.sortKey)];
    for (const key of keyAttributes.filter((k): k is KeyAttribute => Boolean(k))) {
      expect(t.AttributeDefinitions).toContainEqual({ AttributeName: key.name, AttributeType: key.type });
    }
  });

  it.each(tables.map((def) => [def.name, def] as const))("%s is on-demand, recoverable and protected from deletion", (_, def: TableDefinition) => {
    const t = tableFor(def);
    expect(t.Properties).toMatchObject({
      BillingMode: "PAY_PER_REQUEST",
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
    });
    expect(t.DeletionPolicy).toBe("Retain");
    expect(t.UpdateReplacePolicy).toBe("Retain");
  });

  it("outputs every table's name for the keys CLI", () => {
    const described = Object.values(data.Outputs as Json).map((o) => o.Description);
    for (const def of tables) expect(described).toContain(tableEnvVar(def.name));
  });
});

describe("the files bucket", () => {
  let bucket: Json;
  beforeAll(() => {
    // The files bucket and the telemetry bucket (test/infra/telemetry.synth.ts); this is the one the stack outputs as BUCKET_FILES.
    const buckets = resourcesOf(data, "AWS::S3::Bucket");
    expect(buckets).toHaveLength(2);
    const files = Object.values(data.Outputs as Record<string, Json>).find((o) => o.Description === "BUCKET_FILES")!.Value.Ref as string;
    bucket = data.Resources[files];
  });

  it("is encrypted, versioned, private and retained", () => {
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }] },
      VersioningConfiguration: { Status: "Enabled" },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
    });
    expect(bucket.DeletionPolicy).toBe("Retain");
  });

  it("aborts stale multipart uploads after a day and expires old versions after 30 days", () => {
    expect(bucket.Properties.LifecycleConfiguration.Rules).toContainEqual(
      expect.objectContaining({ Status: "Enabled", AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, NoncurrentVersionExpiration: { NoncurrentDays: 30 } }),
    );
  });

  it("lets browser pages PUT to presigned upload URLs and GET downloads from any origin, reading ETag (infra/files-cors.ts)", () => {
    expect(bucket.Properties.CorsConfiguration).toEqual({
      CorsRules: [{ AllowedOrigins: ["*"], AllowedMethods: ["GET", "PUT", "HEAD"], AllowedHeaders: ["*"], ExposedHeaders: ["ETag"], MaxAge: 3000 }],
    });
  });

  it("keeps the bucket private under its CORS rule: CORS grants nothing, presigned URLs do", () => {
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    expect(JSON.stringify(bucket.Properties.CorsConfiguration)).not.toMatch(/DELETE|POST/);
  });

  it("refuses requests without TLS", () => {
    const [[, policy]] = resourcesOf(data, "AWS::S3::BucketPolicy") as [[string, Json]];
    expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }),
    );
  });

  it("outputs its name", () => {
    expect(Object.values(data.Outputs as Json).map((o) => o.Description)).toContain("BUCKET_FILES");
  });
});

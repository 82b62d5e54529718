/**
 * The web console's assets from S3 through the distribution (infra/console-assets.ts, issue 30): a private bucket
 * only this distribution reads (Origin Access Control), this release's hashed files deployed under console/ with a
 * year's immutable caching and no pruning, and the `/console/*` behavior that serves them cached; the HTML entry
 * (`/console`) stays on the API. Without the distribution none of it exists and the API serves the assets.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CONSOLE_MANIFEST } from "../../functions/console/assets.js";
import { bundleDir, CONSOLE_STATIC_DIR } from "../../infra/build.js";
import { CONSOLE_ASSETS_CACHE_CONTROL, CONSOLE_ASSETS_PATH, CONSOLE_ASSETS_PREFIX } from "../../infra/console-assets.js";
import { allowStatements, BUCKET_DEPLOYMENT_PROVIDER, list, methodsOf, resourcesOf, synth, type Json, type Synth } from "./synth.js";

/** AWS's managed cache policy CachingOptimized, by its fixed id. */
const CACHING_OPTIMIZED = "658327ea-f89d-4fab-a63d-7e88639e58f6";

let s: Synth;
let template: Json;
let bucketId: string;
const only = (type: string): [string, Json] => {
  const found = resourcesOf(template, type);
  expect(found, type).toHaveLength(1);
  return found[0]!;
};
const distribution = () => only("AWS::CloudFront::Distribution")[1].Properties.DistributionConfig;
const consoleBehavior = () => distribution().CacheBehaviors.find((b: Json) => b.PathPattern === CONSOLE_ASSETS_PATH);

beforeAll(async () => {
  s = await synth({ validate: false });
  template = s.template(s.uploads!.service);
  bucketId = only("AWS::S3::Bucket")[0];
}, 240_000);

describe("the console's bucket", () => {
  it("is private, encrypted, refuses plain HTTP, is not versioned and is kept when the stack goes, as the deployment's other buckets", () => {
    const bucket = template.Resources[bucketId];
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration).toEqual([{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }]);
    expect(bucket.Properties.VersioningConfiguration).toBeUndefined();
    expect(bucket.Properties.WebsiteConfiguration).toBeUndefined();
    expect(bucket.DeletionPolicy).toBe("Retain");
    const policy = only("AWS::S3::BucketPolicy")[1].Properties.PolicyDocument.Statement as Json[];
    expect(policy).toContainEqual(expect.objectContaining({ Effect: "Deny", Action: "s3:*", Condition: { Bool: { "aws:SecureTransport": "false" } } }));
  });

  it("is read by CloudFront alone, for this distribution only, through Origin Access Control (no identity, no public access)", () => {
    const allows = (only("AWS::S3::BucketPolicy")[1].Properties.PolicyDocument.Statement as Json[]).filter((st) => st.Effect === "Allow");
    expect(allows.map((st) => st.Principal)).toEqual(allows.map(() => ({ Service: "cloudfront.amazonaws.com" })));
    expect(allows.flatMap((st) => list<string>(st.Action)).toSorted()).toEqual(["s3:GetObject", "s3:ListBucket"]);
    const [distributionId] = only("AWS::CloudFront::Distribution");
    for (const st of allows) expect(JSON.stringify(st.Condition.StringEquals["AWS:SourceArn"])).toContain(`{"Ref":"${distributionId}"}`);
    const [oacId, oac] = only("AWS::CloudFront::OriginAccessControl");
    expect(oac.Properties.OriginAccessControlConfig).toMatchObject({ OriginAccessControlOriginType: "s3", SigningBehavior: "always", SigningProtocol: "sigv4" });
    const origin = distribution().Origins.find((o: Json) => o.Id === consoleBehavior().TargetOriginId);
    expect(origin.DomainName).toEqual({ "Fn::GetAtt": [bucketId, "RegionalDomainName"] });
    expect(origin.OriginAccessControlId).toEqual({ "Fn::GetAtt": [oacId, "Id"] });
    expect(origin.S3OriginConfig.OriginAccessIdentity).toBe("");
  });
});

describe("the /console/* behavior", () => {
  it("serves the bucket's files cached (CachingOptimized honours their max-age), compressed, GET and HEAD only, HTTPS", () => {
    expect(consoleBehavior()).toMatchObject({
      CachePolicyId: CACHING_OPTIMIZED,
      AllowedMethods: ["GET", "HEAD"],
      CachedMethods: ["GET", "HEAD"],
      Compress: true,
      ViewerProtocolPolicy: "redirect-to-https",
    });
    expect(consoleBehavior().OriginRequestPolicyId).toBeUndefined();
    expect(consoleBehavior().FunctionAssociations).toBeUndefined();
  });

  it("adds x-content-type-options: nosniff, as the API's asset route answers", () => {
    const ref = consoleBehavior().ResponseHeadersPolicyId.Ref as string;
    const policy = template.Resources[ref];
    expect(policy.Type).toBe("AWS::CloudFront::ResponseHeadersPolicy");
    expect(policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig).toEqual({ ContentTypeOptions: { Override: true } });
  });

  it("matches the assets' paths only: the HTML entry /console stays on the API (its CSP is computed at run time)", () => {
    expect(CONSOLE_ASSETS_PATH).toBe("/console/*");
    const patterns = distribution().CacheBehaviors.map((b: Json) => b.PathPattern as string);
    expect(patterns.filter((p: string) => p.includes("console"))).toEqual([CONSOLE_ASSETS_PATH]);
    expect(distribution().DefaultCacheBehavior.TargetOriginId).toBe("api");
  });
});

describe("the deployment", () => {
  const deployment = () => only("Custom::CDKBucketDeployment")[1].Properties;

  it("copies the release under console/ with a year's immutable caching, and keeps earlier releases (no pruning)", () => {
    expect(deployment()).toMatchObject({
      DestinationBucketName: { Ref: bucketId },
      DestinationBucketKeyPrefix: CONSOLE_ASSETS_PREFIX,
      Prune: false,
      RetainOnDelete: true,
      SystemMetadata: { "cache-control": CONSOLE_ASSETS_CACHE_CONTROL },
    });
    expect(CONSOLE_ASSETS_CACHE_CONTROL).toBe("public, max-age=31536000, immutable");
    expect(deployment().DistributionId).toBeUndefined();
  });

  it("ships exactly the files the console functions carry: this release's hashed script and stylesheet", () => {
    const manifest = JSON.parse(readFileSync(join(s.assembly.directory, `${s.uploads!.artifactId}.assets.json`), "utf8")) as Json;
    const [zip] = deployment().SourceObjectKeys as string[];
    const source = manifest.files[zip!.replace(/\.zip$/, "")].source;
    expect(source.packaging).toBe("zip");
    const shipped = readdirSync(join(s.assembly.directory, source.path)).toSorted();
    expect(shipped).toEqual(readdirSync(CONSOLE_STATIC_DIR).toSorted());
    const { assets } = JSON.parse(readFileSync(join(bundleDir("console/asset"), CONSOLE_MANIFEST), "utf8")) as { assets: { name: string }[] };
    expect(shipped).toEqual(assets.map((a) => a.name).toSorted());
  });

  it("runs with a role of its own: the release's zip read, console/ listed and written, its log group; no delete, no managed policy", () => {
    const fn = resourcesOf(template, "AWS::Lambda::Function").find(([id]) => id.startsWith(BUCKET_DEPLOYMENT_PROVIDER))![1].Properties;
    expect(fn.Architectures).toEqual(["arm64"]);
    const roleId = fn.Role["Fn::GetAtt"][0] as string;
    const role = template.Resources[roleId].Properties;
    expect(role.ManagedPolicyArns).toBeUndefined();
    const statements = allowStatements(template).filter((x) => x.where === roleId).map((x) => x.statement);
    expect(statements.flatMap((st) => list<string>(st.Action)).toSorted()).toEqual(["logs:CreateLogStream", "logs:PutLogEvents", "s3:GetObject", "s3:ListBucket", "s3:PutObject"]);
    const put = statements.find((st) => st.Action === "s3:PutObject")!;
    expect(put.Resource).toEqual({ "Fn::Join": ["", [{ "Fn::GetAtt": [bucketId, "Arn"] }, `/${CONSOLE_ASSETS_PREFIX}*`]] });
    const listing = statements.find((st) => st.Action === "s3:ListBucket")!;
    expect(listing.Condition).toEqual({ StringLike: { "s3:prefix": [CONSOLE_ASSETS_PREFIX, `${CONSOLE_ASSETS_PREFIX}*`] } });
    // The asset bucket: the release's zip only.
    const get = statements.find((st) => st.Action === "s3:GetObject")!;
    expect(JSON.stringify(get.Resource)).toContain(`/${deployment().SourceObjectKeys[0]}`);
    expect(fn.LoggingConfig.LogGroup.Ref).toMatch(/^ConsoleAssetsDeploymentLogs/);
  });
});

it("is left out with -c uploadDistribution=false: no console bucket or deployment, and the API serves the assets", async () => {
  const without = await synth({ context: { uploadDistribution: "false" }, validate: false });
  const everything = without.stacks.flatMap((stack) => Object.values(without.template(stack).Resources as Json));
  expect(everything.filter((r) => r.Type === "Custom::CDKBucketDeployment")).toEqual([]);
  expect(everything.filter((r) => r.Type === "AWS::CloudFront::Distribution")).toEqual([]);
  // The data stack's buckets only (files, telemetry).
  expect(everything.filter((r) => r.Type === "AWS::S3::Bucket")).toHaveLength(resourcesOf(without.template(without.data), "AWS::S3::Bucket").length);
  expect(methodsOf(without).map((m) => m.key)).toEqual(expect.arrayContaining(["GET /console", "GET /console/{asset}"]));
}, 240_000);

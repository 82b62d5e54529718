import * as cdk from "aws-cdk-lib";
import * as cloudfront from "aws-cdk-lib/aws-cloudfront";
import * as origins from "aws-cdk-lib/aws-cloudfront-origins";
import * as iam from "aws-cdk-lib/aws-iam";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as logs from "aws-cdk-lib/aws-logs";
import * as s3 from "aws-cdk-lib/aws-s3";
import { Asset } from "aws-cdk-lib/aws-s3-assets";
import * as s3deploy from "aws-cdk-lib/aws-s3-deployment";
import { Construct } from "constructs";
import { CONSOLE_STATIC_DIR } from "./build.js";

/** The key prefix of the assets in the bucket, which is also their path on the distribution: `/console/<name>`. */
export const CONSOLE_ASSETS_PREFIX = "console/";
/**
 * The distribution's behavior for the assets: `/console/<name>` and nothing else. `/console` itself, the HTML entry,
 * stays on the API (the default behavior): its Content-Security-Policy names the storage origin, computed at run time.
 */
export const CONSOLE_ASSETS_PATH = `/${CONSOLE_ASSETS_PREFIX}*`;
/** The id (and logical id prefix, less the `::`) CDK gives BucketDeployment's singleton function: `Custom::CDKBucketDeployment<uuid><memory>`. */
export const BUCKET_DEPLOYMENT_FUNCTION = "Custom::CDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C";
/** As the API's `/console/{asset}` answers (functions/console/asset.ts): the names carry a content hash. */
export const CONSOLE_ASSETS_CACHE_CONTROL = "public, max-age=31536000, immutable";

/**
 * The web console's hashed scripts and stylesheets from S3 through the distribution (issue 30, docs/deploy.md "The web
 * console"): a private bucket that only this distribution reads (Origin Access Control), this release's files
 * (dist/console-static, infra/build.ts) deployed under `console/` with a year's immutable caching, and the behavior
 * that serves them, cached at the edge (CachingOptimized honours the objects' max-age), compressed, GET and HEAD only.
 * Earlier releases' files stay (no pruning): a browser still holding an earlier HTML entry asks for those names.
 * Without the distribution none of this exists and the API's `GET /console/{asset}` serves the same files.
 */
export class ConsoleAssets extends Construct {
  readonly bucket: s3.Bucket;
  readonly deployment: s3deploy.BucketDeployment;
  /** The deployment's function's own role: exactly the calls `aws s3 cp` and `aws s3 sync` make, and its log group. */
  readonly deploymentRole: iam.Role;
  readonly headers: cloudfront.ResponseHeadersPolicy;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, "Bucket", {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      // As the deployment's other buckets. A release's files are rebuilt from the source; versions would only keep copies.
      removalPolicy: cdk.RemovalPolicy.RETAIN,
    });

    // The release as a zip asset of the bootstrap bucket, unpacked and copied by CDK's deployment function (Python,
    // with the AWS CLI). Its role is immutable to CDK: the grants BucketDeployment adds (read and write of the whole
    // bucket and of the asset bucket, with wildcard actions) are replaced by the exact calls it makes here.
    const release = new Asset(this, "Release", { path: CONSOLE_STATIC_DIR });
    const logGroup = new logs.LogGroup(this, "DeploymentLogs", { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: cdk.RemovalPolicy.DESTROY });
    this.deploymentRole = new iam.Role(this, "DeploymentRole", {
      assumedBy: new iam.ServicePrincipal("lambda.amazonaws.com"),
      description: "Copies a release of the web console's assets from the CDK asset bucket into the console bucket's console/ prefix",
      inlinePolicies: {
        deploy: new iam.PolicyDocument({
          statements: [
            // `aws s3 cp` of the release's zip.
            new iam.PolicyStatement({ actions: ["s3:GetObject"], resources: [release.bucket.arnForObjects(release.s3ObjectKey)] }),
            // `aws s3 sync` into console/: it lists the prefix, then puts each file with its metadata. No delete (no pruning).
            new iam.PolicyStatement({ actions: ["s3:ListBucket"], resources: [this.bucket.bucketArn], conditions: { StringLike: { "s3:prefix": [CONSOLE_ASSETS_PREFIX, `${CONSOLE_ASSETS_PREFIX}*`] } } }),
            new iam.PolicyStatement({ actions: ["s3:PutObject"], resources: [this.bucket.arnForObjects(`${CONSOLE_ASSETS_PREFIX}*`)] }),
            new iam.PolicyStatement({ actions: ["logs:CreateLogStream", "logs:PutLogEvents"], resources: [logGroup.logGroupArn] }),
          ],
        }),
      },
    });
    this.deployment = new s3deploy.BucketDeployment(this, "Deployment", {
      sources: [s3deploy.Source.bucket(release.bucket, release.s3ObjectKey)],
      destinationBucket: this.bucket,
      destinationKeyPrefix: CONSOLE_ASSETS_PREFIX,
      prune: false,
      // Kept when the stack is deleted, with the bucket.
      retainOnDelete: true,
      // Content types are those `aws s3 sync` guesses from the extension: text/javascript and text/css.
      cacheControl: [s3deploy.CacheControl.fromString(CONSOLE_ASSETS_CACHE_CONTROL)],
      role: this.deploymentRole.withoutPolicyUpdates(),
      logGroup,
      memoryLimit: 256,
    });

    this.headers = new cloudfront.ResponseHeadersPolicy(this, "Headers", {
      comment: "The web console's assets: nosniff, as the API answers them",
      securityHeadersBehavior: { contentTypeOptions: { override: true } },
    });
  }

  /** CDK's deployment function (a singleton of the stack, so not under this construct), for cdk-nag's acknowledgements. */
  get deploymentFunction(): lambda.Function {
    const fn = cdk.Stack.of(this)
      .node.children.filter((c): c is lambda.Function => c instanceof lambda.Function)
      .find((c) => c.node.id.startsWith(BUCKET_DEPLOYMENT_FUNCTION));
    if (!fn) throw new Error("No BucketDeployment function in the console assets' stack");
    return fn;
  }

  /** The distribution's behavior for `CONSOLE_ASSETS_PATH`: the bucket through Origin Access Control, cached at the edge. */
  behavior(): cloudfront.BehaviorOptions {
    return {
      // Reading objects, and listing so that a name no release has answers 404 rather than 403 (CloudFront sends only
      // object GETs under /console/, never a listing).
      origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket, { originAccessLevels: [cloudfront.AccessLevel.READ, cloudfront.AccessLevel.LIST] }),
      allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
      cachedMethods: cloudfront.CachedMethods.CACHE_GET_HEAD,
      cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: this.headers,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      compress: true,
    };
  }
}

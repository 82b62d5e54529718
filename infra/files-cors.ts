/**
 * The files bucket's CORS rule, one definition for the deployed bucket (infra/data-stack.ts) and for s3rver on
 * `npm start` (infra/local/s3.ts), so a browser page (the web console, issue 30) works the same on both: it PUTs
 * parts to presigned upload URLs (`POST /v1/files/uploads`, reading each part's ETag to complete the upload) and
 * follows the 302 of a download to a presigned GET.
 *
 * Any origin, any request header: acceptable because nothing on this bucket is readable or writable without a
 * presigned URL. Each URL carries its own signature, for one object, one method and a short life, minted only for
 * an authenticated API call of the object's workspace; the bucket blocks public access and CORS grants no
 * credentials of its own (no cookies or ambient authority exist for S3 here). CORS only lets a browser read the
 * answer of a request the URL already authorizes; naming origins would tie a deployment to the console's host
 * while stopping no one who holds a URL (curl ignores CORS). No DELETE or POST: a page never needs them here.
 */
export const FILES_BUCKET_CORS = {
  allowedOrigins: ["*"],
  allowedMethods: ["GET", "PUT", "HEAD"] as const,
  allowedHeaders: ["*"],
  /** Multipart completion needs each part's ETag, which a browser hides unless the rule exposes it. */
  exposedHeaders: ["ETag"],
  /** How long a browser may keep a preflight's answer. */
  maxAgeSeconds: 3000,
};

/** The rule as S3's PutBucketCors XML (s3rver's `configureBuckets` takes it so). */
export function filesBucketCorsXml(): string {
  const rule = FILES_BUCKET_CORS;
  const tags = (name: string, values: readonly string[]) => values.map((value) => `<${name}>${value}</${name}>`).join("");
  return (
    "<CORSConfiguration><CORSRule>" +
    tags("AllowedOrigin", rule.allowedOrigins) +
    tags("AllowedMethod", rule.allowedMethods) +
    tags("AllowedHeader", rule.allowedHeaders) +
    tags("ExposeHeader", rule.exposedHeaders) +
    `<MaxAgeSeconds>${rule.maxAgeSeconds}</MaxAgeSeconds>` +
    "</CORSRule></CORSConfiguration>"
  );
}

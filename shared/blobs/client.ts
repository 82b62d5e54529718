import { S3Client } from "@aws-sdk/client-s3";

/**
 * One S3 client per process. Checksums only when S3 requires them: the default adds a CRC of an empty
 * body to presigned PUT URLs, which real S3 then rejects for the uploaded bytes.
 */
export const s3 = new S3Client({
  requestChecksumCalculation: "WHEN_REQUIRED",
  responseChecksumValidation: "WHEN_REQUIRED",
  forcePathStyle: process.env.S3_FORCE_PATH_STYLE === "true",
});
// As for the document client (shared/store/client.ts): no logger, so no copies of each command for one.
s3.middlewareStack.remove("loggerMiddleware");

/** The shared S3 client (shared/blobs/client.ts) has no logger step either, as the document client has none. */
import { S3Client } from "@aws-sdk/client-s3";
import { expect, it } from "vitest";
import { s3 } from "../../../shared/blobs/client.js";

it("leaves out the SDK's logger step, which a client built as the SDK's default has", () => {
  const loggerStep = (steps: string[]) => steps.filter((step) => step.startsWith("loggerMiddleware"));
  expect(loggerStep(new S3Client({}).middlewareStack.identify())).toHaveLength(1);
  expect(loggerStep(s3.middlewareStack.identify())).toStrictEqual([]);
});

/** The shared S3 client (shared/blobs/client.ts) hands nothing to the SDK's logger, as the document client does not. */
import { HeadObjectCommand } from "@aws-sdk/client-s3";
import { afterEach, expect, it, vi } from "vitest";
import { s3 } from "../../../shared/blobs/client.js";

afterEach(() => {
  vi.restoreAllMocks();
});

it("does not pass an S3 command's input and outcome to the logger", async () => {
  const logged = [vi.spyOn(s3.config.logger, "info"), vi.spyOn(s3.config.logger, "error")];
  await expect(s3.send(new HeadObjectCommand({ Bucket: "no-such-bucket", Key: "a" }))).rejects.toThrow();
  for (const spy of logged) expect(spy).not.toHaveBeenCalled();
});

import { mkdirSync } from "node:fs";
import S3rver from "s3rver";

export interface RunningS3 {
  endpoint: string;
  stop(): Promise<void>;
}

/** s3rver in-process; it checks the access key id (must be S3RVER) and presign expiry, not signatures. */
export async function startS3(options: { dataDir: string; buckets: string[] }): Promise<RunningS3> {
  mkdirSync(options.dataDir, { recursive: true });
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory: options.dataDir,
    configureBuckets: options.buckets.map((name) => ({ name, configs: [] })),
  });
  const address = (await server.run()) as { port: number };
  return { endpoint: `http://127.0.0.1:${address.port}`, stop: () => server.close() as Promise<void> };
}

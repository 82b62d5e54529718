import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { record, type StubJob } from "./calls.js";

const s3 = new S3Client({});

/** Like the batch Start task: writes a chunk manifest (a JSON array) and says where it is. */
export async function handler(input: StubJob) {
  record("start", input);
  if (input.failStart) throw Object.assign(new Error(`start refused job ${input.jobId}`), { name: input.failStart });
  const bucket = process.env.BUCKET_FILES!;
  const manifestKey = `workspaces/${input.workspace}/batch/${input.jobId}/manifest.json`;
  const chunks = Array.from({ length: input.chunks ?? 3 }, (_, index) => ({ index, key: `workspaces/${input.workspace}/batch/${input.jobId}/chunk-${index}.jsonl`, count: index + 1 }));
  if (!input.noManifest) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: manifestKey, Body: JSON.stringify(chunks), ContentType: "application/json" }));
  return { ...input, bucket, manifestKey };
}

import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { filesBucket } from "../config.js";
import { s3 } from "./client.js";

/**
 * Dataset imports' own objects in the files bucket, under the workspace prefix every function's grant covers: the
 * ids an import from conversations or records works through (a JSON array; 10,000 record ids do not fit a task item
 * or a Step Functions input), and reads of an uploaded file from the byte an interrupted run stopped at.
 */
export const importKeys = {
  input: (workspace: string, taskId: string) => `workspaces/${workspace}/dataset-imports/${taskId}.json`,
};

export const importBlobs = {
  async putIds(key: string, ids: string[]): Promise<void> {
    await s3.send(new PutObjectCommand({ Bucket: filesBucket(), Key: key, Body: JSON.stringify(ids), ContentType: "application/json" }));
  },

  async ids(key: string): Promise<string[]> {
    const out = await s3.send(new GetObjectCommand({ Bucket: filesBucket(), Key: key }));
    return JSON.parse(await out.Body!.transformToString("utf8")) as string[];
  },

  async remove(key: string): Promise<void> {
    await s3.send(new DeleteObjectCommand({ Bucket: filesBucket(), Key: key }));
  },

  /** The object's bytes from `offset` on, chunk by chunk as S3 sends them. */
  async *readFrom(key: string, offset: number): AsyncGenerator<Uint8Array> {
    const out = await s3.send(new GetObjectCommand({ Bucket: filesBucket(), Key: key, ...(offset > 0 ? { Range: `bytes=${offset}-` } : {}) }));
    yield* out.Body as AsyncIterable<Uint8Array>;
  },
};

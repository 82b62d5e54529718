/**
 * Seeds file records straight into the files table with BatchWrite (25 items a request), using the
 * store's own item layout (`fileItem`) and moving the workspace's file count once at the end, as the
 * API's transactional writes would have. No S3 objects are written: list and retrieve read only DynamoDB.
 */
import { randomUUID } from "node:crypto";
import { BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import type { FileRecord } from "../shared/domain/file-rules.js";
import { objectKeyFor } from "../shared/domain/file-rules.js";

export interface SeedTarget {
  organization: string;
  workspace: string;
  owner: string;
}

function recordFor(target: SeedTarget, i: number, createdMs: number): FileRecord {
  const id = randomUUID();
  return {
    id,
    workspace: target.workspace,
    organization: target.organization,
    owner: target.owner,
    filename: `Seed-${String(i).padStart(5, "0")}.jsonl`,
    bytes: 1024 + (i % 4096),
    createdAt: Math.floor(createdMs / 1000),
    purpose: i % 2 ? "batch" : "fine-tune",
    sampleType: i % 2 ? "batch_request" : "instruct",
    source: "upload",
    mimetype: "application/jsonl",
    numLines: 10 + (i % 100),
    signature: null,
    expiresAt: null,
    visibility: "workspace",
    objectKey: objectKeyFor(target.workspace, id),
  };
}

/** `count` files in the workspace, newest first one millisecond apart; `concurrency` batch requests in flight. */
export async function seedFiles(target: SeedTarget, count: number, concurrency = 4): Promise<void> {
  // Imported late: the store's DynamoDB client is built from the environment the local stack sets.
  const { fileStore, fileItem } = await import("../shared/store/files.js");
  const { documents } = await import("../shared/store/client.js");
  const { tableName } = await import("../shared/config.js");
  const table = tableName("files");
  const newestMs = Date.now();

  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < count; i += 25) {
    batches.push(Array.from({ length: Math.min(25, count - i) }, (_, j) => {
      const createdMs = newestMs - (i + j);
      return fileItem(recordFor(target, i + j, createdMs), createdMs);
    }));
  }
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      let requests = batches[next++]!.map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
        if (attempt > 8) throw new Error("BatchWrite kept returning unprocessed items");
        const out = await documents.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
        requests = (out.UnprocessedItems?.[table] ?? []) as typeof requests;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
  await fileStore.adjustCount(recordFor(target, 0, newestMs), count);
}

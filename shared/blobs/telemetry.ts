import { randomUUID } from "node:crypto";
import { mkdir, open, type FileHandle } from "node:fs/promises";
import { dirname, join } from "node:path";
import { threadId } from "node:worker_threads";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { partitionPrefix, rowTime, type TelemetryRows, type WrittenKind } from "../domain/observability/records.js";
import { TELEMETRY_DIR_ENV } from "../config.js";
import { s3 } from "./client.js";

/** Locally: the directory (under the data directory) DuckDB reads; in the cloud: the bucket Athena reads. */
export const TELEMETRY_BUCKET_ENV = "BUCKET_TELEMETRY";
/** Every analytical object sits under this key prefix of the telemetry bucket. */
export const TELEMETRY_KEY_PREFIX = "telemetry/";

/** Rows grouped by the partition (workspace, day) they are filed under. */
function byPartition<K extends WrittenKind>(kind: K, rows: TelemetryRows[K][]): Map<string, TelemetryRows[K][]> {
  const groups = new Map<string, TelemetryRows[K][]>();
  for (const row of rows) {
    const prefix = partitionPrefix(kind, row.workspace_id, rowTime(kind, row));
    const group = groups.get(prefix);
    if (group) group.push(row);
    else groups.set(prefix, [row]);
  }
  return groups;
}

/** This writer's part of a local file name: the process, and the thread when it is not the main one. */
const WRITER = threadId ? `${process.pid}-${threadId}` : String(process.pid);

const jsonLines = (rows: unknown[]) => rows.map((row) => JSON.stringify(row)).join("\n") + "\n";

/**
 * Appends telemetry rows to the analytical store as JSON lines, one object (cloud) or one append (local)
 * per partition. Locally each process (and each thread: `npm start`'s bookkeeping thread) appends to its own file
 * per hour, in one write per call, so a line is never interleaved with another writer's; in the cloud every call writes a new object.
 */
export async function appendTelemetry<K extends WrittenKind>(kind: K, rows: TelemetryRows[K][]): Promise<void> {
  if (rows.length === 0) return;
  const dir = process.env[TELEMETRY_DIR_ENV];
  const bucket = process.env[TELEMETRY_BUCKET_ENV];
  if (!dir && !bucket) throw new Error(`Missing environment setting ${TELEMETRY_BUCKET_ENV} (or ${TELEMETRY_DIR_ENV} locally)`);
  const hour = new Date().toISOString().slice(0, 13).replace(/[-T:]/g, "");
  await Promise.all(
    [...byPartition(kind, rows)].map(async ([prefix, group]) => {
      if (dir) {
        await appendLocal(join(dir, prefix, `${hour}-${WRITER}.jsonl`), hour, jsonLines(group));
        return;
      }
      const key = `${TELEMETRY_KEY_PREFIX}${prefix}${hour}-${randomUUID()}.jsonl`;
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: jsonLines(group), ContentType: "application/x-ndjson" }));
    }),
  );
}

/**
 * Local appends through one open handle per file (this process's file of a partition and hour), rather
 * than creating the folder and opening the file on every call: the hot path's span writes are batched and
 * land here (one fstat per append checks the file is still there). Handles of past hours are closed when the
 * hour turns.
 */
const handles = new Map<string, { hour: string; handle: Promise<FileHandle>; tail: Promise<unknown> }>();

/**
 * At most this many files open at once. Spans are partitioned by their own start date, which OTLP clients choose:
 * a soak's random dates opened 3,632 files within one hour, each handle kept to the hour's end. Past the bound the
 * least recently written is closed once its appends are done.
 */
export const MAX_OPEN_TELEMETRY_FILES = 64;

const closeWhenDone = (entry: { handle: Promise<FileHandle>; tail: Promise<unknown> }) =>
  void entry.tail.then(() => entry.handle).then((h) => h.close()).catch(() => undefined);

async function appendLocal(path: string, hour: string, text: string): Promise<void> {
  let open_ = handles.get(path);
  if (open_) {
    // Most recently written last: the Map's order is the eviction order.
    handles.delete(path);
    handles.set(path, open_);
  } else {
    for (const [other, entry] of handles) {
      if (entry.hour !== hour || handles.size >= MAX_OPEN_TELEMETRY_FILES) {
        handles.delete(other);
        closeWhenDone(entry);
      }
    }
    open_ = { hour, handle: mkdir(dirname(path), { recursive: true }).then(() => open(path, "a")), tail: Promise.resolve() };
    handles.set(path, open_);
  }
  const entry = open_;
  // One append at a time per file: a large one is several writes, and another's must not land between them.
  const appended = entry.tail.then(async () => {
    let handle = await entry.handle;
    // A file removed under the process (a test's cleanup, an operator) is opened afresh, not written into the void.
    if ((await handle.stat()).nlink === 0) {
      void handle.close().catch(() => undefined);
      entry.handle = mkdir(dirname(path), { recursive: true }).then(() => open(path, "a"));
      handle = await entry.handle;
    }
    await handle.appendFile(text);
  });
  entry.tail = appended.catch(() => undefined);
  try {
    await appended;
  } catch (error) {
    // The next append opens the file afresh.
    if (handles.get(path) === entry) handles.delete(path);
    void entry.handle.then((h) => h.close()).catch(() => undefined);
    throw error;
  }
}

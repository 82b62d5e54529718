import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type QueryCommandInput,
} from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import type { FileRecord, PendingUpload } from "../domain/file-rules.js";
import type { FilePurpose, FileSource, FileVisibility, SampleType } from "../schemas/file.js";
import { batchGetAll, documents, ifTransactionHolds } from "./client.js";
import { queryCount, queryPage } from "./query.js";

const table = () => tableName("files");
const fileKey = (workspace: string, id: string) => ({ workspace, sk: `FILE#${id}` });
const uploadKey = (workspace: string, id: string) => ({ workspace, sk: `UPLOAD#${id}` });

/** Sorts newest first on the byCreated index; the id breaks ties within one millisecond. */
const createdKey = (createdAtMs: number, id: string) => `${String(createdAtMs).padStart(15, "0")}#${id}`;

/**
 * Counts behind `total`: files without an expiry, per visibility scope, kept exact by writing them in
 * the same transaction as the file. Expiring files are counted live on the sparse byExpiry index, since
 * they leave the total when they expire, not when a write happens.
 */
const counterKey = (workspace: string, file: Pick<FileRecord, "visibility" | "owner">) => ({
  workspace,
  sk: file.visibility === "user" ? `#COUNT#user#${file.owner}` : "#COUNT#workspace",
});
const counted = (file: Pick<FileRecord, "expiresAt">) => file.expiresAt === null;

function counterUpdate(file: FileRecord, delta: 1 | -1) {
  return {
    Update: {
      TableName: table(),
      Key: counterKey(file.workspace, file),
      UpdateExpression: "ADD #files :delta",
      ExpressionAttributeNames: { "#files": "files" },
      ExpressionAttributeValues: { ":delta": delta },
    },
  };
}

/** The item of a file record; exported for bulk writers (bench/seed.ts), which must then adjust the counts. */
export function fileItem(file: FileRecord, createdAtMs: number) {
  return {
    ...fileKey(file.workspace, file.id),
    ...file,
    // Absent rather than null: it is the sort key of the sparse byExpiry index.
    expiresAt: file.expiresAt ?? undefined,
    createdKey: createdKey(createdAtMs, file.id),
    filenameLower: file.filename.toLowerCase(),
    // DynamoDB TTL removes expired records eventually; reads hide them from the moment they expire.
    ttl: file.expiresAt ?? undefined,
  };
}

function fromItem(item: Record<string, unknown>): FileRecord {
  const { sk: _sk, createdKey: _ck, filenameLower: _fl, ttl: _ttl, ...file } = item;
  return { signature: null, numLines: null, mimetype: null, expiresAt: null, ...file } as FileRecord;
}

export interface FileFilter {
  /** The principal whose `user` files are included besides the workspace's shared ones. */
  principal: string;
  now: number;
  purpose?: FilePurpose;
  sampleTypes?: SampleType[];
  sources?: FileSource[];
  mimetypes?: string[];
  search?: string;
}

function filterExpression(filter: FileFilter): Pick<QueryCommandInput, "FilterExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues"> {
  const names: Record<string, string> = { "#visibility": "visibility", "#owner": "owner", "#expiresAt": "expiresAt" };
  const values: Record<string, unknown> = { ":shared": "workspace" satisfies FileVisibility, ":me": filter.principal, ":now": filter.now, ":null": null };
  const clauses = [
    "(#visibility = :shared OR #owner = :me)",
    "(attribute_not_exists(#expiresAt) OR #expiresAt = :null OR #expiresAt > :now)",
  ];
  const anyOf = (attribute: string, list: string[] | undefined) => {
    if (!list?.length) return;
    names[`#${attribute}`] = attribute;
    const placeholders = list.map((value, i) => {
      values[`:${attribute}${i}`] = value;
      return `:${attribute}${i}`;
    });
    clauses.push(`#${attribute} IN (${placeholders.join(", ")})`);
  };
  anyOf("purpose", filter.purpose ? [filter.purpose] : undefined);
  anyOf("sampleType", filter.sampleTypes);
  anyOf("source", filter.sources);
  anyOf("mimetype", filter.mimetypes);
  if (filter.search) {
    names["#filenameLower"] = "filenameLower";
    values[":search"] = filter.search.toLowerCase();
    clauses.push("contains(#filenameLower, :search)");
  }
  return { FilterExpression: clauses.join(" AND "), ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}

export const fileStore = {
  /** Returns false when a file with this id exists already (nothing is written). */
  async create(file: FileRecord, createdAtMs: number): Promise<boolean> {
    const put = { Put: { TableName: table(), Item: fileItem(file, createdAtMs), ConditionExpression: "attribute_not_exists(sk)" } };
    return (await ifTransactionHolds(documents.send(new TransactWriteCommand({ TransactItems: counted(file) ? [put, counterUpdate(file, 1)] : [put] })))) !== undefined;
  },

  async get(workspace: string, id: string): Promise<FileRecord | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: fileKey(workspace, id) }));
    return out.Item ? fromItem(out.Item) : undefined;
  },

  /** Returns false when there was nothing to delete (a concurrent delete won). */
  async remove(file: FileRecord): Promise<boolean> {
    const remove = { Delete: { TableName: table(), Key: fileKey(file.workspace, file.id), ConditionExpression: "attribute_exists(sk)" } };
    return (await ifTransactionHolds(documents.send(new TransactWriteCommand({ TransactItems: counted(file) ? [remove, counterUpdate(file, -1)] : [remove] })))) !== undefined;
  },

  /** For bulk writers that put items themselves: moves the count of `file`'s scope by `delta`. */
  async adjustCount(file: FileRecord, delta: number): Promise<void> {
    await documents.send(
      new UpdateCommand({ ...counterUpdate(file, 1).Update, ExpressionAttributeValues: { ":delta": delta } }),
    );
  },

  /** One page, newest first, of the files the filter admits; `total` counts all of them when asked. */
  async list(workspace: string, filter: FileFilter, page: number, pageSize: number, includeTotal: boolean) {
    const base: QueryCommandInput = {
      TableName: table(),
      IndexName: "byCreated",
      KeyConditionExpression: "workspace = :workspace",
      ScanIndexForward: false,
      ...filterExpression(filter),
    };
    base.ExpressionAttributeValues = { ...base.ExpressionAttributeValues, ":workspace": workspace };
    const [items, total] = await Promise.all([
      queryPage(base, page * pageSize, pageSize),
      includeTotal ? (isUnfiltered(filter) ? visibleTotal(workspace, filter) : queryCount(base)) : Promise.resolve(null),
    ]);
    return { items: items.map(fromItem), total };
  },

  async putUpload({ expiresAt, ...upload }: PendingUpload): Promise<void> {
    await documents.send(
      new PutCommand({
        TableName: table(),
        // Not `expiresAt`: that attribute is the sort key of the files-only byExpiry index.
        Item: { ...uploadKey(upload.workspace, upload.id), ...upload, urlsExpireAt: expiresAt, ttl: expiresAt },
        ConditionExpression: "attribute_not_exists(sk)",
      }),
    );
  },

  async getUpload(workspace: string, id: string): Promise<PendingUpload | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: uploadKey(workspace, id) }));
    if (!out.Item) return undefined;
    const { sk: _sk, ttl: _ttl, urlsExpireAt, ...upload } = out.Item;
    return { ...upload, expiresAt: urlsExpireAt } as PendingUpload;
  },

  async removeUpload(workspace: string, id: string): Promise<void> {
    await documents.send(new DeleteCommand({ TableName: table(), Key: uploadKey(workspace, id) }));
  },

  /**
   * The file record appears and the pending upload disappears together, or neither does. Returns false
   * when neither did: the upload was completed (or removed) already.
   */
  async completeUpload(file: FileRecord, createdAtMs: number, uploadId: string): Promise<boolean> {
    const written = await ifTransactionHolds(
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: table(), Item: fileItem(file, createdAtMs), ConditionExpression: "attribute_not_exists(sk)" } },
            { Delete: { TableName: table(), Key: uploadKey(file.workspace, uploadId), ConditionExpression: "attribute_exists(sk)" } },
            ...(counted(file) ? [counterUpdate(file, 1)] : []),
          ],
        }),
      ),
    );
    return written !== undefined;
  },
};


const isUnfiltered = (f: FileFilter) =>
  !f.purpose && !f.sampleTypes?.length && !f.sources?.length && !f.mimetypes?.length && !f.search;

/** The unfiltered total without reading the workspace: two counters plus the live, unexpired expiring files. */
async function visibleTotal(workspace: string, filter: FileFilter): Promise<number> {
  const keys = [counterKey(workspace, { visibility: "workspace", owner: "" }), counterKey(workspace, { visibility: "user", owner: filter.principal })];
  const [counters, expiring] = await Promise.all([
    batchGetAll(table(), keys, { projection: "#files", names: { "#files": "files" } }),
    queryCount({
      TableName: table(),
      IndexName: "byExpiry",
      KeyConditionExpression: "workspace = :workspace AND #expiresAt > :now",
      FilterExpression: "#visibility = :shared OR #owner = :me",
      ExpressionAttributeNames: { "#expiresAt": "expiresAt", "#visibility": "visibility", "#owner": "owner" },
      ExpressionAttributeValues: { ":workspace": workspace, ":now": filter.now, ":shared": "workspace", ":me": filter.principal },
    }),
  ]);
  const stored = counters.reduce((sum, item) => sum + Number(item.files ?? 0), 0);
  return stored + expiring;
}

/**
 * Library documents in the libraries table (decision 71): `DOC#<id>` items in their library's partition, with a
 * `HASH#<sha256>` item per document naming it (the same bytes are one document per library). Every write that adds
 * or removes a document changes the head's `nbDocuments` and `totalSize` in the same transaction.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import type { DocumentRecord } from "../../domain/libraries/documents.js";
import { documents, ifConditionHolds, ifTransactionHolds, setFields } from "../client.js";
import { queryAll } from "../query.js";
import { headKey, libraryPartition } from "./index.js";

const table = () => tableName("libraries");
export const DOCUMENT_PREFIX = "DOC#";
const documentKey = (organization: string, libraryId: string, id: string) => ({ pk: libraryPartition(organization, libraryId), sk: `${DOCUMENT_PREFIX}${id}` });
const hashKey = (organization: string, libraryId: string, hash: string) => ({ pk: libraryPartition(organization, libraryId), sk: `HASH#${hash}` });

export function documentOf(item: Record<string, unknown>): DocumentRecord {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record as unknown as DocumentRecord;
}

/** What processing may write on a document, as of one generation. */
export type Processed = Partial<Pick<DocumentRecord, "status" | "processError" | "lastProcessedAt" | "numberOfPages" | "chunks" | "tokensProcessed" | "embeddingModel">>;

export const documentsStore = {
  /**
   * Adds a document with its hash item and the head's counters, if the library exists and has no document of the
   * same bytes. Answers "added", or the id of the document with the same hash, or "no-library".
   */
  async add(document: DocumentRecord): Promise<"added" | "no-library" | { existing: string }> {
    const added = await ifTransactionHolds(
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: table(),
                Key: headKey(document.organization, document.libraryId),
                UpdateExpression: "ADD #count :one, #size :size",
                ConditionExpression: "attribute_exists(pk)",
                ExpressionAttributeNames: { "#count": "nbDocuments", "#size": "totalSize" },
                ExpressionAttributeValues: { ":one": 1, ":size": document.size },
              },
            },
            { Put: { TableName: table(), Item: { ...hashKey(document.organization, document.libraryId, document.hash), documentId: document.id }, ConditionExpression: "attribute_not_exists(pk)" } },
            { Put: { TableName: table(), Item: { ...documentKey(document.organization, document.libraryId, document.id), ...document }, ConditionExpression: "attribute_not_exists(pk)" } },
          ],
        }),
      ),
    );
    if (added) return "added";
    const hash = await documents.send(new GetCommand({ TableName: table(), Key: hashKey(document.organization, document.libraryId, document.hash), ConsistentRead: true }));
    if (hash.Item) return { existing: String(hash.Item.documentId) };
    return "no-library";
  },

  async get(organization: string, libraryId: string, id: string): Promise<DocumentRecord | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: documentKey(organization, libraryId, id), ConsistentRead: true }));
    return out.Item ? documentOf(out.Item) : undefined;
  },

  /** Every document of a library (Mistral's list pages by number with a total: it reads them all). */
  async all(organization: string, libraryId: string): Promise<DocumentRecord[]> {
    const items = await queryAll({
      TableName: table(),
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :doc)",
      ExpressionAttributeValues: { ":pk": libraryPartition(organization, libraryId), ":doc": DOCUMENT_PREFIX },
      ConsistentRead: true,
    });
    return items.map(documentOf);
  },

  /** Sets fields a user may change; undefined when the document is gone. */
  update(document: DocumentRef, fields: Partial<Pick<DocumentRecord, "name" | "attributes" | "expiresAt">>): Promise<DocumentRecord | undefined> {
    return setIf(document, fields);
  },

  /** Writes processing's outcome if the document is still at this generation; undefined when it is not (reprocessed, deleted). */
  processed(document: DocumentRef, generation: number, fields: Processed): Promise<DocumentRecord | undefined> {
    return setIf(document, fields, generation);
  },

  /** Queues a document again (the next generation), as `by` asks; undefined when it is gone or moved on since it was read. */
  requeue(document: DocumentRecord, by: Pick<DocumentRecord, "uploadedById" | "uploadedByType" | "uploadedFrom">): Promise<DocumentRecord | undefined> {
    return setIf(document, { status: "todo", processError: null, generation: document.generation + 1, ...by }, document.generation);
  },

  /** Removes a document, its hash item and its share of the head's counters (the head may be gone already). False when it was gone. */
  async remove(document: DocumentRecord): Promise<boolean> {
    const head = await documents.send(new GetCommand({ TableName: table(), Key: headKey(document.organization, document.libraryId), ConsistentRead: true, ProjectionExpression: "pk" }));
    const out = await ifTransactionHolds(
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { Delete: { TableName: table(), Key: documentKey(document.organization, document.libraryId, document.id), ConditionExpression: "attribute_exists(pk)" } },
            { Delete: { TableName: table(), Key: hashKey(document.organization, document.libraryId, document.hash) } },
            ...(head.Item
              ? [
                  {
                    Update: {
                      TableName: table(),
                      Key: headKey(document.organization, document.libraryId),
                      UpdateExpression: "ADD #count :minusOne, #size :minusSize",
                      ConditionExpression: "attribute_exists(pk)",
                      ExpressionAttributeNames: { "#count": "nbDocuments", "#size": "totalSize" },
                      ExpressionAttributeValues: { ":minusOne": -1, ":minusSize": -document.size },
                    },
                  },
                ]
              : []),
          ],
        }),
      ),
    );
    return out !== undefined;
  },
};

type DocumentRef = Pick<DocumentRecord, "organization" | "libraryId" | "id">;

/** Sets fields of a document that exists (at `generation`, when given); its new record, or undefined when the condition failed. */
async function setIf(document: DocumentRef, fields: Record<string, unknown>, generation?: number): Promise<DocumentRecord | undefined> {
  const set = setFields(fields);
  const atGeneration = generation === undefined ? {} : { names: { "#generation": "generation" }, values: { ":generation": generation } };
  const out = await ifConditionHolds(
    documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: documentKey(document.organization, document.libraryId, document.id),
        ...set,
        ConditionExpression: generation === undefined ? "attribute_exists(pk)" : "attribute_exists(pk) AND #generation = :generation",
        ExpressionAttributeNames: { ...set.ExpressionAttributeNames, ...atGeneration.names },
        ExpressionAttributeValues: { ...set.ExpressionAttributeValues, ...atGeneration.values },
        ReturnValues: "ALL_NEW",
      }),
    ),
  );
  return out?.Attributes ? documentOf(out.Attributes) : undefined;
}

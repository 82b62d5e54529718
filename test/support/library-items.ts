import { createHash, randomUUID } from "node:crypto";
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, type DeleteObjectCommandInput, type GetObjectCommandInput, type PutObjectCommandInput, type S3Client } from "@aws-sdk/client-s3";
import { BatchWriteCommand, type BatchWriteCommandInput, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { AwsClientStub } from "aws-sdk-client-mock";
import type { Caller } from "../../shared/domain/caller.js";
import type { AccessRecord, AccessRole, EntityType, LibraryRecord } from "../../shared/domain/libraries/access.js";
import type { DocumentRecord } from "../../shared/domain/libraries/documents.js";
import type { FakeTables } from "./fake-table.js";

/** A workspace-owned library of the caller's workspace, with no documents and no shares. */
export function aLibrary(caller: Pick<Caller, "organization" | "workspace" | "principal">, overrides: Partial<LibraryRecord> = {}): LibraryRecord {
  return {
    id: randomUUID(),
    organization: caller.organization,
    workspace: caller.workspace,
    name: "Handbook",
    description: null,
    chunkSize: null,
    ownerType: "Workspace",
    ownerId: caller.workspace,
    creatorId: caller.principal,
    nbDocuments: 0,
    totalSize: 0,
    userShares: 0,
    workspaceShares: 0,
    orgRole: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...overrides,
  };
}

export const createdKey = (library: Pick<LibraryRecord, "createdAt" | "id">) => `${String(Date.parse(library.createdAt)).padStart(15, "0")}#${library.id}`;

export const anAccess = (library: LibraryRecord, type: EntityType, id: string, role: AccessRole): AccessRecord => ({
  libraryId: library.id,
  organization: library.organization,
  entityType: type,
  entityId: id,
  role,
  createdAt: library.createdAt,
  updatedAt: library.createdAt,
});

/** A library as the table holds it: its head, the owner's access and the `shares` given, each access with its grantee entry. */
export function libraryItems(library: LibraryRecord, shares: { type: EntityType; id: string; role: AccessRole }[] = []): Record<string, unknown>[] {
  const partition = `ORG#${library.organization}#LIB#${library.id}`;
  const accesses = [anAccess(library, library.ownerType, library.ownerId, "Owner"), ...shares.map((s) => anAccess(library, s.type, s.id, s.role))];
  return [
    { pk: partition, sk: "LIBRARY", ...library },
    ...accesses.flatMap((a) => [
      { pk: partition, sk: `ACCESS#${a.entityType}#${a.entityId}`, ...a },
      { pk: `ORG#${library.organization}#GRANTEE#${a.entityType}#${a.entityId}`, sk: `LIB#${library.id}`, createdKey: createdKey(library), libraryId: library.id, role: a.role },
    ]),
  ];
}

/** BatchWriteItem deletes against the fake tables (serveTables does not serve batch writes). */
export function serveBatchDeletes(dynamo: AwsClientStub<DynamoDBDocumentClient>, fake: FakeTables): void {
  dynamo.on(BatchWriteCommand).callsFake((input: BatchWriteCommandInput) => {
    for (const requests of Object.values(input.RequestItems ?? {})) {
      const rows = fake.items("libraries");
      for (const { DeleteRequest } of requests) {
        const at = rows.findIndex((row) => row.pk === DeleteRequest?.Key?.pk && row.sk === DeleteRequest?.Key?.sk);
        if (at >= 0) rows.splice(at, 1);
      }
    }
    return {};
  });
}

/** The head of a library in the fake table, as stored. */
export const headIn = (fake: FakeTables, library: Pick<LibraryRecord, "organization" | "id">) =>
  fake.items("libraries").find((row) => row.pk === `ORG#${library.organization}#LIB#${library.id}` && row.sk === "LIBRARY");

/** A text document of `library`, uploaded by its creator, queued at generation 1 (`todo`); its hash is of `content`. */
export function aDocument(library: LibraryRecord, overrides: Partial<DocumentRecord> = {}, content = "Trains are booked in second class."): DocumentRecord {
  return {
    id: randomUUID(),
    libraryId: library.id,
    organization: library.organization,
    workspace: library.workspace,
    name: "policy.txt",
    mimeType: "text/plain",
    extension: "txt",
    size: Buffer.byteLength(content),
    hash: createHash("sha256").update(content).digest("hex"),
    createdAt: "2026-01-02T00:00:00.000Z",
    lastProcessedAt: null,
    numberOfPages: null,
    status: "todo",
    processError: null,
    generation: 1,
    uploadedById: library.creatorId,
    uploadedByType: "User",
    uploadedFrom: library.workspace,
    chunks: 0,
    tokensProcessed: 0,
    embeddingModel: null,
    attributes: null,
    expiresAt: null,
    ...overrides,
  };
}

/** A document as the libraries table holds it: its `DOC#` item and the `HASH#` item naming it. */
export function documentItems(document: DocumentRecord): Record<string, unknown>[] {
  const pk = `ORG#${document.organization}#LIB#${document.libraryId}`;
  return [
    { pk, sk: `DOC#${document.id}`, ...document },
    { pk, sk: `HASH#${document.hash}`, documentId: document.id },
  ];
}

/** The document's items in the fake table: its `DOC#` item, or undefined once gone. */
export const documentIn = (fake: FakeTables, document: Pick<DocumentRecord, "organization" | "libraryId" | "id">) =>
  fake.items("libraries").find((row) => row.pk === `ORG#${document.organization}#LIB#${document.libraryId}` && row.sk === `DOC#${document.id}`);

/** The files bucket in memory for document objects: puts, gets (NoSuchKey when missing) and single deletes, by key. */
export function documentBucket(s3: AwsClientStub<S3Client>, initial: Record<string, string | Buffer> = {}): Map<string, Buffer> {
  const objects = new Map(Object.entries(initial).map(([key, body]) => [key, Buffer.from(body)]));
  s3.on(PutObjectCommand).callsFake((input: PutObjectCommandInput) => {
    objects.set(input.Key!, Buffer.from(input.Body as string | Buffer));
    return {};
  });
  s3.on(GetObjectCommand).callsFake((input: GetObjectCommandInput) => {
    const body = objects.get(input.Key!);
    if (!body) throw new NoSuchKey({ message: "The specified key does not exist.", $metadata: {} });
    return { Body: { transformToByteArray: async () => new Uint8Array(body), transformToString: async () => body.toString("utf8") } as never };
  });
  s3.on(DeleteObjectCommand).callsFake((input: DeleteObjectCommandInput) => {
    objects.delete(input.Key!);
    return {};
  });
  return objects;
}

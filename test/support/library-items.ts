import { randomUUID } from "node:crypto";
import { BatchWriteCommand, type BatchWriteCommandInput, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { AwsClientStub } from "aws-sdk-client-mock";
import type { Caller } from "../../shared/domain/caller.js";
import type { AccessRecord, AccessRole, EntityType, LibraryRecord } from "../../shared/domain/libraries/access.js";
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

import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { AwsClientStub } from "aws-sdk-client-mock";
import type { MembershipRecord, UserRecord, Workspace } from "../../shared/domain/identity/records.js";
import { serveTables, type FakeTables } from "./fake-table.js";

type Item = Record<string, unknown>;

/*
 * The tenancy table's identity items as shared/store/{tenancy,identity}.ts key them, and the table served
 * with writes and transactions (all or nothing, under the stores' conditions), for handler tests.
 */

export function aWorkspaceRecord(overrides: Partial<Workspace> = {}): Workspace {
  return {
    id: crypto.randomUUID(),
    organization: crypto.randomUUID(),
    name: "Product Team",
    isDefault: false,
    createdAt: "2025-01-01T00:00:00.000Z",
    updatedAt: "2025-01-01T00:00:00.000Z",
    description: "",
    icon: "",
    archivedAt: null,
    spendLimit: null,
    membersCount: 0,
    ...overrides,
  };
}

export const aWorkspaceItem = (ws: Workspace): Item => ({ pk: `ORG#${ws.organization}`, sk: `WS#${ws.id}`, ...ws });

export function aUserRecord(overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    id: crypto.randomUUID(),
    organization: crypto.randomUUID(),
    email: `${crypto.randomUUID()}@example.com`,
    firstName: "Ada",
    lastName: "Lovelace",
    organizationRoles: ["member"],
    createdAt: "2025-01-01T00:00:00.000Z",
    ...overrides,
  };
}

export const aUserItem = (user: UserRecord): Item => ({ pk: `ORG#${user.organization}`, sk: `USER#${user.id}`, ...user });

export const aMemberItem = (member: Omit<MembershipRecord, "addedAt" | "updatedAt"> & Partial<MembershipRecord>): Item => ({
  pk: `WS#${member.workspace}`,
  sk: `MEMBER#${member.user}`,
  gsi1pk: `USERWS#${member.user}`,
  gsi1sk: member.workspace,
  addedAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z",
  ...member,
});

/** The tenancy table in memory with writes, and TransactWriteCommand applied all or nothing (fake-table.ts). */
export function serveTenancyTable(dynamo: AwsClientStub<DynamoDBDocumentClient>, items: Item[]): FakeTables {
  return serveTables(dynamo, { tenancy: items }, { writes: true });
}

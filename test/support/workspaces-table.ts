import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { TransactWriteCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from "@aws-sdk/lib-dynamodb";
import type { AwsClientStub } from "aws-sdk-client-mock";
import type { MembershipRecord, UserRecord, Workspace } from "../../shared/domain/identity/records.js";
import { tables } from "../../shared/store/tables.js";
import { applyUpdate, holds, keyOf, serveTables, type FakeTables } from "./fake-table.js";

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

const tenancy = tables.find((t) => t.name === "tenancy")!;
const sameKey = (key: Item) => (item: Item) => Object.entries(keyOf(tenancy, key)).every(([k, v]) => item[k] === v);

/** The tenancy table in memory with writes, and TransactWriteCommand applied all or nothing. */
export function serveTenancyTable(dynamo: AwsClientStub<DynamoDBDocumentClient>, items: Item[]): FakeTables {
  const served = serveTables(dynamo, { tenancy: items }, { writes: true });
  dynamo.on(TransactWriteCommand).callsFake((input: TransactWriteCommandInput) => {
    const rows = served.items("tenancy");
    const staged = structuredClone(rows);
    for (const action of input.TransactItems ?? []) {
      const { Put, Update, Delete, ConditionCheck } = action;
      const op = (Put ?? Update ?? Delete ?? ConditionCheck)!;
      const key = Put ? (Put.Item as Item) : ((op as { Key: Item }).Key);
      const at = staged.findIndex(sameKey(key));
      const current = at >= 0 ? staged[at] : undefined;
      if (op.ConditionExpression && !holds(op.ConditionExpression, current, op.ExpressionAttributeNames ?? {}, op.ExpressionAttributeValues ?? {})) {
        throw new TransactionCanceledException({ message: "Transaction cancelled", $metadata: {} });
      }
      if (Put) {
        if (at >= 0) staged[at] = Put.Item as Item;
        else staged.push(Put.Item as Item);
      } else if (Delete) {
        if (at >= 0) staged.splice(at, 1);
      } else if (Update) {
        const item = current ?? { ...Update.Key };
        if (!current) staged.push(item);
        applyUpdate(item, Update as never);
      }
    }
    rows.splice(0, rows.length, ...staged);
    return {};
  });
  return served;
}

import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import type { MembershipRecord, ServiceAccountRecord, UserRecord, Workspace } from "../domain/identity/records.js";
import type { WorkspaceRoleName } from "../domain/identity/roles.js";
import { batchGetAll, documents, ifConditionHolds, ifTransactionHolds, setFields } from "./client.js";
import { queryAll } from "./query.js";
import { strip, tenancyStore } from "./tenancy.js";

const table = () => tableName("tenancy");

/*
 * Identity lives in the tenancy table beside organizations, workspaces and keys:
 *   users             pk ORG#<org>  sk USER#<id>        (+ pk EMAIL#<email> sk #EMAIL: one user per address)
 *   memberships       pk WS#<ws>    sk MEMBER#<user>    gsi1 USERWS#<user> / <ws>: a user's workspaces
 *   service accounts  pk ORG#<org>  sk SA#<id>          gsi1 WSSA#<ws> / <createdAt>#<id>: a workspace's accounts
 * A workspace's `membersCount` moves in the same transaction as the membership it counts.
 */
const userKey = (organization: string, id: string) => ({ pk: `ORG#${organization}`, sk: `USER#${id}` });
const emailKey = (email: string) => ({ pk: `EMAIL#${email.toLowerCase()}`, sk: "#EMAIL" });
const memberKey = (workspace: string, user: string) => ({ pk: `WS#${workspace}`, sk: `MEMBER#${user}` });
const workspaceKey = (organization: string, id: string) => ({ pk: `ORG#${organization}`, sk: `WS#${id}` });
const accountKey = (organization: string, id: string) => ({ pk: `ORG#${organization}`, sk: `SA#${id}` });

/** What the authorizer needs besides the key, read in one round trip. */
export interface PrincipalView {
  workspace?: Workspace;
  user?: UserRecord;
  membership?: MembershipRecord;
  serviceAccount?: ServiceAccountRecord;
}

export const identityStore = {
  /** False when the address is taken (in any organization). */
  async createUser(user: UserRecord): Promise<boolean> {
    const written = await ifTransactionHolds(
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: table(), Item: { ...emailKey(user.email), user: user.id, organization: user.organization }, ConditionExpression: "attribute_not_exists(pk)" } },
            { Put: { TableName: table(), Item: { ...userKey(user.organization, user.id), ...user }, ConditionExpression: "attribute_not_exists(pk)" } },
          ],
        }),
      ),
    );
    return written !== undefined;
  },

  async getUser(organization: string, id: string): Promise<UserRecord | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: userKey(organization, id) }));
    return out.Item ? strip<UserRecord>(out.Item) : undefined;
  },

  async listUsers(organization: string): Promise<UserRecord[]> {
    return queryAllOf<UserRecord>({ KeyConditionExpression: "pk = :p AND begins_with(sk, :s)", ExpressionAttributeValues: { ":p": `ORG#${organization}`, ":s": "USER#" } });
  },

  async getMembership(workspace: string, user: string): Promise<MembershipRecord | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: memberKey(workspace, user) }));
    return out.Item ? strip<MembershipRecord>(out.Item) : undefined;
  },

  async listMembers(workspace: string): Promise<MembershipRecord[]> {
    return queryAllOf<MembershipRecord>({ KeyConditionExpression: "pk = :p AND begins_with(sk, :s)", ExpressionAttributeValues: { ":p": `WS#${workspace}`, ":s": "MEMBER#" } });
  },

  /** The workspaces a user is a member of. */
  async listMembershipsOf(user: string): Promise<MembershipRecord[]> {
    return queryAllOf<MembershipRecord>({ IndexName: "gsi1", KeyConditionExpression: "gsi1pk = :p", ExpressionAttributeValues: { ":p": `USERWS#${user}` } });
  },

  /**
   * Adds the member, or with `replace` changes the roles of one already there; the workspace's count moves
   * only when a member is added. 'added' | 'updated' | 'unchanged' (already a member, no replace) | 'no-workspace'.
   */
  async putMembership(member: MembershipRecord, options: { replace: boolean }): Promise<"added" | "updated" | "unchanged" | "no-workspace"> {
    const item = { ...memberKey(member.workspace, member.user), gsi1pk: `USERWS#${member.user}`, gsi1sk: member.workspace, ...member };
    const added = await ifTransactionHolds(
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: table(), Item: item, ConditionExpression: "attribute_not_exists(pk)" } },
            {
              Update: {
                TableName: table(),
                Key: workspaceKey(member.organization, member.workspace),
                UpdateExpression: "ADD membersCount :one",
                ConditionExpression: "attribute_exists(pk)",
                ExpressionAttributeValues: { ":one": 1 },
              },
            },
          ],
        }),
      ),
    );
    if (added !== undefined) return "added";
    if (!(await tenancyStore.getWorkspace(member.organization, member.workspace, { consistent: true }))) return "no-workspace";
    if (!options.replace) return "unchanged";
    const updated = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: memberKey(member.workspace, member.user),
          UpdateExpression: "SET #roles = :roles, updatedAt = :at",
          ConditionExpression: "attribute_exists(pk)",
          ExpressionAttributeNames: { "#roles": "roles" },
          ExpressionAttributeValues: { ":roles": member.roles, ":at": member.updatedAt },
        }),
      ),
    );
    // Removed between the two writes: add it again.
    return updated !== undefined ? "updated" : this.putMembership(member, options);
  },

  /**
   * Removes the member unless it is the workspace's last admin (`workspace_admin`); the count moves with it.
   * 'removed' | 'not-member' | 'last-admin'.
   */
  async removeMembership(organization: string, workspace: string, user: string): Promise<"removed" | "not-member" | "last-admin"> {
    const member = await this.getMembership(workspace, user);
    if (!member) return "not-member";
    if (member.roles.includes("workspace_admin")) {
      const admins = (await this.listMembers(workspace)).filter((m) => m.roles.includes("workspace_admin"));
      if (admins.length <= 1) return "last-admin";
    }
    const removed = await ifTransactionHolds(
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: table(),
                Key: memberKey(workspace, user),
                // Only the membership as read: a concurrent role change makes us read again.
                ConditionExpression: "updatedAt = :at",
                ExpressionAttributeValues: { ":at": member.updatedAt },
              },
            },
            { Update: { TableName: table(), Key: workspaceKey(organization, workspace), UpdateExpression: "ADD membersCount :minus", ExpressionAttributeValues: { ":minus": -1 } } },
          ],
        }),
      ),
    );
    return removed !== undefined ? "removed" : this.removeMembership(organization, workspace, user);
  },


  async putServiceAccount(account: ServiceAccountRecord): Promise<void> {
    await documents.send(
      new PutCommand({
        TableName: table(),
        Item: { ...accountKey(account.organization, account.id), gsi1pk: `WSSA#${account.workspace}`, gsi1sk: `${account.createdAt}#${account.id}`, ...account },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    );
  },

  async getServiceAccount(organization: string, id: string): Promise<ServiceAccountRecord | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: accountKey(organization, id) }));
    return out.Item ? strip<ServiceAccountRecord>(out.Item) : undefined;
  },

  /** The organization's accounts, or one workspace's, oldest first. */
  async listServiceAccounts(organization: string, workspace?: string): Promise<ServiceAccountRecord[]> {
    const items = workspace
      ? await queryAllOf<ServiceAccountRecord>({ IndexName: "gsi1", KeyConditionExpression: "gsi1pk = :p", ExpressionAttributeValues: { ":p": `WSSA#${workspace}` } })
      : await queryAllOf<ServiceAccountRecord>({ KeyConditionExpression: "pk = :p AND begins_with(sk, :s)", ExpressionAttributeValues: { ":p": `ORG#${organization}`, ":s": "SA#" } });
    return items.filter((a) => a.organization === organization).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  },

  /** Changes a live (not deleted) account; undefined when there is none. */
  async updateServiceAccount(
    organization: string,
    id: string,
    fields: { description?: string | null; roles?: WorkspaceRoleName[]; deletedAt?: string; updatedAt: string },
  ): Promise<ServiceAccountRecord | undefined> {
    const set = setFields(fields);
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: accountKey(organization, id),
          ...set,
          ConditionExpression: "attribute_exists(pk) AND deletedAt = :null",
          ExpressionAttributeValues: { ...set.ExpressionAttributeValues, ":null": null },
          ReturnValues: "ALL_NEW",
        }),
      ),
    );
    return out?.Attributes ? strip<ServiceAccountRecord>(out.Attributes) : undefined;
  },

  /** The workspace and the principal's records a key stands on, in one BatchGet (retried for unprocessed keys). */
  async principalView(organization: string, workspace: string, principal: string, type: "user" | "service_account"): Promise<PrincipalView> {
    const keys = [workspaceKey(organization, workspace), ...(type === "user" ? [userKey(organization, principal), memberKey(workspace, principal)] : [accountKey(organization, principal)])];
    const items = await batchGetAll(table(), keys);
    const find = (key: { pk: string; sk: string }) => items.find((i) => i.pk === key.pk && i.sk === key.sk);
    const view: PrincipalView = {};
    const ws = find(workspaceKey(organization, workspace));
    if (ws) view.workspace = strip<Workspace>(ws);
    if (type === "user") {
      const user = find(userKey(organization, principal));
      const member = find(memberKey(workspace, principal));
      if (user) view.user = strip<UserRecord>(user);
      if (member) view.membership = strip<MembershipRecord>(member);
    } else {
      const account = find(accountKey(organization, principal));
      if (account) view.serviceAccount = strip<ServiceAccountRecord>(account);
    }
    return view;
  },
};

async function queryAllOf<T>(input: Omit<QueryCommandInput, "TableName">): Promise<T[]> {
  return (await queryAll({ TableName: table(), ...input })).map((i) => strip<T>(i));
}

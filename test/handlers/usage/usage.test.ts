import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler as report } from "../../../functions/usage/report.js";
import { handler as setLimit } from "../../../functions/usage/set-spend-limit.js";
import { handler as spend } from "../../../functions/usage/spend.js";
import { freezeDate, mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke } from "../../support/builders.js";

const dynamo = mockDynamo({ resolves: {} });
freezeDate("2026-11-23T12:00:00.000Z");

const member = aCaller({ roles: ["workspace_admin"] });
const admin = aCaller({ admin: true, roles: ["organization_admin"] });
const dayItem = (day: string, model: string, keyId: string, requests: number, costMicros: number) => ({
  workspace: member.workspace,
  sk: `DAY#${day}#${model}#${keyId}`,
  day,
  model,
  keyId,
  requests,
  promptTokens: requests * 10,
  completionTokens: requests * 5,
  costMicros,
});

describe("GET /v1/usage", () => {
  it("reads the day totals of the month so far and groups them by day and model", async () => {
    dynamo.on(QueryCommand).resolves({
      Items: [dayItem("2026-11-02", "mistral-small-latest", "k1", 2, 500_000), dayItem("2026-11-02", "mistral-small-latest", "k2", 1, 250_000), dayItem("2026-11-03", "codestral-latest", "k1", 4, 1_000_000)],
    });

    const response = await invoke(report, anEvent({ path: "/v1/usage", caller: member }));

    expect(response.statusCode).toBe(200);
    expect(dynamo.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({
      TableName: "platform-usage",
      KeyConditionExpression: "workspace = :w AND sk BETWEEN :from AND :to",
      ExpressionAttributeValues: { ":w": member.workspace, ":from": "DAY#2026-11-01", ":to": "DAY#2026-11-23#\uffff" },
    });
    expect(response.json.data).toStrictEqual([
      { day: "2026-11-02", model: "mistral-small-latest", key_id: null, requests: 3, prompt_tokens: 30, completion_tokens: 15, cost: 0.75 },
      { day: "2026-11-03", model: "codestral-latest", key_id: null, requests: 4, prompt_tokens: 40, completion_tokens: 20, cost: 1 },
    ]);
    expect(response.json.total).toStrictEqual({ requests: 7, prompt_tokens: 70, completion_tokens: 35, cost: 1.75 });
  });

  it("refuses an unknown grouping and a range over 366 days with 422, and a caller without usage:read with 403", async () => {
    expect((await invoke(report, anEvent({ path: "/v1/usage", query: { group_by: "colour" }, caller: member }))).statusCode).toBe(422);
    expect((await invoke(report, anEvent({ path: "/v1/usage", query: { from: "2024-01-01", to: "2026-01-01" }, caller: member }))).statusCode).toBe(422);
    expect((await invoke(report, anEvent({ path: "/v1/usage", caller: aCaller({ roles: ["workspace_contributor"] }) }))).statusCode).toBe(403);
  });
});

describe("GET /v1/usage/spend", () => {
  it("answers the month's spend against the workspace's limit", async () => {
    dynamo.on(GetCommand, { TableName: "platform-usage" }).resolves({ Item: { spentMicros: 2_500_000 } });
    dynamo.on(GetCommand, { TableName: "platform-tenancy" }).resolves({ Item: { id: member.workspace, spendLimit: { value: 2.5, currency: "USD", noMonthlyLimit: false } } });

    const response = await invoke(spend, anEvent({ path: "/v1/usage/spend", caller: member }));

    expect(response.json).toStrictEqual({
      object: "spend",
      workspace_id: member.workspace,
      month: "2026-11",
      spent: 2.5,
      currency: "USD",
      spend_limit: { value: 2.5, currency: "USD", no_monthly_limit: false },
      limit_reached: true,
      soft_limit: null,
      soft_limit_reached: false,
    });
    expect(dynamo.commandCalls(GetCommand).map((c) => c.args[0].input.Key)).toContainEqual({ workspace: member.workspace, sk: "MONTH#2026-11" });
  });
});

describe("PUT /v1/usage/spend-limit", () => {
  it("sets the limit on the workspace record of the caller's organization, and records the change with the limit before", async () => {
    dynamo.on(GetCommand).resolves({ Item: { pk: `ORG#${admin.organization}`, sk: `WS#${admin.workspace}`, id: admin.workspace, spendLimit: null } });
    dynamo.on(UpdateCommand).resolves({ Attributes: { id: member.workspace, spendLimit: { value: 10, currency: "USD", noMonthlyLimit: false } } });

    const response = await invoke(setLimit, aJsonEvent({ value: 10 }, { method: "PUT", path: "/v1/usage/spend-limit", caller: admin }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ value: 10, currency: "USD", no_monthly_limit: false, soft_limit: null });
    expect(dynamo.commandCalls(UpdateCommand)[0]!.args[0].input).toMatchObject({
      TableName: "platform-tenancy",
      Key: { pk: `ORG#${admin.organization}`, sk: `WS#${admin.workspace}` },
      ConditionExpression: "attribute_exists(pk)",
    });
    const audit = dynamo.commandCalls(PutCommand).map((c) => c.args[0].input).filter((input) => input.TableName === process.env.TABLE_AUDIT);
    expect(audit.map((input) => input.Item)).toMatchObject([
      { operation: "spend-limit.set", workspace: admin.workspace, actor: { keyId: admin.keyId }, before: { spend_limit: null, soft_limit: null }, after: { spend_limit: { value: 10, currency: "USD", no_monthly_limit: false }, soft_limit: null } },
    ]);
  });

  it("answers 404 when the workspace is not the organization's, and 403 to a key that is not an admin's", async () => {
    expect((await invoke(setLimit, aJsonEvent({ value: 10 }, { method: "PUT", path: "/v1/usage/spend-limit", caller: admin }))).statusCode).toBe(404);
    expect((await invoke(setLimit, aJsonEvent({ value: 10 }, { method: "PUT", path: "/v1/usage/spend-limit", caller: member }))).statusCode).toBe(403);
    // The workspace is read first (the limit before): an unknown one changes nothing and records nothing.
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(dynamo.commandCalls(PutCommand)).toHaveLength(0);
  });

  it("refuses a negative value and a value with no_monthly_limit with 422", async () => {
    for (const body of [{ value: -1 }, { value: 3, no_monthly_limit: true }]) {
      expect((await invoke(setLimit, aJsonEvent(body, { method: "PUT", path: "/v1/usage/spend-limit", caller: admin }))).statusCode).toBe(422);
    }
  });
});

import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/prompts/update-version.js";
import type { RegistryHead } from "../../../shared/domain/registry/records.js";
import { freezeDate, mockDynamo, withoutRetryBackoff } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { aHeadItem, REGISTRY_TABLE, aServedEntry } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();
const NOW = freezeDate("2026-03-01T12:00:00.000Z");
withoutRetryBackoff();

const updateVersion = (id: string, version: string, body: unknown, who: ReturnType<typeof aCaller> | null = caller) =>
  aJsonEvent(body, {
    method: "PATCH",
    path: `/v2/prompts/${id}/versions/${version}`,
    resource: "/v2/prompts/{prompt_id}/versions/{version}",
    pathParameters: { prompt_id: id, version },
    caller: who,
  });

/** Versions 1..3: `prod` and `old` on 1, `beta` on 2. */
function stored(overrides: Partial<RegistryHead> = {}) {
  return aServedEntry(dynamo, caller, { latestVersion: 3, revision: 5, aliases: { prod: 1, old: 1, beta: 2 }, ...overrides });
}

const transactions = () => dynamo.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems!);

describe("PATCH /v2/prompts/{prompt_id}/versions/{version}", () => {
  it("answers 200 JSON with the Prompt at that version as written", async () => {
    const { head } = stored();

    const response = await invoke(handler, updateVersion(head.id, "2", { aliases: { values: ["beta", "prod"] } }));

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.json).toMatchObject({ id: head.id, version: 2, latestVersion: 3, aliases: ["beta", "prod"], updatedAt: NOW });
  });

  it("moves listed aliases here and removes unlisted ones from here, on the head, conditioned on its revision", async () => {
    const { head } = stored();

    await invoke(handler, updateVersion(head.id, "1", { aliases: { values: ["prod", "beta"] } }));

    expect(transactions()).toHaveLength(1);
    expect(transactions()[0]).toStrictEqual([
      {
        Update: {
          TableName: REGISTRY_TABLE,
          Key: { pk: `prompt#${caller.workspace}`, sk: `HEAD#${head.id}` },
          UpdateExpression: "SET #revision = :revision, #updatedAt = :updatedAt, #modifiedKey = :modifiedKey, #aliases.#a0 = :a0 REMOVE #aliases.#r0",
          ConditionExpression: "#revision = :seen",
          ExpressionAttributeNames: {
            "#revision": "revision",
            "#updatedAt": "updatedAt",
            "#modifiedKey": "modifiedKey",
            "#aliases": "aliases",
            "#a0": "beta",
            "#r0": "old",
          },
          ExpressionAttributeValues: { ":seen": 5, ":revision": 6, ":updatedAt": NOW, ":modifiedKey": `${NOW}#${head.id}`, ":a0": 1 },
        },
      },
    ]);
  });

  it("sets the notes on the version item in the same transaction, only if it exists", async () => {
    const { head } = stored();

    const response = await invoke(handler, updateVersion(head.id, "2", { notes: "reviewed" }));

    const [headUpdate, notes] = transactions()[0]!;
    expect(headUpdate!.Update!.ConditionExpression).toBe("#revision = :seen");
    expect(notes!.Update).toStrictEqual({
      TableName: REGISTRY_TABLE,
      Key: { pk: `prompt#${caller.workspace}#${head.id}`, sk: "V#0000000002" },
      UpdateExpression: "SET #notes = :notes",
      ConditionExpression: "attribute_exists(sk)",
      ExpressionAttributeNames: { "#notes": "notes" },
      ExpressionAttributeValues: { ":notes": "reviewed" },
    });
    expect(response.statusCode).toBe(200);
  });

  it("removes notes sent as null", async () => {
    const { head } = stored();

    await invoke(handler, updateVersion(head.id, "2", { notes: null }));

    expect(transactions()[0]![1]!.Update).toMatchObject({ UpdateExpression: "REMOVE #notes" });
    expect(transactions()[0]![1]!.Update).not.toHaveProperty("ExpressionAttributeValues");
  });

  it("clears the aliases of the version for {values: []} and for {}", async () => {
    const { head } = stored();

    await invoke(handler, updateVersion(head.id, "1", { aliases: { values: [] } }));
    await invoke(handler, updateVersion(head.id, "1", { aliases: {} }));

    for (const [update] of transactions()) expect(update!.Update!.UpdateExpression).toMatch(/REMOVE #aliases\.#r0, #aliases\.#r1$/);
  });

  it("writes nothing when nothing changes", async () => {
    const { head } = stored();

    for (const body of [{}, { aliases: { values: ["beta"] } }]) {
      const response = await invoke(handler, updateVersion(head.id, "2", body));
      expect(response.statusCode).toBe(200);
    }
    expect(transactions()).toHaveLength(0);
  });

  it("recomputes the alias moves from a fresh read after a lost race", async () => {
    const { head, items } = stored();
    dynamo.on(TransactWriteCommand).callsFakeOnce(() => {
      items[0] = aHeadItem({ ...head, revision: 6, aliases: { prod: 1, old: 1, beta: 3 } });
      throw new TransactionCanceledException({ message: "x", $metadata: {}, CancellationReasons: [{ Code: "ConditionalCheckFailed" }] });
    });

    await invoke(handler, updateVersion(head.id, "3", { aliases: { values: ["prod"] } }));

    const retry = transactions()[1]![0]!.Update!;
    expect(retry.ExpressionAttributeValues).toMatchObject({ ":seen": 6, ":a0": 3 });
    expect(retry.ExpressionAttributeNames).toMatchObject({ "#a0": "prod", "#r0": "beta" });
  });

  it("answers 404 for a version past the latest, writing nothing", async () => {
    const { head } = stored();

    const response = await invoke(handler, updateVersion(head.id, "4", { notes: "x" }));

    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("prompt_version_not_found");
    expect(transactions()).toHaveLength(0);
  });

  it("answers 403 to a member on a prompt shared as reader", async () => {
    const { head } = stored({ owner: "creator", sharingScope: "workspace", workspaceRelation: "reader" });

    expect((await invoke(handler, updateVersion(head.id, "1", { notes: "x" }))).statusCode).toBe(403);
  });

  it("answers 422 for aliases as a plain list, an alias that is not a label, or other properties", async () => {
    for (const [body, loc] of [
      [{ aliases: ["prod"] }, ["body", "aliases"]],
      [{ aliases: { values: ["a b"] } }, ["body", "aliases", "values", 0]],
      [{ aliases: { values: [], extra: 1 } }, ["body", "aliases", "extra"]],
      [{ definition: { content: "x" } }, ["body", "definition"]],
    ] as const) {
      const response = await invoke(handler, updateVersion("any", "1", body));
      expect(response.statusCode, JSON.stringify(body)).toBe(422);
      expect(response.json.detail[0].loc).toStrictEqual(loc);
    }
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, updateVersion("any", "1", {}, null))).statusCode).toBe(401);
  });
});

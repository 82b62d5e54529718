import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/prompts/create-version.js";
import { MAX_WRITE_ATTEMPTS } from "../../../shared/services/registry/registry.js";
import type { RegistryHead } from "../../../shared/domain/registry/records.js";
import { freezeDate, mockDynamo, withoutRetryBackoff } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { aHeadItem, aRegistryHead, anEntry, REGISTRY_TABLE, serveRegistry, aServedEntry } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();
const NOW = freezeDate("2026-03-01T12:00:00.000Z");
withoutRetryBackoff();

const createVersion = (id: string, body: unknown, who: ReturnType<typeof aCaller> | null = caller) =>
  aJsonEvent(body, { path: `/v2/prompts/${id}/versions`, resource: "/v2/prompts/{prompt_id}/versions", pathParameters: { prompt_id: id }, caller: who });

function stored(overrides: Partial<RegistryHead> = {}) {
  return aServedEntry(dynamo, caller, { latestVersion: 2, revision: 9, aliases: { prod: 1 }, ...overrides });
}

const transactions = () => dynamo.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems!);
const canceled = () =>
  new TransactionCanceledException({ message: "canceled", $metadata: {}, CancellationReasons: [{ Code: "ConditionalCheckFailed" }, { Code: "None" }] });

describe("POST /v2/prompts/{prompt_id}/versions", () => {
  it("answers 200 JSON {version, deduplicated: false}", async () => {
    const { head } = stored();

    const response = await invoke(handler, createVersion(head.id, { definition: { content: "v3 {{x}}" } }));

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.json).toStrictEqual({ version: 3, deduplicated: false });
  });

  it("moves latestVersion and the named aliases on the head and puts the version, in one transaction conditioned on the revision", async () => {
    const { head } = stored();

    await invoke(handler, createVersion(head.id, { definition: { content: "v3 {{x}}" }, notes: "third", aliases: ["prod", "canary", "prod"] }));

    expect(transactions()).toHaveLength(1);
    const [update, put] = transactions()[0]!;
    expect(update!.Update).toStrictEqual({
      TableName: REGISTRY_TABLE,
      Key: { pk: `prompt#${caller.workspace}`, sk: `HEAD#${head.id}` },
      UpdateExpression:
        "SET #revision = :revision, #updatedAt = :updatedAt, #modifiedKey = :modifiedKey, #latestVersion = :latestVersion, #latestHash = :latestHash, #aliases.#a0 = :a0, #aliases.#a1 = :a1",
      ConditionExpression: "#revision = :seen",
      ExpressionAttributeNames: {
        "#revision": "revision",
        "#updatedAt": "updatedAt",
        "#modifiedKey": "modifiedKey",
        "#latestVersion": "latestVersion",
        "#latestHash": "latestHash",
        "#aliases": "aliases",
        "#a0": "prod",
        "#a1": "canary",
      },
      ExpressionAttributeValues: {
        ":seen": 9,
        ":revision": 10,
        ":updatedAt": NOW,
        ":modifiedKey": `${NOW}#${head.id}`,
        ":latestVersion": 3,
        ":latestHash": expect.any(String),
        ":a0": 3,
        ":a1": 3,
      },
    });
    expect(put!.Put).toStrictEqual({
      TableName: REGISTRY_TABLE,
      ConditionExpression: "attribute_not_exists(sk)",
      Item: {
        pk: `prompt#${caller.workspace}#${head.id}`,
        sk: "V#0000000003",
        id: head.id,
        version: 3,
        definition: { content: "v3 {{x}}", variables: [{ name: "x" }] },
        notes: "third",
        createdAt: NOW,
        createdBy: caller.principal,
        hash: update!.Update!.ExpressionAttributeValues![":latestHash"],
      },
    });
  });

  it("on a lost race reads the head again and takes the next free number", async () => {
    const { head, items } = stored();
    dynamo.on(TransactWriteCommand).callsFakeOnce(() => {
      // Another writer committed version 3 meanwhile.
      items[0] = aHeadItem({ ...head, latestVersion: 3, revision: 10, latestHash: "other" });
      throw canceled();
    });

    const response = await invoke(handler, createVersion(head.id, { definition: { content: "mine" } }));

    expect(response.json).toStrictEqual({ version: 4, deduplicated: false });
    const [, retry] = transactions();
    expect(retry![0]!.Update!.ExpressionAttributeValues).toMatchObject({ ":seen": 10, ":revision": 11, ":latestVersion": 4 });
    expect(retry![1]!.Put!.Item).toMatchObject({ sk: "V#0000000004", version: 4 });
  });

  it(`answers 409 after ${MAX_WRITE_ATTEMPTS} lost races`, async () => {
    const { head } = stored();
    dynamo.on(TransactWriteCommand).rejects(canceled());

    const response = await invoke(handler, createVersion(head.id, { definition: { content: "mine" } }));

    expect(response.statusCode).toBe(409);
    expect(response.json).toMatchObject({ object: "error", type: "conflict_error", code: "prompt_write_conflict" });
    expect(transactions()).toHaveLength(MAX_WRITE_ATTEMPTS);
  });

  it("lets other transaction failures through as a 500", async () => {
    const { head } = stored();
    dynamo.on(TransactWriteCommand).rejects(new TransactionCanceledException({ message: "x", $metadata: {}, CancellationReasons: [{ Code: "ValidationError" }] }));

    const response = await invoke(handler, createVersion(head.id, { definition: { content: "mine" } }));

    expect(response.statusCode).toBe(500);
    expect(transactions()).toHaveLength(1);
  });

  it("deduplicates the latest definition and notes: no new version, only the aliases move", async () => {
    const { head, items } = stored();
    await invoke(handler, createVersion(head.id, { definition: { content: "same" }, notes: "n" }));
    const hash = transactions()[0]![0]!.Update!.ExpressionAttributeValues![":latestHash"] as string;
    items[0] = aHeadItem({ ...head, latestHash: hash });
    dynamo.resetHistory();

    const response = await invoke(handler, createVersion(head.id, { definition: { content: "same" }, notes: "n", aliases: ["prod", "new"] }));

    expect(response.json).toStrictEqual({ version: 2, deduplicated: true });
    expect(transactions()).toHaveLength(0);
    const [update] = dynamo.commandCalls(UpdateCommand);
    expect(update!.args[0].input.ExpressionAttributeValues).toMatchObject({ ":a0": 2, ":a1": 2 });
    expect(update!.args[0].input.ExpressionAttributeNames).toMatchObject({ "#a0": "prod", "#a1": "new" });
  });

  it("answers 403 to a workspace member on a prompt shared as reader, 404 on a private one", async () => {
    const { head } = stored({ owner: "creator", sharingScope: "workspace", workspaceRelation: "reader" });
    const other = anEntry(aRegistryHead({ workspace: caller.workspace, owner: "creator" }));
    serveRegistry(dynamo, [aHeadItem(head), ...other.items]);

    expect((await invoke(handler, createVersion(head.id, { definition: { content: "x" } }))).statusCode).toBe(403);
    expect((await invoke(handler, createVersion(other.head.id, { definition: { content: "x" } }))).statusCode).toBe(404);
    expect(transactions()).toHaveLength(0);
  });

  it("answers 422 for a missing definition, unknown properties or mismatched variables", async () => {
    for (const [body, loc] of [
      [{ notes: "x" }, ["body", "definition"]],
      [{ definition: { content: "x" }, title: "t" }, ["body", "title"]],
      [{ definition: { content: "{{a}}", variables: [] } }, ["body", "definition", "variables"]],
    ] as const) {
      const response = await invoke(handler, createVersion("any", body));
      expect(response.statusCode, JSON.stringify(body)).toBe(422);
      expect(response.json.detail[0].loc).toStrictEqual(loc);
    }
    expect(dynamo.calls()).toHaveLength(0);
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, createVersion("any", { definition: { content: "x" } }, null))).statusCode).toBe(401);
  });
});

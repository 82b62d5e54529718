import { BatchWriteCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { LOCAL_CATALOG, readCatalog } from "../../../../infra/catalog.js";
import { seed } from "../../../../shared/services/models/catalog.js";
import { mockDynamo } from "../../../support/aws-mocks.js";

const dynamo = mockDynamo();
const catalog = readCatalog(LOCAL_CATALOG);

/** The base items a seed wrote, by sort key. */
const written = () =>
  Object.fromEntries(
    dynamo
      .commandCalls(BatchWriteCommand)
      .flatMap((call) => Object.values(call.args[0].input.RequestItems ?? {}).flat())
      .flatMap((request) => (request.PutRequest?.Item ? [request.PutRequest.Item] : []))
      .map((item) => [item.sk as string, item]),
  );

describe("re-seeding the catalog of an existing deployment (the tokenizer correction's migration)", () => {
  it("rewrites the stored base models' tokenizer to the catalog's, and writes the same again when run twice", async () => {
    // The table as the catalog before the correction left it: SentencePiece v3 for Small, Large and Codestral.
    const before = catalog.models.map((m) => ({
      scope: "BASE",
      sk: `MODEL#${m.id}`,
      ...m,
      tokenizer: ["mistral-small-latest", "mistral-large-latest", "codestral-latest"].includes(m.id) ? "v3" : m.tokenizer,
    }));
    dynamo.on(QueryCommand).resolves({ Items: before });
    dynamo.on(BatchWriteCommand).resolves({});

    await seed(catalog);
    const first = written();
    dynamo.resetHistory();
    dynamo.on(QueryCommand).resolves({ Items: Object.values(first) });
    await seed(catalog);
    const second = written();

    for (const id of ["mistral-small-latest", "mistral-large-latest", "codestral-latest"]) expect(first[`MODEL#${id}`], id).toMatchObject({ scope: "BASE", tokenizer: "tekken" });
    expect(Object.keys(first).filter((sk) => sk.startsWith("MODEL#"))).toHaveLength(catalog.models.length);
    const withoutTime = (items: Record<string, Record<string, unknown>>) => Object.fromEntries(Object.entries(items).map(([sk, { created: _, ...item }]) => [sk, item]));
    expect(withoutTime(second)).toStrictEqual(withoutTime(first));
    expect(dynamo.commandCalls(BatchWriteCommand).flatMap((call) => Object.values(call.args[0].input.RequestItems ?? {}).flat()).some((r) => r.DeleteRequest)).toBe(false);
  });
});

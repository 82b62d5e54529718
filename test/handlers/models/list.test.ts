import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/models/list.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aFineTunedModelEntry, aModelEntry, aModelItem, anAliasItem, anEvent, invoke, serveModelsTable } from "../../support/builders.js";

const dynamo = mockDynamo({ resolves: {} });

const caller = aCaller();
const list = (query: Record<string, string> = {}, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({ path: "/v1/models", resource: "/v1/models", query, caller: who });

describe("GET /v1/models", () => {
  it("answers 200 JSON with a list object", async () => {
    serveModelsTable(dynamo, [aModelItem(aModelEntry({ id: "mistral-small-latest" }))]);
    const event = list();

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json.object).toBe("list");
    expect(response.json.data.map((m: { id: string }) => m.id)).toStrictEqual(["mistral-small-latest"]);
  });

  it("shows a base model as a card with both type spellings and every capability flag", async () => {
    const model = aModelEntry({
      id: "codestral-latest",
      aliases: ["codestral-2405"],
      endpoints: ["chat", "fim"],
      capabilities: { function_calling: false, vision: false, fine_tuning: true, classification: false },
      maxContextLength: 32768,
      ownedBy: "offline",
      created: 1_700_000_123,
      name: "Offline echo",
      description: "Echoes",
      defaultTemperature: 0.3,
    });
    serveModelsTable(dynamo, [aModelItem(model)]);

    const response = await invoke(handler, list());

    expect(response.json.data[0]).toStrictEqual({
      id: "codestral-latest",
      object: "model",
      created: 1_700_000_123,
      owned_by: "offline",
      name: "Offline echo",
      description: "Echoes",
      max_context_length: 32768,
      aliases: ["codestral-2405"],
      deprecation: null,
      deprecation_replacement_model: null,
      default_model_temperature: 0.3,
      capabilities: {
        completion_chat: true,
        completion_fim: true,
        function_calling: false,
        fine_tuning: true,
        vision: false,
        ocr: false,
        classification: false,
        reasoning: false,
        audio: false,
        moderation: false,
        audio_transcription: false,
        audio_transcription_realtime: false,
        audio_speech: false,
      },
      type: "base",
      TYPE: "base",
      archived: false,
      root: null,
      job: null,
    });
  });

  it("shows the caller's fine-tuned model with its root and job", async () => {
    const tuned = aFineTunedModelEntry({ workspace: caller.workspace, root: "mistral-small-latest" });
    serveModelsTable(dynamo, [aModelItem(tuned)]);

    const response = await invoke(handler, list());

    expect(response.json.data).toHaveLength(1);
    expect(response.json.data[0]).toMatchObject({ id: tuned.id, type: "fine-tuned", TYPE: "fine-tuned", root: "mistral-small-latest", job: tuned.job, owned_by: caller.workspace });
  });

  it("lists base models first, then fine-tuned ones, each sorted by id", async () => {
    const tunedB = aFineTunedModelEntry({ workspace: caller.workspace, id: "ft:b" });
    const tunedA = aFineTunedModelEntry({ workspace: caller.workspace, id: "ft:a" });
    serveModelsTable(dynamo, [
      aModelItem(aModelEntry({ id: "mistral-small-latest" })),
      aModelItem(aModelEntry({ id: "codestral-latest" })),
      aModelItem(tunedB),
      aModelItem(tunedA),
    ]);

    const response = await invoke(handler, list());

    expect(response.json.data.map((m: { id: string }) => m.id)).toStrictEqual(["codestral-latest", "mistral-small-latest", "ft:a", "ft:b"]);
  });

  it("lists each model once, not its alias items", async () => {
    serveModelsTable(dynamo, [aModelItem(aModelEntry({ id: "mistral-small-latest", aliases: ["mistral-small"] })), anAliasItem("mistral-small", "mistral-small-latest")]);

    const response = await invoke(handler, list());

    expect(response.json.data.map((m: { id: string }) => m.id)).toStrictEqual(["mistral-small-latest"]);
  });

  it("leaves out another workspace's fine-tuned models", async () => {
    serveModelsTable(dynamo, [aModelItem(aModelEntry({ id: "mistral-small-latest" })), aModelItem(aFineTunedModelEntry())]);

    const response = await invoke(handler, list());

    expect(response.json.data.map((m: { id: string }) => m.id)).toStrictEqual(["mistral-small-latest"]);
  });

  it("queries the base scope and the caller's workspace scope for model items, never scanning", async () => {
    serveModelsTable(dynamo, []);

    await invoke(handler, list());

    const queries = dynamo.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(queries.map((q) => [q.TableName, q.KeyConditionExpression, q.ExpressionAttributeValues])).toStrictEqual([
      ["platform-models", "#scope = :scope AND begins_with(sk, :prefix)", { ":scope": "BASE", ":prefix": "MODEL#" }],
      ["platform-models", "#scope = :scope AND begins_with(sk, :prefix)", { ":scope": `WS#${caller.workspace}`, ":prefix": "MODEL#" }],
    ]);
  });

  it("follows the query's pages to the end", async () => {
    const first = aModelEntry({ id: "a-model" });
    const second = aModelEntry({ id: "b-model" });
    dynamo
      .on(QueryCommand, { ExpressionAttributeValues: { ":scope": "BASE", ":prefix": "MODEL#" } })
      .resolvesOnce({ Items: [aModelItem(first)], LastEvaluatedKey: { scope: "BASE", sk: `MODEL#${first.id}` } })
      .resolvesOnce({ Items: [aModelItem(second)] });

    const response = await invoke(handler, list());

    expect(response.json.data.map((m: { id: string }) => m.id)).toStrictEqual(["a-model", "b-model"]);
    const baseQueries = dynamo.commandCalls(QueryCommand).filter((c) => c.args[0].input.ExpressionAttributeValues?.[":scope"] === "BASE");
    expect(baseQueries[1]!.args[0].input.ExclusiveStartKey).toStrictEqual({ scope: "BASE", sk: "MODEL#a-model" });
  });

  it("filters by provider", async () => {
    serveModelsTable(dynamo, [aModelItem(aModelEntry({ id: "on-bedrock", provider: "bedrock", ownedBy: "mistralai" })), aModelItem(aModelEntry({ id: "offline-one" }))]);

    const response = await invoke(handler, list({ provider: "bedrock" }));

    expect(response.json.data.map((m: { id: string }) => m.id)).toStrictEqual(["on-bedrock"]);
  });

  it("filters by a model's alias", async () => {
    serveModelsTable(dynamo, [aModelItem(aModelEntry({ id: "mistral-small-latest", aliases: ["mistral-small"] })), aModelItem(aModelEntry({ id: "mistral-large-latest" }))]);

    const response = await invoke(handler, list({ model: "mistral-small" }));

    expect(response.json.data.map((m: { id: string }) => m.id)).toStrictEqual(["mistral-small-latest"]);
  });

  it("answers 401 without the authorizer context", async () => {
    const response = await invoke(handler, list({}, null));

    expect(response.statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

import { BatchGetCommand, GetCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/models/retrieve.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aFineTunedModelEntry, aModelEntry, aModelItem, anAliasItem, anEvent, invoke, serveModelsTable } from "../../support/builders.js";
import { aPlatformError } from "../../support/errors.js";

const dynamo = mockDynamo({ resolves: {} });

const caller = aCaller();
const retrieve = (modelId: string, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({ path: `/v1/models/${modelId}`, resource: "/v1/models/{model_id}", pathParameters: { model_id: modelId }, caller: who });

const small = aModelEntry({ id: "mistral-small-latest", aliases: ["mistral-small"], endpoints: ["chat"], name: "Small" });

describe("GET /v1/models/{model_id}", () => {
  it("retries the keys DynamoDB leaves unprocessed instead of answering 404", async () => {
    const table = process.env.TABLE_MODELS!;
    dynamo
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { [table]: [] }, UnprocessedKeys: { [table]: { Keys: [{ scope: "BASE", sk: "MODEL#mistral-small-latest" }] } } })
      .resolvesOnce({ Responses: { [table]: [aModelItem(small)] } });

    const response = await invoke(handler, retrieve("mistral-small-latest"));

    expect(response.statusCode).toBe(200);
    expect(response.json.id).toBe("mistral-small-latest");
    expect(dynamo.commandCalls(BatchGetCommand)[1]!.args[0].input.RequestItems![table]!.Keys).toEqual([{ scope: "BASE", sk: "MODEL#mistral-small-latest" }]);
  });

  it("answers 200 JSON with the base model's card", async () => {
    serveModelsTable(dynamo, [aModelItem(small)]);
    const event = retrieve("mistral-small-latest");

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({
      id: "mistral-small-latest",
      object: "model",
      created: small.created,
      owned_by: "offline",
      name: "Small",
      description: null,
      max_context_length: 32768,
      aliases: ["mistral-small"],
      deprecation: null,
      deprecation_replacement_model: null,
      default_model_temperature: null,
      capabilities: {
        completion_chat: true,
        completion_fim: false,
        function_calling: true,
        fine_tuning: false,
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

  it("resolves an alias to the model it names", async () => {
    serveModelsTable(dynamo, [aModelItem(small), anAliasItem("mistral-small", "mistral-small-latest")]);

    const response = await invoke(handler, retrieve("mistral-small"));

    expect(response.statusCode).toBe(200);
    expect(response.json.id).toBe("mistral-small-latest");
  });

  it("reads an alias's target from the base scope", async () => {
    serveModelsTable(dynamo, [aModelItem(small), anAliasItem("mistral-small", "mistral-small-latest")]);

    await invoke(handler, retrieve("mistral-small"));

    const gets = dynamo.commandCalls(GetCommand);
    expect(gets.map((g) => g.args[0].input)).toStrictEqual([{ TableName: "platform-models", Key: { scope: "BASE", sk: "MODEL#mistral-small-latest" } }]);
  });

  it("looks the name up in one batch: the caller's model, the base model and the base alias", async () => {
    serveModelsTable(dynamo, [aModelItem(small)]);

    await invoke(handler, retrieve("mistral-small-latest"));

    const batches = dynamo.commandCalls(BatchGetCommand);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.args[0].input).toStrictEqual({
      RequestItems: {
        "platform-models": {
          Keys: [
            { scope: `WS#${caller.workspace}`, sk: "MODEL#mistral-small-latest" },
            { scope: "BASE", sk: "MODEL#mistral-small-latest" },
            { scope: "BASE", sk: "ALIAS#mistral-small-latest" },
          ],
        },
      },
    });
  });

  it("answers the caller's fine-tuned model with type fine-tuned, its root and its job", async () => {
    const tuned = aFineTunedModelEntry({ workspace: caller.workspace, root: "mistral-small-latest" });
    serveModelsTable(dynamo, [aModelItem(tuned)]);

    const response = await invoke(handler, retrieve(tuned.id));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: tuned.id, object: "model", type: "fine-tuned", TYPE: "fine-tuned", root: "mistral-small-latest", job: tuned.job, archived: false });
  });

  it("decodes a percent-encoded fine-tuned id", async () => {
    const tuned = aFineTunedModelEntry({ workspace: caller.workspace });
    serveModelsTable(dynamo, [aModelItem(tuned)]);

    const response = await invoke(handler, retrieve(encodeURIComponent(tuned.id)));

    expect(response.statusCode).toBe(200);
    expect(response.json.id).toBe(tuned.id);
  });

  it("shows an archived fine-tuned model as archived", async () => {
    const tuned = aFineTunedModelEntry({ workspace: caller.workspace, archived: true });
    serveModelsTable(dynamo, [aModelItem(tuned)]);

    const response = await invoke(handler, retrieve(tuned.id));

    expect(response.json.archived).toBe(true);
  });

  it("answers 404 naming the model for an unknown id", async () => {
    serveModelsTable(dynamo, [aModelItem(small)]);

    const response = await invoke(handler, retrieve("no-such-model"));

    expect(response.statusCode).toBe(404);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.json).toStrictEqual(aPlatformError({ message: "No model with id 'no-such-model' exists in this workspace", type: "not_found_error", param: null, code: "model_not_found" }));
  });

  it("answers 404 for another workspace's fine-tuned model", async () => {
    const theirs = aFineTunedModelEntry();
    serveModelsTable(dynamo, [aModelItem(theirs)]);

    const response = await invoke(handler, retrieve(theirs.id));

    expect(response.statusCode).toBe(404);
  });

  it("answers 404 for an alias whose target is gone", async () => {
    serveModelsTable(dynamo, [anAliasItem("mistral-small", "mistral-small-latest")]);

    const response = await invoke(handler, retrieve("mistral-small"));

    expect(response.statusCode).toBe(404);
    expect(response.json.message).toBe("No model with id 'mistral-small' exists in this workspace");
  });

  it("answers 401 without the authorizer context", async () => {
    const response = await invoke(handler, retrieve("mistral-small-latest", null));

    expect(response.statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/models/update.js";
import type { ModelEntry } from "../../../shared/domain/models.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aFineTunedModelEntry, aJsonEvent, aModelEntry, aModelItem, invoke, serveModelsTable } from "../../support/builders.js";
import { aPlatformError } from "../../support/errors.js";

const dynamo = mockDynamo({ resolves: {} });

const caller = aCaller();
const update = (modelId: string, body: unknown, who: ReturnType<typeof aCaller> | null = caller) =>
  aJsonEvent(body, {
    method: "PATCH",
    path: `/v1/fine_tuning/models/${modelId}`,
    resource: "/v1/fine_tuning/models/{model_id}",
    pathParameters: { model_id: modelId },
    caller: who,
  });

/** The caller's fine-tuned model, stored; updates answer it with `changes` applied. */
function storedFineTuned(changes: Partial<ModelEntry> = {}) {
  const tuned = aFineTunedModelEntry({ workspace: caller.workspace, root: "mistral-small-latest", rootVersion: "offline-echo" });
  serveModelsTable(dynamo, [aModelItem(tuned)]);
  dynamo.on(UpdateCommand).resolves({ Attributes: aModelItem({ ...tuned, ...changes }) });
  return tuned;
}

const updates = () => dynamo.commandCalls(UpdateCommand);

describe("PATCH /v1/fine_tuning/models/{model_id}", () => {
  it("answers 200 JSON with the fine-tuned model in its own shape", async () => {
    const tuned = storedFineTuned({ name: "Support bot", description: "Tuned on tickets" });
    const event = update(tuned.id, { name: "Support bot", description: "Tuned on tickets" });

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({
      id: tuned.id,
      object: "model",
      created: tuned.created,
      owned_by: caller.workspace,
      workspace_id: caller.workspace,
      root: "mistral-small-latest",
      root_version: "offline-echo",
      archived: false,
      name: "Support bot",
      description: "Tuned on tickets",
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
      max_context_length: tuned.maxContextLength,
      aliases: [],
      job: tuned.job,
      model_type: "completion",
    });
  });

  it("sets only the given fields, on the caller's item, only if it still exists", async () => {
    const tuned = storedFineTuned({ name: "Support bot" });

    await invoke(handler, update(tuned.id, { name: "Support bot" }));

    expect(updates()).toHaveLength(1);
    expect(updates()[0]!.args[0].input).toStrictEqual({
      TableName: "platform-models",
      Key: { scope: `WS#${caller.workspace}`, sk: `MODEL#${tuned.id}` },
      UpdateExpression: "SET #name = :name",
      ConditionExpression: "attribute_exists(sk)",
      ExpressionAttributeNames: { "#name": "name" },
      ExpressionAttributeValues: { ":name": "Support bot" },
      ReturnValues: "ALL_NEW",
    });
  });

  it("clears a field set to null", async () => {
    const tuned = storedFineTuned({ description: null });

    const response = await invoke(handler, update(tuned.id, { description: null }));

    expect(updates()[0]!.args[0].input.ExpressionAttributeValues).toStrictEqual({ ":description": null });
    expect(response.json.description).toBeNull();
  });

  it("answers the model unchanged for an empty body, without writing", async () => {
    const tuned = storedFineTuned();

    const response = await invoke(handler, update(tuned.id, {}));

    expect(response.statusCode).toBe(200);
    expect(response.json.id).toBe(tuned.id);
    expect(updates()).toHaveLength(0);
  });

  it("answers 400 for a base model and writes nothing", async () => {
    serveModelsTable(dynamo, [aModelItem(aModelEntry({ id: "mistral-small-latest" }))]);

    const response = await invoke(handler, update("mistral-small-latest", { name: "Mine now" }));

    expect(response.statusCode).toBe(400);
    expect(response.json).toStrictEqual(aPlatformError({ message: "'mistral-small-latest' is a base model; only fine-tuned models can be updated", type: "invalid_request_error", param: "model_id", code: "base_model_immutable" }));
    expect(updates()).toHaveLength(0);
  });

  it("answers 404 naming the model for an unknown id", async () => {
    serveModelsTable(dynamo, []);

    const response = await invoke(handler, update("ft:unknown", { name: "x" }));

    expect(response.statusCode).toBe(404);
    expect(response.json).toMatchObject({ code: "model_not_found", message: "No model with id 'ft:unknown' exists in this workspace" });
  });

  it("answers 404 when the model was deleted before the write", async () => {
    const tuned = storedFineTuned();
    dynamo.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: "The conditional request failed", $metadata: {} }));

    const response = await invoke(handler, update(tuned.id, { name: "x" }));

    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("model_not_found");
  });

  it("answers 422 extra_forbidden for an unknown body field", async () => {
    const tuned = storedFineTuned();

    const response = await invoke(handler, update(tuned.id, { name: "x", archived: true }));

    expect(response.statusCode).toBe(422);
    expect(response.json).toStrictEqual({ detail: [{ loc: ["body", "archived"], msg: "Extra inputs are not permitted", type: "extra_forbidden" }] });
    expect(updates()).toHaveLength(0);
  });

  it("answers 422 for a name over 256 characters", async () => {
    const tuned = storedFineTuned();

    const response = await invoke(handler, update(tuned.id, { name: "x".repeat(257) }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0]).toMatchObject({ loc: ["body", "name"], type: "string_too_long" });
  });

  it("answers 401 without the authorizer context", async () => {
    const response = await invoke(handler, update("ft:any", { name: "x" }, null));

    expect(response.statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

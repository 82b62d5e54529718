import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler as archiveHandler } from "../../../functions/models/archive.js";
import { handler as unarchiveHandler } from "../../../functions/models/unarchive.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aFineTunedModelEntry, aModelEntry, aModelItem, anEvent, invoke, serveModelsTable } from "../../support/builders.js";
import { aPlatformError } from "../../support/errors.js";

const dynamo = mockDynamo({ resolves: {} });

/** Archive and unarchive are one operation with the flag the other way round. */
describe.each([
  { route: "POST", key: "POST /v1/fine_tuning/models/{model_id}/archive", handler: archiveHandler, archived: true, verb: "archived" },
  { route: "DELETE", key: "DELETE /v1/fine_tuning/models/{model_id}/archive", handler: unarchiveHandler, archived: false, verb: "unarchived" },
])("$key", ({ route, handler, archived, verb }) => {
  const caller = aCaller();
  const archive = (modelId: string, who: ReturnType<typeof aCaller> | null = caller) =>
    anEvent({
      method: route,
      path: `/v1/fine_tuning/models/${modelId}/archive`,
      resource: "/v1/fine_tuning/models/{model_id}/archive",
      pathParameters: { model_id: modelId },
      caller: who,
    });

  /** The caller's fine-tuned model, stored with the flag the other way; the update answers it flipped. */
  function storedFineTuned() {
    const tuned = aFineTunedModelEntry({ workspace: caller.workspace, archived: !archived });
    serveModelsTable(dynamo, [aModelItem(tuned)]);
    dynamo.on(UpdateCommand).resolves({ Attributes: aModelItem({ ...tuned, archived }) });
    return tuned;
  }

  const updates = () => dynamo.commandCalls(UpdateCommand);

  it(`answers 200 JSON with the model ${verb}`, async () => {
    const tuned = storedFineTuned();
    const event = archive(tuned.id);

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({ id: tuned.id, object: "model", archived });
  });

  it(`sets archived to ${archived} on the caller's item, only if it still exists`, async () => {
    const tuned = storedFineTuned();

    await invoke(handler, archive(tuned.id));

    expect(updates()).toHaveLength(1);
    expect(updates()[0]!.args[0].input).toStrictEqual({
      TableName: "platform-models",
      Key: { scope: `WS#${caller.workspace}`, sk: `MODEL#${tuned.id}` },
      UpdateExpression: "SET #archived = :archived",
      ConditionExpression: "attribute_exists(sk)",
      ExpressionAttributeNames: { "#archived": "archived" },
      ExpressionAttributeValues: { ":archived": archived },
      ReturnValues: "ALL_NEW",
    });
  });

  it("answers 400 for a base model and writes nothing", async () => {
    serveModelsTable(dynamo, [aModelItem(aModelEntry({ id: "mistral-small-latest" }))]);

    const response = await invoke(handler, archive("mistral-small-latest"));

    expect(response.statusCode).toBe(400);
    expect(response.json).toStrictEqual(aPlatformError({ message: `'mistral-small-latest' is a base model; only fine-tuned models can be ${verb}`, type: "invalid_request_error", param: "model_id", code: "base_model_immutable" }));
    expect(updates()).toHaveLength(0);
  });

  it("answers 404 naming the model for an unknown id", async () => {
    serveModelsTable(dynamo, []);

    const response = await invoke(handler, archive("ft:unknown"));

    expect(response.statusCode).toBe(404);
    expect(response.json).toMatchObject({ type: "not_found_error", code: "model_not_found", message: "No model with id 'ft:unknown' exists in this workspace" });
    expect(updates()).toHaveLength(0);
  });

  it("answers 404 for another workspace's fine-tuned model and writes nothing", async () => {
    const theirs = aFineTunedModelEntry();
    serveModelsTable(dynamo, [aModelItem(theirs)]);

    const response = await invoke(handler, archive(theirs.id));

    expect(response.statusCode).toBe(404);
    expect(updates()).toHaveLength(0);
  });

  it("answers 404 when the model was deleted before the write", async () => {
    const tuned = storedFineTuned();
    dynamo.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: "The conditional request failed", $metadata: {} }));

    const response = await invoke(handler, archive(tuned.id));

    expect(response.statusCode).toBe(404);
  });

  it("answers 401 without the authorizer context", async () => {
    const response = await invoke(handler, archive("ft:any", null));

    expect(response.statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

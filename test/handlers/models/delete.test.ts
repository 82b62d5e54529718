import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/models/delete.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aFineTunedModelEntry, aModelEntry, aModelItem, anAliasItem, anEvent, invoke, serveModelsTable } from "../../support/builders.js";
import { aPlatformError } from "../../support/errors.js";

const dynamo = mockDynamo({ resolves: {} });

const caller = aCaller();
const remove = (modelId: string, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({ method: "DELETE", path: `/v1/models/${modelId}`, resource: "/v1/models/{model_id}", pathParameters: { model_id: modelId }, caller: who });

/** The caller's fine-tuned model, stored and deletable. */
function storedFineTuned() {
  const tuned = aFineTunedModelEntry({ workspace: caller.workspace });
  serveModelsTable(dynamo, [aModelItem(tuned)]);
  dynamo.on(DeleteCommand).resolves({ Attributes: aModelItem(tuned) });
  return tuned;
}

const deletions = () => dynamo.commandCalls(DeleteCommand);

describe("DELETE /v1/models/{model_id}", () => {
  it("answers 200 JSON with the delete result", async () => {
    const tuned = storedFineTuned();
    const event = remove(tuned.id);

    const response = await invoke(handler, event);

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("application/json");
    expect(response.headers?.["x-request-id"]).toBe(event.requestContext.requestId);
    expect(response.json).toStrictEqual({ id: tuned.id, object: "model", deleted: true });
  });

  it("deletes the item by the caller's workspace scope and the model id", async () => {
    const tuned = storedFineTuned();

    await invoke(handler, remove(tuned.id));

    expect(deletions()).toHaveLength(1);
    expect(deletions()[0]!.args[0].input).toStrictEqual({
      TableName: "platform-models",
      Key: { scope: `WS#${caller.workspace}`, sk: `MODEL#${tuned.id}` },
      ReturnValues: "ALL_OLD",
    });
  });

  it("answers 400 for a base model and deletes nothing", async () => {
    serveModelsTable(dynamo, [aModelItem(aModelEntry({ id: "mistral-small-latest" }))]);

    const response = await invoke(handler, remove("mistral-small-latest"));

    expect(response.statusCode).toBe(400);
    expect(response.json).toStrictEqual(aPlatformError({ message: "'mistral-small-latest' is a base model; only fine-tuned models can be deleted", type: "invalid_request_error", param: "model_id", code: "base_model_immutable" }));
    expect(deletions()).toHaveLength(0);
  });

  it("answers 400 naming the base model when asked by its alias", async () => {
    serveModelsTable(dynamo, [aModelItem(aModelEntry({ id: "mistral-small-latest", aliases: ["mistral-small"] })), anAliasItem("mistral-small", "mistral-small-latest")]);

    const response = await invoke(handler, remove("mistral-small"));

    expect(response.statusCode).toBe(400);
    expect(response.json.message).toBe("'mistral-small-latest' is a base model; only fine-tuned models can be deleted");
  });

  it("answers 404 naming the model for an unknown id", async () => {
    serveModelsTable(dynamo, []);

    const response = await invoke(handler, remove("ft:unknown"));

    expect(response.statusCode).toBe(404);
    expect(response.json).toMatchObject({ type: "not_found_error", code: "model_not_found", message: "No model with id 'ft:unknown' exists in this workspace" });
    expect(deletions()).toHaveLength(0);
  });

  it("answers 404 for another workspace's fine-tuned model and deletes nothing", async () => {
    const theirs = aFineTunedModelEntry();
    serveModelsTable(dynamo, [aModelItem(theirs)]);

    const response = await invoke(handler, remove(theirs.id));

    expect(response.statusCode).toBe(404);
    expect(deletions()).toHaveLength(0);
  });

  it("answers 404 when a concurrent delete removed the model first", async () => {
    const tuned = storedFineTuned();
    dynamo.on(DeleteCommand).resolves({});

    const response = await invoke(handler, remove(tuned.id));

    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("model_not_found");
  });

  it("answers 401 without the authorizer context", async () => {
    const response = await invoke(handler, remove("ft:any", null));

    expect(response.statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

import { beforeEach, describe, expect, it } from "vitest";
import { registerFineTuned } from "../../../shared/services/models/catalog.js";
import { useEmbeddedApi } from "../../support/api.js";
import { contextLengthOf, inferenceClient, offlineEcho, userSays } from "../../support/inference-client.js";
import { newTenant } from "../../support/tenant.js";

const FT = "ft:mistral-small-latest:test:abc";

const { api, tenant } = useEmbeddedApi();
const mine = inferenceClient(api, tenant);
beforeEach(async () => {
  await registerFineTuned({ workspace: tenant.caller.workspace, id: FT, root: "mistral-small-latest", job: "job-1" });
});

const ids = (cards: { id: string }[]) => cards.map((c) => c.id);

// Covers PATCH /v1/fine_tuning/models/{model_id}, POST /v1/fine_tuning/models/{model_id}/archive,
// DELETE /v1/fine_tuning/models/{model_id}/archive and DELETE /v1/models/{model_id}.
describe("a fine-tuned model", () => {
  it("is listed for its workspace after the base models, as a fine-tuned card", async () => {
    const { body } = await mine.listModels();
    expect(ids(body.data)).toContain(FT);
    expect(body.data.at(-1).id).toBe(FT);
    expect(body.data.find((c: { id: string }) => c.id === FT)).toMatchObject({
      object: "model",
      owned_by: tenant.caller.workspace,
      type: "fine-tuned",
      TYPE: "fine-tuned",
      root: "mistral-small-latest",
      job: "job-1",
      archived: false,
      aliases: [],
      max_context_length: contextLengthOf("mistral-small-latest"),
      capabilities: { completion_chat: true, completion_fim: false },
    });
    expect(ids((await mine.listModels({ model: FT })).body.data)).toEqual([FT]);
  });

  it("is invisible to another tenant: not listed, 404 on retrieve and on every change", async () => {
    const stranger = inferenceClient(api, await newTenant());
    expect(ids((await stranger.listModels()).body.data)).not.toContain(FT);
    expect((await stranger.listModels({ model: FT })).body.data).toEqual([]);
    for (const reply of [
      await stranger.retrieveModel(FT),
      await stranger.updateModel(FT, { name: "mine now" }),
      await stranger.archiveModel(FT),
      await stranger.deleteModel(FT),
    ]) {
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({ type: "not_found_error", code: "model_not_found" });
    }
    // Named in a request body, an unknown model is the body's mistake, as Mistral answers it.
    const chat = await stranger.chat(userSays(FT, "hi"));
    expect(chat.status).toBe(400);
    expect(chat.body).toMatchObject({ code: "invalid_model", param: "model" });
    const still = await mine.retrieveModel(FT);
    expect(still.status).toBe(200);
    expect(still.body).toMatchObject({ name: null, archived: false });
  });

  it("is retrieved by its id percent-encoded, as the SDK sends it", async () => {
    const reply = await mine.request("GET", "/v1/models/ft%3Amistral-small-latest%3Atest%3Aabc");
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: FT, type: "fine-tuned", root: "mistral-small-latest" });
    expect((await mine.request("GET", `/v1/models/${FT}`)).body.id).toBe(FT);
  });

  it("answers chat under its own id, through its root's provider", async () => {
    const reply = await mine.chat(userSays(FT, "tuned hello"));
    expect(reply.status).toBe(200);
    expect(reply.body.model).toBe(FT);
    expect(reply.body.choices[0].message.content).toBe(offlineEcho("tuned hello"));
    expect(reply.headers.get("x-inference-backend")).toBe("offline");
  });

  it("takes a new name and description (PATCH), answered in the fine-tuned shape and kept", async () => {
    const reply = await mine.updateModel(FT, { name: "Support bot", description: "Tuned on tickets" });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: FT,
      object: "model",
      name: "Support bot",
      description: "Tuned on tickets",
      workspace_id: tenant.caller.workspace,
      root: "mistral-small-latest",
      archived: false,
      job: "job-1",
      model_type: "completion",
    });
    expect((await mine.retrieveModel(FT)).body).toMatchObject({ name: "Support bot", description: "Tuned on tickets" });

    const renamed = await mine.updateModel(FT, { name: "Renamed" });
    expect(renamed.body).toMatchObject({ name: "Renamed", description: "Tuned on tickets" });
    const cleared = await mine.updateModel(FT, { description: null });
    expect(cleared.body).toMatchObject({ name: "Renamed", description: null });
  });

  it("refuses unknown PATCH fields with 422", async () => {
    const reply = await mine.updateModel(FT, { archived: true });
    expect(reply.status).toBe(422);
    expect((await mine.retrieveModel(FT)).body.archived).toBe(false);
  });

  it("can be archived, which makes it unusable, and unarchived, which makes it usable again", async () => {
    const archived = await mine.archiveModel(FT);
    expect(archived.status).toBe(200);
    expect(archived.body).toEqual({ id: FT, object: "model", archived: true });
    expect((await mine.retrieveModel(FT)).body.archived).toBe(true);

    for (const reply of [await mine.chat(userSays(FT, "hi")), await mine.chatStream(userSays(FT, "hi"))]) {
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ type: "invalid_request_error", code: "model_archived", param: "model" });
    }

    const unarchived = await mine.unarchiveModel(FT);
    expect(unarchived.status).toBe(200);
    expect(unarchived.body).toEqual({ id: FT, object: "model", archived: false });
    expect((await mine.retrieveModel(FT)).body.archived).toBe(false);
    const chat = await mine.chat(userSays(FT, "back again"));
    expect(chat.status).toBe(200);
    expect(chat.body.choices[0].message.content).toBe(offlineEcho("back again"));
  });

  it("is deleted (DELETE /v1/models/{id}), then 404 on the model routes, invalid_model in a body, and no longer listed", async () => {
    const reply = await mine.deleteModel(FT);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ id: FT, object: "model", deleted: true });

    expect(ids((await mine.listModels()).body.data)).not.toContain(FT);
    for (const after of [await mine.retrieveModel(FT), await mine.deleteModel(FT)]) {
      expect(after.status).toBe(404);
      expect(after.body).toMatchObject({ code: "model_not_found" });
    }
    const chat = await mine.chat(userSays(FT, "hi"));
    expect(chat.status).toBe(400);
    expect(chat.body).toMatchObject({ code: "invalid_model" });
    // Its root is untouched.
    expect((await mine.retrieveModel("mistral-small-latest")).status).toBe(200);
  });
});

describe("a base model", () => {
  it("cannot be deleted, archived, unarchived or renamed (400), and stays listed and usable", async () => {
    for (const reply of [
      await mine.deleteModel("mistral-small-latest"),
      await mine.deleteModel("mistral-small"),
      await mine.archiveModel("mistral-small-latest"),
      await mine.unarchiveModel("mistral-small-latest"),
      await mine.updateModel("mistral-small-latest", { name: "mine" }),
    ]) {
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ type: "invalid_request_error", code: "base_model_immutable" });
    }
    expect(ids((await mine.listModels()).body.data)).toContain("mistral-small-latest");
    expect((await mine.retrieveModel("mistral-small-latest")).body).toMatchObject({ archived: false, name: "Offline echo (as mistral-small-latest)" });
    expect((await mine.chat(userSays("mistral-small-latest", "still here"))).status).toBe(200);
  });

  it("answers 404, not 400, to changes of a model that does not exist", async () => {
    for (const reply of [await mine.deleteModel("ft:nothing:here"), await mine.archiveModel("ft:nothing:here"), await mine.updateModel("ft:nothing:here", { name: "x" })]) {
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({ code: "model_not_found" });
    }
  });
});

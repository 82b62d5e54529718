import { describe, expect, it } from "vitest";
import { LOCAL_CATALOG, readCatalog } from "../../../infra/catalog.js";
import { useEmbeddedApi } from "../../support/api.js";
import { inferenceClient } from "../../support/inference-client.js";

const catalog = readCatalog(LOCAL_CATALOG);
const catalogIds = catalog.models.map((m) => m.id).sort((a, b) => a.localeCompare(b));

const { api, tenant } = useEmbeddedApi();
const client = inferenceClient(api, tenant);

const ids = (cards: { id: string }[]) => cards.map((c) => c.id);

describe("GET /v1/models", () => {
  it("lists the offline catalog, every card owned by offline with both spellings of its type", async () => {
    const reply = await client.listModels();
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.body.object).toBe("list");
    expect(ids(reply.body.data)).toEqual(catalogIds);
    for (const card of reply.body.data) {
      expect(card).toMatchObject({ object: "model", owned_by: "offline", type: "base", TYPE: "base", archived: false, root: null, job: null });
      expect(card.created).toEqual(expect.any(Number));
    }
  });

  it("describes each model as the catalog file does", async () => {
    const { body } = await client.listModels();
    for (const model of catalog.models) {
      const card = body.data.find((c: { id: string }) => c.id === model.id);
      expect(card, model.id).toMatchObject({
        aliases: model.aliases,
        max_context_length: model.max_context_length,
        name: model.name,
        description: model.description,
        capabilities: {
          completion_chat: model.endpoints.includes("chat"),
          completion_fim: model.endpoints.includes("fim"),
          function_calling: model.capabilities.function_calling,
          moderation: model.endpoints.includes("moderations"),
        },
      });
    }
    const codestral = body.data.find((c: { id: string }) => c.id === "codestral-latest");
    expect(codestral.capabilities).toMatchObject({ completion_chat: true, completion_fim: true });
    const embed = body.data.find((c: { id: string }) => c.id === "mistral-embed");
    expect(embed.capabilities).toMatchObject({ completion_chat: false, completion_fim: false });
  });

  it("filters by model, matching an id or an alias", async () => {
    expect(ids((await client.listModels({ model: "mistral-large-latest" })).body.data)).toEqual(["mistral-large-latest"]);
    expect(ids((await client.listModels({ model: "mistral-small" })).body.data)).toEqual(["mistral-small-latest"]);
    expect(ids((await client.listModels({ model: "codestral-2405" })).body.data)).toEqual(["codestral-latest"]);
    const none = await client.listModels({ model: "no-such-model" });
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ object: "list", data: [] });
  });

  it("filters by provider", async () => {
    expect(ids((await client.listModels({ provider: "offline" })).body.data)).toEqual(catalogIds);
    expect((await client.listModels({ provider: "mistralai" })).body.data).toEqual([]);
    expect(ids((await client.listModels({ provider: "offline", model: "mistral-embed" })).body.data)).toEqual(["mistral-embed"]);
    expect((await client.listModels({ provider: "mistralai", model: "mistral-embed" })).body.data).toEqual([]);
  });

  it("needs an API key", async () => {
    const reply = await client.request("GET", "/v1/models", { key: null });
    expect(reply.status).toBe(401);
  });
});

describe("GET /v1/models/{model_id}", () => {
  it("answers the card of a model by its id, equal to its list entry", async () => {
    const listed = (await client.listModels()).body.data.find((c: { id: string }) => c.id === "mistral-small-latest");
    const reply = await client.retrieveModel("mistral-small-latest");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(listed);
  });

  it("answers the model an alias points at, under its own id", async () => {
    const reply = await client.retrieveModel("mistral-small");
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: "mistral-small-latest", aliases: ["mistral-small", "mistral-small-2506", "mistral-small-3-2"], owned_by: "offline" });
    expect((await client.retrieveModel("codestral-2405")).body.id).toBe("codestral-latest");
  });

  it("answers 404 naming an unknown model", async () => {
    const reply = await client.retrieveModel("gpt-nonexistent");
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ object: "error", type: "not_found_error", code: "model_not_found" });
    expect(reply.body.message).toContain("gpt-nonexistent");
  });
});

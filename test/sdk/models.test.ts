/**
 * The Models API driven by the official, unmodified SDK (`@mistralai/mistralai`) against the local server.
 * Model cards are a discriminated union on `type` in the SDK: a card it cannot parse does not fail, it
 * silently becomes `{ type: "UNKNOWN", isUnknown: true, raw }`, so every card is checked for that.
 */
import { Mistral } from "@mistralai/mistralai";
import type { BaseModelCard, FTModelCard } from "@mistralai/mistralai/models/components";
import { SDKError } from "@mistralai/mistralai/models/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { LOCAL_CATALOG, readCatalog } from "../../infra/catalog.js";
import { registerFineTuned } from "../../shared/services/models/catalog.js";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";
import { contextLengthOf } from "../support/inference-client.js";
import { newTenant, type TestTenant } from "../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;

const catalog = readCatalog(LOCAL_CATALOG);
const catalogIds = catalog.models.map((m) => m.id).sort();
const FT_ID = "ft:mistral-small-latest:sdk:1";

const sdk = (apiKey: string) => sdkClient(api, apiKey);

/** The SDK parsed the card into one of its two known shapes, not its unknown fallback. */
function expectKnownCard(card: object): asserts card is BaseModelCard | FTModelCard {
  expect("isUnknown" in card, `card parsed as unknown: ${JSON.stringify(card)}`).toBe(false);
  expect(["base", "fine-tuned"]).toContain((card as { type?: unknown }).type);
}

/** A listing's cards, each checked to be a known card. */
function knownCards(list: { data?: object[] | undefined }): (BaseModelCard | FTModelCard)[] {
  const data = list.data ?? [];
  data.forEach((card) => expectKnownCard(card));
  return data as (BaseModelCard | FTModelCard)[];
}

/** The SDK error a rejected call produced (and not some other failure). */
const sdkErrorOf = (call: Promise<unknown>) => errorOf(call, SDKError);

beforeAll(() => {
  client = sdk(tenant.key);
});

describe("models.list", () => {
  it("lists the offline catalog's base models, every card parsed by the SDK", async () => {
    const list = await client.models.list();
    expect(list.object).toBe("list");
    const data = knownCards(list);
    expect(data.map((m) => m.id).sort()).toEqual(catalogIds);
    for (const card of data) {
      const entry = catalog.models.find((m) => m.id === card.id)!;
      expect(card).toMatchObject({ type: "base", object: "model", maxContextLength: entry.max_context_length, aliases: entry.aliases });
      expect(card).not.toHaveProperty("max_context_length");
    }
    const codestral = data.find((m) => m.id === "codestral-latest")!;
    expect(codestral.capabilities).toMatchObject({ completionChat: true, completionFim: true });
    const small = data.find((m) => m.id === "mistral-small-latest")!;
    expect(small.capabilities).toMatchObject({ completionChat: true, completionFim: false, functionCalling: true });
  });
});

describe("models.list filters", () => {
  it("filters by provider and by model id or alias", async () => {
    expect(knownCards(await client.models.list({ provider: "offline" })).map((m) => m.id).sort()).toEqual(catalogIds);
    expect(knownCards(await client.models.list({ provider: "nobody" }))).toEqual([]);
    expect(knownCards(await client.models.list({ model: "mistral-small" })).map((m) => m.id)).toEqual(["mistral-small-latest"]);
  });
});

describe("models.retrieve", () => {
  it("returns a base model by id", async () => {
    const card = await client.models.retrieve({ modelId: "mistral-small-latest" });
    expectKnownCard(card);
    expect(card).toMatchObject({ id: "mistral-small-latest", type: "base", aliases: ["mistral-small", "mistral-small-2506", "mistral-small-3-2"], maxContextLength: contextLengthOf("mistral-small-latest") });
  });

  it("returns a base model by alias, under its canonical id", async () => {
    const card = await client.models.retrieve({ modelId: "codestral-2405" });
    expectKnownCard(card);
    expect(card).toMatchObject({ id: "codestral-latest", type: "base" });
  });

  it("rejects an unknown model with a 404 SDKError", async () => {
    const error = await sdkErrorOf(client.models.retrieve({ modelId: "no-such-model" }));
    expect(error.statusCode).toBe(404);
    expect(JSON.parse(error.body)).toMatchObject({ object: "error", type: "not_found_error" });
  });
});

describe("fine-tuned model lifecycle", () => {
  // Its own workspace, so the catalog listing above never sees the fine-tuned model.
  let ft: TestTenant;
  let ftClient: Mistral;

  beforeAll(async () => {
    ft = await newTenant();
    ftClient = sdk(ft.key);
    await registerFineTuned({ workspace: ft.caller.workspace, id: FT_ID, root: "mistral-small-latest", job: "sdk-job" });
  });

  it("retrieves the registered model as a fine-tuned card", async () => {
    const card = await ftClient.models.retrieve({ modelId: FT_ID });
    expectKnownCard(card);
    expect(card).toMatchObject({ id: FT_ID, type: "fine-tuned", root: "mistral-small-latest", job: "sdk-job", archived: false });
  });

  it("lists it after the base models, as a fine-tuned card", async () => {
    const data = knownCards(await ftClient.models.list());
    expect(data.map((m) => m.id)).toEqual([...catalogIds, FT_ID]);
    expect(data.at(-1)).toMatchObject({ id: FT_ID, type: "fine-tuned", root: "mistral-small-latest" });
  });

  it("is not visible from another workspace", async () => {
    const error = await sdkErrorOf(client.models.retrieve({ modelId: FT_ID }));
    expect(error.statusCode).toBe(404);
  });

  it("updates name and description (the SDK parses the model_type union)", async () => {
    const updated = await ftClient.models.update({ modelId: FT_ID, updateModelRequest: { name: "SDK model", description: "tuned in a test" } });
    expect("isUnknown" in updated, `update answer parsed as unknown: ${JSON.stringify(updated)}`).toBe(false);
    expect(updated).toMatchObject({
      id: FT_ID,
      modelType: "completion",
      name: "SDK model",
      description: "tuned in a test",
      root: "mistral-small-latest",
      workspaceId: ft.caller.workspace,
      archived: false,
    });
    const card = await ftClient.models.retrieve({ modelId: FT_ID });
    expect(card).toMatchObject({ name: "SDK model", description: "tuned in a test" });
  });

  it("archives and unarchives; an archived model refuses completions", async () => {
    const chat = () => ftClient.chat.complete({ model: FT_ID, messages: [{ role: "user", content: "hi" }] });
    expect(await ftClient.models.archive({ modelId: FT_ID })).toEqual({ id: FT_ID, object: "model", archived: true });
    expect(await ftClient.models.retrieve({ modelId: FT_ID })).toMatchObject({ archived: true });
    const refused = await sdkErrorOf(chat());
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body)).toMatchObject({ code: "model_archived" });
    expect(await ftClient.models.unarchive({ modelId: FT_ID })).toEqual({ id: FT_ID, object: "model", archived: false });
    expect(await ftClient.models.retrieve({ modelId: FT_ID })).toMatchObject({ archived: false });
    expect((await chat()).model).toBe(FT_ID);
  });

  it("deletes it, after which retrieve rejects with 404", async () => {
    expect(await ftClient.models.delete({ modelId: FT_ID })).toEqual({ id: FT_ID, object: "model", deleted: true });
    const error = await sdkErrorOf(ftClient.models.retrieve({ modelId: FT_ID }));
    expect(error.statusCode).toBe(404);
    expect(knownCards(await ftClient.models.list()).map((m) => m.id)).toEqual(catalogIds);
  });
});

describe("base models are read-only", () => {
  it("refuses to delete a base model with a 4xx", async () => {
    const error = await sdkErrorOf(client.models.delete({ modelId: "mistral-small-latest" }));
    expect(error.statusCode).toBeGreaterThanOrEqual(400);
    expect(error.statusCode).toBeLessThan(500);
    expect(JSON.parse(error.body)).toMatchObject({ object: "error", code: "base_model_immutable" });
    expect(await client.models.retrieve({ modelId: "mistral-small-latest" })).toMatchObject({ id: "mistral-small-latest" });
  });

  it("refuses to archive or update a base model with a 4xx", async () => {
    // Thunks, one call at a time: a rejected promise nobody awaits yet is an unhandled rejection.
    for (const call of [
      () => client.models.archive({ modelId: "mistral-small-latest" }),
      () => client.models.update({ modelId: "mistral-small-latest", updateModelRequest: { name: "x" } }),
    ]) {
      const error = await sdkErrorOf(call());
      expect(error.statusCode).toBe(400);
    }
  });
});

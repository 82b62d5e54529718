import { describe, expect, it } from "vitest";
import { ApiError } from "../../../shared/domain/errors.js";
import { fromCatalog, requireEndpoint, requireModelAllowed, toFineTunedModel, toModelCard } from "../../../shared/domain/models.js";
import { CatalogModel } from "../../../shared/schemas/model.js";
import { aFineTunedModelEntry, aModelEntry, thrownBy } from "../../support/builders.js";

const thrown = (fn: () => unknown): ApiError => thrownBy(fn, ApiError);

describe("toModelCard", () => {
  it("shapes a base model as the GET /v1/models card", () => {
    const model = aModelEntry({
      id: "mistral-small-latest",
      aliases: ["mistral-small"],
      endpoints: ["chat"],
      capabilities: { function_calling: true, vision: true, fine_tuning: false, classification: false },
      maxContextLength: 32768,
      ownedBy: "mistralai",
      created: 1_700_000_000,
      name: "Small",
      description: "A small model",
      defaultTemperature: 0.7,
    });

    expect(toModelCard(model)).toStrictEqual({
      id: "mistral-small-latest",
      object: "model",
      created: 1_700_000_000,
      owned_by: "mistralai",
      name: "Small",
      description: "A small model",
      max_context_length: 32768,
      aliases: ["mistral-small"],
      deprecation: null,
      deprecation_replacement_model: null,
      default_model_temperature: 0.7,
      capabilities: {
        completion_chat: true,
        completion_fim: false,
        function_calling: true,
        fine_tuning: false,
        vision: true,
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

  it("derives completion_chat, completion_fim and moderation from the endpoints the model serves", () => {
    const card = toModelCard(aModelEntry({ endpoints: ["fim", "moderations"] }));

    expect(card.capabilities).toMatchObject({ completion_chat: false, completion_fim: true, moderation: true });
  });

  it("derives audio_transcription and audio_speech from the transcriptions and speech endpoints", () => {
    expect(toModelCard(aModelEntry({ endpoints: ["transcriptions"] })).capabilities).toMatchObject({ completion_chat: false, audio_transcription: true, audio_speech: false });
    expect(toModelCard(aModelEntry({ endpoints: ["speech"] })).capabilities).toMatchObject({ audio_transcription: false, audio_speech: true });
    expect(toModelCard(aModelEntry({ endpoints: ["realtime_transcriptions"] })).capabilities).toMatchObject({ audio_transcription: false, audio_transcription_realtime: true });
  });

  it("derives ocr from the ocr endpoint", () => {
    expect(toModelCard(aModelEntry({ endpoints: ["ocr"] })).capabilities).toMatchObject({ completion_chat: false, ocr: true });
    expect(toModelCard(aModelEntry({ endpoints: ["chat"] })).capabilities.ocr).toBe(false);
  });

  it("carries the catalog's capability flags as they are", () => {
    const card = toModelCard(aModelEntry({ capabilities: { function_calling: false, vision: false, fine_tuning: true, classification: true } }));

    expect(card.capabilities).toMatchObject({ function_calling: false, vision: false, fine_tuning: true, classification: true });
  });

  it("writes the type in both spellings, lowercase", () => {
    const card = toModelCard(aFineTunedModelEntry());

    expect([card.type, card.TYPE]).toStrictEqual(["fine-tuned", "fine-tuned"]);
  });

  it("gives a fine-tuned card its root and job", () => {
    const tuned = aFineTunedModelEntry({ root: "open-mistral-7b", job: "6b1b5a3e-0000-4000-8000-000000000001" });

    expect(toModelCard(tuned)).toMatchObject({ root: "open-mistral-7b", job: "6b1b5a3e-0000-4000-8000-000000000001" });
  });

  it("gives a fine-tuned card empty strings for a root and job it does not know", () => {
    const tuned = aFineTunedModelEntry({ root: undefined, job: undefined });

    expect(toModelCard(tuned)).toMatchObject({ root: "", job: "" });
  });

  it("shows whether the model is archived", () => {
    expect(toModelCard(aFineTunedModelEntry({ archived: true })).archived).toBe(true);
  });
});

describe("toFineTunedModel", () => {
  it("shapes a fine-tuned model as the PATCH /v1/fine_tuning/models answer", () => {
    const tuned = aFineTunedModelEntry({
      id: "ft:mistral-small-latest:abc:20240301:def",
      workspace: "ws-1",
      ownedBy: "ws-1",
      created: 1_710_000_000,
      root: "mistral-small-latest",
      rootVersion: "offline-echo",
      job: "job-1",
      name: "Support bot",
      description: null,
      maxContextLength: 32768,
      endpoints: ["chat"],
      capabilities: { function_calling: true, vision: false, fine_tuning: false, classification: false },
    });

    expect(toFineTunedModel(tuned)).toStrictEqual({
      id: "ft:mistral-small-latest:abc:20240301:def",
      object: "model",
      created: 1_710_000_000,
      owned_by: "ws-1",
      workspace_id: "ws-1",
      root: "mistral-small-latest",
      root_version: "offline-echo",
      archived: false,
      name: "Support bot",
      description: null,
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
      max_context_length: 32768,
      aliases: [],
      job: "job-1",
      model_type: "completion",
    });
  });

  it("answers empty strings for an unknown workspace, root and root version, and a null job", () => {
    const tuned = { ...aFineTunedModelEntry(), workspace: undefined, root: undefined, rootVersion: undefined, job: undefined };

    expect(toFineTunedModel(tuned)).toMatchObject({ workspace_id: "", root: "", root_version: "", job: null });
  });
});

describe("requireEndpoint", () => {
  it("accepts a model that serves the endpoint", () => {
    expect(() => requireEndpoint(aModelEntry({ endpoints: ["chat", "fim"] }), "fim")).not.toThrow();
  });

  it("refuses chat on a model without it, with a 400 naming the model", () => {
    const error = thrown(() => requireEndpoint(aModelEntry({ id: "mistral-embed", endpoints: ["embeddings"] }), "chat"));

    expect([error.status, error.code, error.param, error.message]).toStrictEqual([400, "model_capability_missing", "model", "Model 'mistral-embed' does not support chat completion"]);
  });

  it("names the completion_fim capability when refusing FIM", () => {
    const error = thrown(() => requireEndpoint(aModelEntry({ id: "mistral-small-latest", endpoints: ["chat"] }), "fim"));

    expect(error.message).toBe("Model 'mistral-small-latest' does not support fill-in-the-middle completion (capability completion_fim)");
  });

  it("refuses embeddings on a model without them", () => {
    const error = thrown(() => requireEndpoint(aModelEntry({ id: "mistral-small-latest", endpoints: ["chat"] }), "embeddings"));

    expect(error.message).toBe("Model 'mistral-small-latest' does not support embeddings");
  });

  it("refuses moderation on a model without it", () => {
    const error = thrown(() => requireEndpoint(aModelEntry({ id: "mistral-small-latest", endpoints: ["chat"] }), "moderations"));

    expect(error.message).toBe("Model 'mistral-small-latest' does not support moderation");
  });

  it("refuses an archived model with model_archived, even for an endpoint it serves", () => {
    const tuned = aFineTunedModelEntry({ endpoints: ["chat"], archived: true });

    const error = thrown(() => requireEndpoint(tuned, "chat"));

    expect([error.status, error.code, error.param, error.message]).toStrictEqual([400, "model_archived", "model", `Model '${tuned.id}' is archived; unarchive it to use it`]);
  });
});

describe("fromCatalog", () => {
  it("makes a catalog model a base entry, unarchived, created at the given time", () => {
    const model = CatalogModel.parse({ id: "mistral-embed", provider: "offline", upstream: "offline-hash-embed", endpoints: ["embeddings"], max_context_length: 8192, dimensions: [1024] });

    expect(fromCatalog(model, 1_700_000_000)).toStrictEqual({
      id: "mistral-embed",
      type: "base",
      aliases: [],
      provider: "offline",
      upstream: "offline-hash-embed",
      endpoints: ["embeddings"],
      capabilities: { function_calling: false, vision: false, fine_tuning: false, classification: false },
      maxContextLength: 8192,
      tokenizer: "v3",
      ownedBy: "mistralai",
      created: 1_700_000_000,
      name: null,
      description: null,
      dimensions: [1024],
      defaultTemperature: null,
      archived: false,
    });
  });

  it("keeps each deployment's weight, concurrency and timeout, and names the first as the model's provider", () => {
    const model = CatalogModel.parse({
      id: "mistral-large-latest",
      deployments: [
        { provider: "bedrock-eu", upstream: "mistral.large", max_concurrent: 20, timeout_ms: 30_000 },
        { provider: "vllm", upstream: "large", weight: 2 },
      ],
      endpoints: ["chat"],
      max_context_length: 131072,
    });

    const entry = fromCatalog(model, 1_700_000_000);

    expect([entry.provider, entry.upstream]).toStrictEqual(["bedrock-eu", "mistral.large"]);
    expect(entry.deployments).toStrictEqual([
      { provider: "bedrock-eu", upstream: "mistral.large", weight: 1, maxConcurrent: 20, timeoutMs: 30_000 },
      { provider: "vllm", upstream: "large", weight: 2 },
    ]);
  });

  it("refuses a deployment timeout under 100 ms", () => {
    const parsed = CatalogModel.safeParse({ id: "m", deployments: [{ provider: "p", upstream: "u", timeout_ms: 5 }], endpoints: ["chat"], max_context_length: 8 });

    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toStrictEqual(["deployments", 0, "timeout_ms"]);
  });
});

describe("requireModelAllowed", () => {
  const model = { id: "mistral-small-2506", aliases: ["mistral-small-latest"], root: undefined };

  it("lets a key without a model list call anything, and a limited key the models it lists by any of their names", () => {
    expect(() => requireModelAllowed({}, "mistral-small-latest", model)).not.toThrow();
    expect(() => requireModelAllowed({ models: ["mistral-small-latest"] }, "mistral-small-2506", model)).not.toThrow();
    expect(() => requireModelAllowed({ models: ["mistral-small-2506"] }, "mistral-small-latest", model)).not.toThrow();
    expect(() => requireModelAllowed({ models: ["mistral-small-2506"] }, "ft:x", { id: "ft:mistral-small-2506:acme:1", aliases: [], root: "mistral-small-2506" })).not.toThrow();
  });

  it("refuses any other model with 403 model_not_allowed, naming what the key may call", () => {
    let error: unknown;
    try {
      requireModelAllowed({ models: ["codestral-latest", "mistral-embed"] }, "mistral-small-latest", model);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ status: 403, code: "model_not_allowed", message: "This API key may not call model 'mistral-small-latest'; it may call: codestral-latest, mistral-embed" });
  });
});

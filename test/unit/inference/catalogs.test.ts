import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LOCAL_CATALOG, readCatalog } from "../../../infra/catalog.js";

const samples = readdirSync(new URL("../../../config/examples/", import.meta.url)).filter((f) => f.endsWith(".json"));
const offline = readCatalog(LOCAL_CATALOG);
const names = (catalog: ReturnType<typeof readCatalog>) => catalog.models.flatMap((m) => [m.id, ...m.aliases]);

describe("the sample catalogs (config/examples)", () => {
  it("has one for Ollama, vLLM and Mistral's API", () => {
    expect(samples.sort()).toEqual(["models.mistral.json", "models.ollama.json", "models.vllm.json"]);
  });

  it.each(samples)("%s is a valid catalog whose names are unique and all in the offline lineup", (file) => {
    const catalog = readCatalog(`config/examples/${file}`);

    expect(new Set(names(catalog)).size).toBe(names(catalog).length);
    for (const name of names(catalog)) expect(names(offline), name).toContain(name);
  });

  it("serves the whole offline lineup from Mistral's API, each model under its own name", () => {
    const mistral = readCatalog("config/examples/models.mistral.json");

    expect(mistral.models.map((m) => m.id)).toEqual(offline.models.map((m) => m.id));
    for (const model of mistral.models) expect(model).toMatchObject({ provider: "mistral", upstream: model.id });
  });
});

describe("the offline catalog (config/models.offline.json)", () => {
  it("has every name the SDK's examples and README use, each name once", () => {
    for (const name of ["mistral-tiny", "mistral-tiny-latest", "pixtral-12b", "mistral-medium-3-5", "mistral-medium-latest", "mistral-large-latest", "mistral-small-latest", "codestral-latest", "mistral-embed", "mistral-moderation-latest"]) {
      expect(names(offline), name).toContain(name);
    }
    expect(new Set(names(offline)).size).toBe(names(offline).length);
  });

  it("marks vision, reasoning, audio, FIM, embeddings and moderation where the lineup has them", () => {
    const model = (name: string) => offline.models.find((m) => m.id === name || m.aliases.includes(name))!;

    expect(model("pixtral-12b").capabilities.vision).toBe(true);
    expect(model("mistral-medium-3-5").capabilities).toMatchObject({ reasoning: true, vision: true, function_calling: true });
    expect(model("magistral-medium-latest").upstream).toBe("offline-reasoning");
    expect(model("voxtral-small-latest").capabilities.audio).toBe(true);
    expect(model("codestral-latest").endpoints).toContain("fim");
    expect(model("codestral-embed").dimensions?.[0]).toBe(1536);
    expect(model("mistral-moderation-latest").endpoints).toEqual(["moderations"]);
    // Guardrails' default models (decision 0059): the first under its dated alias, the second under its own name.
    expect(model("mistral-moderation-2411").id).toBe("mistral-moderation-latest");
    expect(model("mistral-moderation-2603").upstream).toBe("offline-keyword-moderation-v2");
    for (const m of offline.models) expect(m.owned_by, m.id).toBe("offline");
  });
});

/** Each Mistral model's tokenizer, as docs/models.md ("Which model uses which tokenizer") says and why. */
const TOKENIZER_OF: Record<string, string> = {
  "mistral-medium-latest": "tekken",
  "mistral-medium-2508": "tekken",
  "mistral-large-latest": "tekken",
  "mistral-small-latest": "tekken",
  "magistral-medium-latest": "tekken",
  "magistral-small-latest": "tekken",
  "ministral-14b-latest": "tekken",
  "ministral-8b-latest": "tekken",
  "ministral-3b-latest": "tekken",
  "open-mistral-nemo": "tekken",
  "open-mistral-7b": "v1",
  "pixtral-large-latest": "tekken",
  "pixtral-12b-latest": "tekken",
  "codestral-latest": "tekken",
  "devstral-latest": "tekken",
  "devstral-small-latest": "tekken",
  "voxtral-small-latest": "tekken",
  "voxtral-mini-latest": "tekken",
  "voxtral-mini-transcribe-realtime-2602": "tekken",
  "mistral-embed": "v1",
  "codestral-embed": "tekken",
  "mistral-moderation-latest": "tekken",
  "mistral-moderation-2603": "tekken",
  "voxtral-mini-tts-latest": "tekken",
  // Counts nothing (OCR records no tokens: docs/ocr.md); Tekken as Mistral's current models.
  "mistral-ocr-latest": "tekken",
};

describe("the catalogs' tokenizers (docs/models.md)", () => {
  it.each([LOCAL_CATALOG, "config/examples/models.mistral.json"])("%s counts each of Mistral's models with the tokenizer it was released with", (file) => {
    const catalog = readCatalog(file);

    expect(Object.fromEntries(catalog.models.map((m) => [m.id, m.tokenizer]))).toStrictEqual(TOKENIZER_OF);
  });

  it("the vLLM sample counts Mistral Small 3.2 with Tekken", () => {
    expect(readCatalog("config/examples/models.vllm.json").models.find((m) => m.id === "mistral-small-latest")).toMatchObject({ tokenizer: "tekken" });
  });

  it("the Ollama sample counts each model with the tokenizer of the model Ollama serves under that name", () => {
    const ollama = Object.fromEntries(readCatalog("config/examples/models.ollama.json").models.map((m) => [m.id, [m.upstream, m.tokenizer]]));

    expect(ollama).toMatchObject({
      "mistral-small-latest": ["mistral-small3.2", "tekken"],
      "ministral-8b-latest": ["ministral-3:8b", "tekken"],
      "magistral-small-latest": ["magistral", "tekken"],
      // Ollama's `codestral` is Codestral 22B of 2405, a SentencePiece v3 model.
      "codestral-latest": ["codestral", "v3"],
      "mistral-moderation-latest": ["offline-keyword-moderation", "tekken"],
      "mistral-moderation-2603": ["offline-keyword-moderation-v2", "tekken"],
    });
  });

  it("the deployment catalog counts Bedrock's Mistral Large 2 and Small 2402 with SentencePiece, Codestral with Tekken", () => {
    const aws = Object.fromEntries(readCatalog("config/models.aws.json").models.map((m) => [m.id, m.tokenizer]));

    expect(aws).toMatchObject({ "mistral-large-2407": "v3", "mistral-small-2402": "v2", "codestral-latest": "tekken" });
  });
});

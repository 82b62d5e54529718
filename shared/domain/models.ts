import type { CatalogModel, CatalogRouting, Endpoint, Tokenizer } from "../schemas/model.js";
import type { Caller } from "./caller.js";
import { BadRequest, Forbidden } from "./errors.js";

/** A provider that serves a model, and the model's id there (docs/routing.md). */
export interface DeploymentEntry {
  provider: string;
  upstream: string;
  weight: number;
  maxConcurrent?: number;
  /** One try's wait for the answer (a stream's first event), when the catalog bounds it. */
  timeoutMs?: number;
  /** A Bedrock Guardrail its Converse calls name. */
  guardrail?: { id: string; version: string };
}

/** A model as the catalog stores it: a base model seeded from the catalog file, or a registered fine-tuned one. */
export interface ModelEntry {
  id: string;
  type: "base" | "fine-tuned";
  aliases: string[];
  /** The first deployment's (the only one of most models). */
  provider: string;
  upstream: string;
  /** Every deployment, when the catalog lists them (`deployments`); otherwise `provider` + `upstream` alone. */
  deployments?: DeploymentEntry[];
  /** Models tried in this order when every deployment of this one failed upstream. */
  fallbacks?: string[];
  routing?: CatalogRouting;
  endpoints: Endpoint[];
  capabilities: CatalogModel["capabilities"];
  maxContextLength: number;
  tokenizer: Tokenizer;
  ownedBy: string;
  created: number;
  name: string | null;
  description: string | null;
  dimensions: number[] | null;
  defaultTemperature: number | null;
  /** Fine-tuned only: the owning workspace, the base model, the fine-tuning job. */
  workspace?: string;
  root?: string;
  rootVersion?: string;
  job?: string;
  archived: boolean;
}

export function fromCatalog(model: CatalogModel, created: number): ModelEntry {
  const deployments = model.deployments?.map((d) => ({
    provider: d.provider,
    upstream: d.upstream,
    weight: d.weight,
    ...(d.max_concurrent !== undefined ? { maxConcurrent: d.max_concurrent } : {}),
    ...(d.timeout_ms !== undefined ? { timeoutMs: d.timeout_ms } : {}),
    ...(d.guardrail ? { guardrail: { id: d.guardrail.id, version: d.guardrail.version } } : {}),
  }));
  return {
    id: model.id,
    type: "base",
    aliases: model.aliases,
    provider: model.provider ?? deployments![0]!.provider,
    upstream: model.upstream ?? deployments![0]!.upstream,
    ...(deployments ? { deployments } : {}),
    ...(model.fallbacks?.length ? { fallbacks: model.fallbacks } : {}),
    ...(model.routing ? { routing: model.routing } : {}),
    endpoints: model.endpoints,
    capabilities: model.capabilities,
    maxContextLength: model.max_context_length,
    tokenizer: model.tokenizer,
    ownedBy: model.owned_by,
    created,
    name: model.name ?? null,
    description: model.description ?? null,
    dimensions: model.dimensions ?? null,
    defaultTemperature: model.default_model_temperature ?? null,
    archived: false,
  };
}

const ENDPOINT_NAMES: Record<Endpoint, string> = {
  chat: "chat completion",
  fim: "fill-in-the-middle completion (capability completion_fim)",
  embeddings: "embeddings",
  moderations: "moderation",
  transcriptions: "audio transcription (capability audio_transcription)",
  realtime_transcriptions: "realtime transcription (capability audio_transcription_realtime)",
  speech: "speech synthesis (capability audio_speech)",
  ocr: "OCR (capability ocr)",
};

/** A model asked for something it does not serve is the caller's mistake: 400, naming what is missing. */
export function requireEndpoint(model: ModelEntry, endpoint: Endpoint): void {
  if (model.archived) throw new BadRequest(`Model '${model.id}' is archived; unarchive it to use it`, "model_archived", "model");
  if (!model.endpoints.includes(endpoint)) {
    throw new BadRequest(`Model '${model.id}' does not support ${ENDPOINT_NAMES[endpoint]}`, "model_capability_missing", "model");
  }
}

/** The model card of GET /v1/models: both spellings of the type (our spec's `TYPE`, the SDK's `type`). */
export function toModelCard(model: ModelEntry) {
  const card = {
    id: model.id,
    object: "model" as const,
    created: model.created,
    owned_by: model.ownedBy,
    name: model.name,
    description: model.description,
    max_context_length: model.maxContextLength,
    aliases: model.aliases,
    deprecation: null,
    deprecation_replacement_model: null,
    default_model_temperature: model.defaultTemperature,
    capabilities: {
      completion_chat: model.endpoints.includes("chat"),
      completion_fim: model.endpoints.includes("fim"),
      function_calling: model.capabilities.function_calling,
      fine_tuning: model.capabilities.fine_tuning,
      vision: model.capabilities.vision,
      ocr: model.endpoints.includes("ocr"),
      classification: model.capabilities.classification,
      reasoning: model.capabilities.reasoning ?? false,
      audio: model.capabilities.audio ?? false,
      moderation: model.endpoints.includes("moderations"),
      audio_transcription: model.endpoints.includes("transcriptions"),
      audio_transcription_realtime: model.endpoints.includes("realtime_transcriptions"),
      audio_speech: model.endpoints.includes("speech"),
    },
    type: model.type,
    TYPE: model.type,
    archived: model.archived,
  };
  return model.type === "fine-tuned" ? { ...card, root: model.root ?? "", job: model.job ?? "" } : { ...card, root: null, job: null };
}

/** PATCH /v1/fine_tuning/models/{id} answers the fine-tuned model in its own shape. */
export function toFineTunedModel(model: ModelEntry) {
  const card = toModelCard(model);
  return {
    id: model.id,
    object: "model" as const,
    created: model.created,
    owned_by: model.ownedBy,
    workspace_id: model.workspace ?? "",
    root: model.root ?? "",
    root_version: model.rootVersion ?? "",
    archived: model.archived,
    name: model.name,
    description: model.description,
    capabilities: card.capabilities,
    max_context_length: model.maxContextLength,
    aliases: model.aliases,
    job: model.job ?? null,
    model_type: "completion" as const,
  };
}

/**
 * The most UTF-8 bytes one token of each tokenizer covers (measured over each vocabulary: SentencePiece
 * pieces are at most 24 bytes, Tekken's at most 76). A text longer than `tokens × this` has more than
 * `tokens` tokens whatever it says.
 */
export const MAX_BYTES_PER_TOKEN: Record<Tokenizer, number> = { v1: 24, v2: 24, v3: 24, tekken: 80 };

/**
 * Whether a text of `bytes` bytes certainly has more than `tokens` tokens, known without tokenizing it:
 * tokenizing takes seconds per megabyte, and a prompt that cannot fit is refused before that work.
 */
export const certainlyOverTokens = (bytes: number, tokenizer: Tokenizer, tokens: number): boolean => bytes > Math.max(0, tokens) * MAX_BYTES_PER_TOKEN[tokenizer];

/**
 * Whether a text of `bytes` bytes certainly has at most `tokens` tokens, known without tokenizing it: every
 * tokenizer here falls back to one token per byte at worst, and SentencePiece adds one word-start piece at
 * the front (no normalizer of theirs expands text). A prompt this small is not counted for its context check.
 */
export const certainlyWithinTokens = (bytes: number, tokens: number): boolean => bytes + 1 <= tokens;

/** The deployments that serve `model`: the catalog's list, or its provider and upstream. */
export const deploymentsOf = (model: Pick<ModelEntry, "provider" | "upstream" | "deployments">): DeploymentEntry[] =>
  model.deployments ?? [{ provider: model.provider, upstream: model.upstream, weight: 1 }];

/**
 * A key limited to some models (docs/routing.md, "Per-key limits") may call a model named by any of its names: the
 * limit lists ids or aliases, and a fine-tuned model is allowed when its base is.
 */
export function requireModelAllowed(caller: Pick<Caller, "models">, asked: string, model: Pick<ModelEntry, "id" | "aliases" | "root">): void {
  const allowed = caller.models;
  if (!allowed) return;
  const names = new Set([asked, model.id, ...model.aliases, ...(model.root ? [model.root] : [])]);
  if (allowed.some((name) => names.has(name))) return;
  throw new Forbidden(`This API key may not call model '${asked}'; it may call: ${allowed.join(", ")}`, "model_not_allowed");
}

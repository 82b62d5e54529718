import * as z from "zod";

/** What a model can be called for; the wire `capabilities` flags are derived from it. */
export const Endpoint = z.enum(["chat", "fim", "embeddings", "moderations", "transcriptions", "realtime_transcriptions", "speech", "ocr"]);
export type Endpoint = z.infer<typeof Endpoint>;

export const CapabilityFlags = z.strictObject({
  function_calling: z.boolean().default(false),
  vision: z.boolean().default(false),
  fine_tuning: z.boolean().default(false),
  classification: z.boolean().default(false),
  /** Answers with a `thinking` chunk before its text (always, or when `reasoning_effort` asks). */
  reasoning: z.boolean().optional(),
  /** Takes audio input in chat messages. */
  audio: z.boolean().optional(),
  /**
   * Takes Bedrock prompt-cache points (Converse `cachePoint`): its Bedrock deployments get one after the system
   * prompt, the tools and the conversation so far (docs/routing.md, "Prompt caching").
   */
  prompt_caching: z.boolean().optional(),
});

export const Tokenizer = z.enum(["v1", "v2", "v3", "tekken"]);
export type Tokenizer = z.infer<typeof Tokenizer>;

export const BedrockGuardrail = z.strictObject({
  id: z.string().regex(/^(([a-z0-9]+)|(arn:aws(-[^:]+)?:bedrock:[a-z0-9-]{1,20}:[0-9]{12}:guardrail\/[a-z0-9]+))$/, "a guardrail id or ARN"),
  version: z.string().regex(/^(DRAFT|[1-9][0-9]{0,7})$/, "DRAFT or a version number"),
});
export type BedrockGuardrail = z.infer<typeof BedrockGuardrail>;

/** One deployment of a model (docs/routing.md): a provider of the catalog and the model id it knows the model by. */
export const CatalogDeployment = z.strictObject({
  provider: z.string().min(1),
  upstream: z.string().min(1),
  /** Its share of the model's calls, relative to the other deployments'. */
  weight: z.number().positive().default(1),
  /** Calls in flight one process sends it at most; past that the other deployments take the calls. */
  max_concurrent: z.number().int().positive().optional(),
  /**
   * How long one try waits for the answer (for a stream, its first event) before it counts as a timeout: retried
   * or passed to the next deployment like a 504. Unset, the provider's own bound applies.
   */
  timeout_ms: z.number().int().min(100).max(900_000).optional(),
  /**
   * A Bedrock Guardrail every Converse call to this deployment names (docs/routing.md, "Guardrails"): its id (or ARN)
   * and version (`DRAFT` or a number), as Bedrock's own API patterns them. Bedrock deployments only.
   */
  guardrail: BedrockGuardrail.optional(),
});
export type CatalogDeployment = z.infer<typeof CatalogDeployment>;

/** How the router treats a model's calls (docs/routing.md); every field has a default. */
export const CatalogRouting = z.strictObject({
  strategy: z.enum(["weighted-round-robin", "least-busy"]).default("weighted-round-robin"),
  /** Tries again on one deployment after an upstream failure (429, 5xx, timeout, broken connection). */
  retries: z.number().int().min(0).max(5).default(1),
});
export type CatalogRouting = z.infer<typeof CatalogRouting>;

/**
 * One model of the catalog file (config/models.*.json). Served by `provider` + `upstream` (one deployment, the
 * format of every catalog before routing) or by `deployments` (one or more), not both.
 */
export const CatalogModel = z.strictObject({
  id: z.string().min(1),
  aliases: z.array(z.string().min(1)).default([]),
  provider: z.string().min(1).optional(),
  upstream: z.string().min(1).optional(),
  deployments: z.array(CatalogDeployment).min(1).optional(),
  /** Other models of the catalog, tried in this order when every deployment of this one failed upstream. */
  fallbacks: z.array(z.string().min(1)).optional(),
  routing: CatalogRouting.optional(),
  endpoints: z.array(Endpoint).min(1),
  capabilities: CapabilityFlags.default({ function_calling: false, vision: false, fine_tuning: false, classification: false }),
  max_context_length: z.number().int().positive(),
  tokenizer: Tokenizer.default("v3"),
  owned_by: z.string().default("mistralai"),
  name: z.string().nullish(),
  description: z.string().nullish(),
  /** Embedding sizes the model can return (`output_dimension`); the first is its default. */
  dimensions: z.array(z.number().int().positive()).optional(),
  default_model_temperature: z.number().nullish(),
}).superRefine((model, ctx) => {
  const single = model.provider !== undefined || model.upstream !== undefined;
  if (single && model.deployments) ctx.addIssue({ code: "custom", path: ["deployments"], message: "Give either provider and upstream, or deployments, not both" });
  else if (!model.deployments && (model.provider === undefined || model.upstream === undefined)) {
    ctx.addIssue({ code: "custom", path: [model.provider === undefined ? "provider" : "upstream"], message: "A model needs provider and upstream, or deployments" });
  }
  if (model.fallbacks?.includes(model.id)) ctx.addIssue({ code: "custom", path: ["fallbacks"], message: "A model is not its own fallback" });
});
export type CatalogModel = z.infer<typeof CatalogModel>;

/** The provider and upstream id of each deployment of a catalog model (its `deployments`, or its provider and upstream). */
export const catalogDeployments = (model: CatalogModel): { provider: string; upstream: string; guardrail?: BedrockGuardrail }[] =>
  model.deployments ?? [{ provider: model.provider!, upstream: model.upstream! }];

export const ProviderConfigSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("offline") }),
  z.strictObject({ type: z.literal("bedrock"), region: z.string().optional() }),
  z.strictObject({ type: z.literal("amazon-transcribe"), region: z.string().optional() }),
  z.strictObject({ type: z.literal("amazon-polly"), region: z.string().optional() }),
  z.strictObject({ type: z.literal("amazon-textract"), region: z.string().optional() }),
  z.strictObject({
    type: z.literal("openai-compatible"),
    baseUrl: z.url(),
    apiKeyEnv: z.string().optional(),
    dialect: z.enum(["mistral", "openai"]).optional(),
    timeoutMs: z.number().int().positive().optional(),
  }),
]);

export const CatalogFile = z.strictObject({
  $comment: z.string().optional(),
  providers: z.record(z.string(), ProviderConfigSchema),
  models: z.array(CatalogModel),
});
export type CatalogFile = z.infer<typeof CatalogFile>;

/** Path parameters may arrive percent-encoded (fine-tuned ids hold `:`); a malformed escape is kept as written. */
const decoded = (value: string) => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

export const ModelParams = z.object({ model_id: z.string().min(1).max(256).transform(decoded) });

export const ModelListQuery = z.object({
  provider: z.string().optional(),
  model: z.string().optional(),
});

export const UpdateModelBody = z.strictObject({
  name: z.string().max(256).nullish(),
  description: z.string().max(4096).nullish(),
});

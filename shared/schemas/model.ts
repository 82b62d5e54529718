import * as z from "zod";

/** What a model can be called for; the wire `capabilities` flags are derived from it. */
export const Endpoint = z.enum(["chat", "fim", "embeddings", "moderations", "transcriptions", "speech"]);
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
});

export const Tokenizer = z.enum(["v1", "v2", "v3", "tekken"]);
export type Tokenizer = z.infer<typeof Tokenizer>;

/** One model of the catalog file (config/models.*.json). */
export const CatalogModel = z.strictObject({
  id: z.string().min(1),
  aliases: z.array(z.string().min(1)).default([]),
  provider: z.string().min(1),
  upstream: z.string().min(1),
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
});
export type CatalogModel = z.infer<typeof CatalogModel>;

export const ProviderConfigSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("offline") }),
  z.strictObject({ type: z.literal("bedrock"), region: z.string().optional() }),
  z.strictObject({ type: z.literal("amazon-transcribe"), region: z.string().optional() }),
  z.strictObject({ type: z.literal("amazon-polly"), region: z.string().optional() }),
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

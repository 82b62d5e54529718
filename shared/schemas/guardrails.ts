import * as z from "zod";

/**
 * `guardrails` (Mistral's `GuardrailConfig`): moderation checks run on a chat call's input before the model sees it
 * (docs/routing.md, "Guardrails"). The objects are open, as the OpenAPI leaves them (no `additionalProperties: false`).
 */

const threshold = z.number().nullish();
const moderation = <T extends z.ZodRawShape>(defaultModel: string, categories: T) =>
  z.object({
    model_name: z.string().min(1).default(defaultModel),
    custom_category_thresholds: z.object(categories).nullish(),
    ignore_other_categories: z.boolean().default(false),
    action: z.enum(["none", "block"]).default("none"),
  });
const sharedCategories = { sexual: threshold, hate_and_discrimination: threshold, violence_and_threats: threshold, selfharm: threshold, health: threshold, financial: threshold, law: threshold, pii: threshold };

/** The moderation models Mistral names as each check's default. */
export const GUARDRAIL_DEFAULT_MODELS = { moderation_llm_v1: "mistral-moderation-2411", moderation_llm_v2: "mistral-moderation-2603" } as const;

export const ModerationLlmV1Config = moderation(GUARDRAIL_DEFAULT_MODELS.moderation_llm_v1, { ...sharedCategories, dangerous_and_criminal_content: threshold });
export const ModerationLlmV2Config = moderation(GUARDRAIL_DEFAULT_MODELS.moderation_llm_v2, { ...sharedCategories, dangerous: threshold, criminal: threshold, jailbreaking: threshold });

export const GuardrailConfig = z.object({
  /** Mistral: "If true, return HTTP 403 and block request in the event of a server-side error". */
  block_on_error: z.boolean().default(false),
  moderation_llm_v1: ModerationLlmV1Config.nullish(),
  moderation_llm_v2: ModerationLlmV2Config.nullish(),
});
export type GuardrailConfig = z.infer<typeof GuardrailConfig>;

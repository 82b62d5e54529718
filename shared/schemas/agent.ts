import * as z from "zod";
import { MetadataQuery, queryInt, repeated } from "./query.js";
import { pageQuery } from "./common.js";
import { Message, ResponseFormat, Tool, ToolChoice } from "./inference.js";
import { GuardrailConfig } from "./guardrails.js";

/**
 * The Agents resource as Mistral's OpenAPI writes it (`CreateAgentRequest`, `UpdateAgentRequest`,
 * `Agent`, `AgentsCompletionRequest`): request objects reject unknown fields, as `additionalProperties: false` says.
 */

/** Every tool has a default `type`; an object without one is taken as a function tool, as chat does. */
const typedTool = <T extends z.ZodType>(union: T) =>
  z.preprocess((value) => (value && typeof value === "object" && !Array.isArray(value) && !("type" in value) ? { type: "function", ...value } : value), union);

const ToolConfiguration = z.strictObject({
  exclude: z.array(z.string()).nullish(),
  include: z.array(z.string()).nullish(),
  requires_confirmation: z.array(z.string()).nullish(),
});

const builtIn = <N extends string>(type: N) => z.strictObject({ type: z.literal(type), tool_configuration: ToolConfiguration.nullish() });

export const FunctionTool = z.strictObject({
  type: z.literal("function"),
  function: z.strictObject({
    name: z.string().min(1),
    description: z.string().default(""),
    strict: z.boolean().default(false),
    parameters: z.record(z.string(), z.unknown()),
  }),
});

const ConnectorAuth = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("oauth2-token"), value: z.string() }),
  z.strictObject({ type: z.literal("api-key"), value: z.string() }),
]);

/** Tools other than functions: the platform runs them (Mistral's conversations); they are kept on the agent. */
const BuiltInTool = z.discriminatedUnion("type", [
  builtIn("web_search"),
  builtIn("web_search_premium"),
  builtIn("code_interpreter"),
  builtIn("image_generation"),
  builtIn("document_library").extend({ library_ids: z.array(z.string()).min(1) }),
  z.strictObject({
    type: z.literal("connector"),
    connector_id: z.string().min(1),
    authorization: ConnectorAuth.nullish(),
    tool_configuration: ToolConfiguration.nullish(),
  }),
]);

export const AgentTool = typedTool(z.discriminatedUnion("type", [FunctionTool, ...BuiltInTool.options]));
export type AgentTool = z.infer<typeof AgentTool>;

const Stop = z.union([z.string(), z.array(z.string())]);
const Penalty = z.number().min(-2).max(2);
export const ReasoningEffort = z.enum(["none", "minimal", "low", "medium", "high", "xhigh"]);
export const ToolChoiceEnum = z.enum(["auto", "none", "any", "required"]);
export const Prediction = z.strictObject({ type: z.literal("content").default("content"), content: z.string().default("") });

/**
 * `completion_args`: the white-listed sampling arguments an agent carries. No defaults are applied
 * when parsing, so that an agent remembers only what was set and a request's own value always wins.
 */
export const CompletionArgs = z.strictObject({
  stop: Stop.nullish(),
  presence_penalty: Penalty.nullish(),
  frequency_penalty: Penalty.nullish(),
  temperature: z.number().min(0).max(1).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  max_tokens: z.number().int().min(0).nullish(),
  random_seed: z.number().int().min(0).nullish(),
  prediction: Prediction.nullish(),
  response_format: ResponseFormat.nullish(),
  tool_choice: ToolChoiceEnum.optional(),
  reasoning_effort: ReasoningEffort.nullish(),
});
export type CompletionArgs = z.infer<typeof CompletionArgs>;

const Metadata = z.record(z.string(), z.unknown());

/** The fields a version of an agent fixes; every PATCH writes a new set of them. */
const configFields = {
  instructions: z.string().nullish(),
  tools: z.array(AgentTool).optional(),
  completion_args: CompletionArgs.optional(),
  guardrails: z.array(GuardrailConfig).nullish(),
  description: z.string().nullish(),
  handoffs: z.array(z.string().min(1)).min(1).nullish(),
  metadata: Metadata.nullish(),
  version_message: z.string().max(500).nullish(),
};

export const CreateAgentRequest = z.strictObject({
  ...configFields,
  model: z.string().min(1),
  name: z.string(),
});
export type CreateAgentRequest = z.infer<typeof CreateAgentRequest>;

/** A PATCH: a field given replaces the agent's; `model`, `name` and `deployment_chat` given as null are left as they are. */
export const UpdateAgentRequest = z.strictObject({
  ...configFields,
  model: z.string().min(1).nullish(),
  name: z.string().nullish(),
  deployment_chat: z.boolean().nullish(),
});
export type UpdateAgentRequest = z.infer<typeof UpdateAgentRequest>;

export const RequestSource = z.enum(["api", "playground", "agent_builder_v1"]);
export type RequestSource = z.infer<typeof RequestSource>;

/** The Agent resource on the wire; `owner_id` is our spec's, the others the OpenAPI's. */
export const AgentOut = z.object({
  id: z.string(),
  object: z.literal("agent"),
  name: z.string(),
  model: z.string(),
  instructions: z.string().nullable(),
  description: z.string().nullable(),
  tools: z.array(z.unknown()),
  completion_args: z.record(z.string(), z.unknown()),
  guardrails: z.array(z.unknown()).nullable(),
  handoffs: z.array(z.string()).nullable(),
  metadata: Metadata.nullable(),
  version: z.number().int(),
  versions: z.array(z.number().int()),
  created_at: z.string(),
  updated_at: z.string(),
  deployment_chat: z.boolean(),
  source: z.string(),
  owner_id: z.string().nullable(),
  version_message: z.string().nullable(),
});
export type AgentOut = z.infer<typeof AgentOut>;

export const AgentListOut = z.array(AgentOut);
export const AgentPageOut = z.object({ object: z.literal("list"), data: z.array(AgentOut), next_page_token: z.string().nullable() });

export const AgentAliasOut = z.object({ alias: z.string(), version: z.number().int(), created_at: z.string(), updated_at: z.string() });
export const AgentAliasListOut = z.array(AgentAliasOut);

export const AgentParams = z.object({ agent_id: z.string().min(1) });
export const AgentVersionParams = AgentParams.extend({ version: z.string().min(1) });


const listFilters = {
  deployment_chat: z.stringbool().optional(),
  sources: repeated(RequestSource),
  name: z.string().min(1).optional(),
  search: z.string().min(1).max(256).optional(),
  id: z.string().min(1).optional(),
  metadata: MetadataQuery,
};

export const AgentListQuery = z.object({ ...pageQuery(20, 1000), ...listFilters });
export type AgentListQuery = z.infer<typeof AgentListQuery>;

export const AgentPagesQuery = z.object({
  page_size: pageQuery(20, 1000).page_size,
  page_token: z.string().min(1).optional(),
  ...listFilters,
});
export type AgentPagesQuery = z.infer<typeof AgentPagesQuery>;

export type AgentFilter = Pick<AgentListQuery, "deployment_chat" | "sources" | "name" | "search" | "id" | "metadata">;

/** `agent_version`: a version number or an alias. */
export const AgentGetQuery = z.object({ agent_version: z.string().min(1).optional() });
export const AgentVersionQuery = z.object({ version: queryInt().min(1) });
export const AgentVersionListQuery = z.object(pageQuery(20, 100));

/** As the OpenAPI constrains alias names: lower case, never all digits, so never mistaken for a version. */
export const AliasName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z]([a-z0-9_-]*[a-z0-9])?$/, "An alias starts with a lower-case letter and holds only a-z, 0-9, _ and -");
export const AgentAliasQuery = z.object({ alias: AliasName, version: queryInt().min(1) });
export const AgentAliasDeleteQuery = z.object({ alias: AliasName });

/** Function tools go to the model; the other kinds are accepted and not sent (see docs/agents.md). */
const CompletionTool = typedTool(z.discriminatedUnion("type", [Tool.extend({ type: z.literal("function") }), ...BuiltInTool.options]));

export const AgentsCompletionRequest = z.strictObject({
  agent_id: z.string().min(1),
  messages: z.array(Message).min(1),
  max_tokens: z.number().int().min(0).nullish(),
  stream: z.boolean().default(false),
  stop: Stop.nullish(),
  random_seed: z.number().int().min(0).nullish(),
  metadata: Metadata.nullish(),
  // No defaults on the fields an agent's completion_args may also set: absent means "the agent's".
  response_format: ResponseFormat.optional(),
  tools: z.array(CompletionTool).nullish(),
  tool_choice: ToolChoice.optional(),
  presence_penalty: Penalty.nullish(),
  frequency_penalty: Penalty.nullish(),
  n: z.number().int().min(1).max(16).nullish(),
  prediction: Prediction.optional(),
  parallel_tool_calls: z.boolean().optional(),
  reasoning_effort: ReasoningEffort.nullish(),
  prompt_mode: z.enum(["reasoning"]).nullish(),
  guardrails: z.array(GuardrailConfig).nullish(),
  prompt_cache_key: z.string().nullish(),
  service_tier: z.enum(["auto", "standard_only"]).nullish(),
});
export type AgentsCompletionRequest = z.infer<typeof AgentsCompletionRequest>;

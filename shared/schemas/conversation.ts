import * as z from "zod";
import { AgentTool, CompletionArgs } from "./agent.js";
import { ContentChunk } from "./inference.js";
import { GuardrailConfig } from "./guardrails.js";
import { pageQuery } from "./common.js";
import { MetadataQuery } from "./query.js";

/**
 * Conversations as Mistral's OpenAPI writes them (`ConversationRequest`, `ConversationAppendRequest`,
 * `ConversationRestartRequest`, `ConversationResponse`, `ConversationHistory`, `ConversationMessages`, the entry
 * objects and the stream events). Objects the OpenAPI closes (`additionalProperties: false`) reject unknown fields.
 */

const Metadata = z.record(z.string(), z.unknown());
const Timestamp = z.string().nullish();
const Content = z.union([z.string(), z.array(ContentChunk)]);
const ToolName = z.string().min(1);

/** What every entry carries besides its own fields; ids and times a client sends are taken as given. */
const entryBase = {
  object: z.literal("entry").optional(),
  created_at: Timestamp,
  completed_at: Timestamp,
  id: z.string().nullish(),
};

export const MessageInputEntry = z.strictObject({
  ...entryBase,
  type: z.literal("message.input"),
  role: z.enum(["assistant", "user"]),
  content: Content,
  prefix: z.boolean().default(false),
});

export const MessageOutputEntry = z.strictObject({
  ...entryBase,
  type: z.literal("message.output"),
  agent_id: z.string().nullish(),
  model: z.string().nullish(),
  role: z.literal("assistant").default("assistant"),
  content: Content,
});

export const FunctionCallEntry = z.strictObject({
  ...entryBase,
  type: z.literal("function.call"),
  agent_id: z.string().nullish(),
  model: z.string().nullish(),
  tool_call_id: z.string().min(1),
  name: ToolName,
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
  confirmation_status: z.enum(["pending", "allowed", "denied"]).nullish(),
});

export const FunctionResultEntry = z.strictObject({
  ...entryBase,
  type: z.literal("function.result"),
  tool_call_id: z.string().min(1),
  result: z.string(),
});

export const ToolExecutionEntry = z.strictObject({
  ...entryBase,
  type: z.literal("tool.execution"),
  agent_id: z.string().nullish(),
  model: z.string().nullish(),
  name: ToolName,
  arguments: z.string(),
  info: z.record(z.string(), z.unknown()).optional(),
});

export const AgentHandoffEntry = z.strictObject({
  ...entryBase,
  type: z.literal("agent.handoff"),
  previous_agent_id: z.string(),
  previous_agent_name: z.string(),
  next_agent_id: z.string(),
  next_agent_name: z.string(),
});

/** An input entry; one without `type` is a message input, as the OpenAPI's defaults say. */
export const InputEntry = z.preprocess(
  (value) => (value && typeof value === "object" && !Array.isArray(value) && !("type" in value) ? { type: "message.input", ...value } : value),
  z.discriminatedUnion("type", [MessageInputEntry, MessageOutputEntry, FunctionResultEntry, FunctionCallEntry, ToolExecutionEntry, AgentHandoffEntry]),
);
export type InputEntry = z.infer<typeof InputEntry>;

/** `inputs`: a user message as a string, or entries. */
export const ConversationInputs = z.union([z.string(), z.array(InputEntry).min(1)]);
export type ConversationInputs = z.infer<typeof ConversationInputs>;

const AgentVersionRef = z.union([z.string().min(1), z.number().int().min(1)]);
const HandoffExecution = z.enum(["client", "server"]);

export const ConversationRequest = z.object({
  inputs: ConversationInputs,
  stream: z.boolean().nullish(),
  store: z.boolean().nullish(),
  handoff_execution: HandoffExecution.nullish(),
  instructions: z.string().nullish(),
  tools: z.array(AgentTool).nullish(),
  completion_args: CompletionArgs.nullish(),
  guardrails: z.array(GuardrailConfig).nullish(),
  name: z.string().nullish(),
  description: z.string().nullish(),
  metadata: Metadata.nullish(),
  agent_id: z.string().min(1).nullish(),
  agent_version: AgentVersionRef.nullish(),
  model: z.string().min(1).nullish(),
});
export type ConversationRequest = z.infer<typeof ConversationRequest>;

export const ConversationAppendRequest = z.strictObject({
  inputs: ConversationInputs,
  stream: z.boolean().default(false),
  store: z.boolean().default(true),
  handoff_execution: HandoffExecution.default("server"),
  completion_args: CompletionArgs.nullish(),
  tool_confirmations: z.array(z.looseObject({ tool_call_id: z.string(), confirmation: z.string() })).nullish(),
});
export type ConversationAppendRequest = z.infer<typeof ConversationAppendRequest>;

export const ConversationRestartRequest = z.strictObject({
  inputs: ConversationInputs,
  stream: z.boolean().default(false),
  store: z.boolean().default(true),
  handoff_execution: HandoffExecution.default("server"),
  completion_args: CompletionArgs.nullish(),
  guardrails: z.array(GuardrailConfig).nullish(),
  metadata: Metadata.nullish(),
  from_entry_id: z.string().min(1),
  agent_version: AgentVersionRef.nullish(),
});
export type ConversationRestartRequest = z.infer<typeof ConversationRestartRequest>;

export const ConversationParams = z.object({ conversation_id: z.string().min(1) });


export const ConversationListQuery = z.object({ ...pageQuery(100, 1000), metadata: MetadataQuery });
export type ConversationListQuery = z.infer<typeof ConversationListQuery>;

// ---- answers ----

/** An entry as answered: every field the OpenAPI lists, none left out. */
export const EntryOut = z.looseObject({ object: z.literal("entry"), type: z.string(), id: z.string(), created_at: z.string() });
export type EntryOut = z.infer<typeof EntryOut>;

export const ConversationUsageOut = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  connector_tokens: z.number().int().nullable(),
  connectors: z.record(z.string(), z.number().int()).nullable(),
});
export type ConversationUsageOut = z.infer<typeof ConversationUsageOut>;

export const ConversationResponse = z.object({
  object: z.literal("conversation.response"),
  conversation_id: z.string(),
  outputs: z.array(EntryOut),
  usage: ConversationUsageOut,
  guardrails: z.array(z.record(z.string(), z.unknown())).nullable(),
});
export type ConversationResponse = z.infer<typeof ConversationResponse>;

/** ModelConversation or AgentConversation: the model's fields or the agent's. */
export const ConversationOut = z.object({
  object: z.literal("conversation"),
  id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  name: z.string().nullable(),
  description: z.string().nullable(),
  metadata: Metadata.nullable(),
  model: z.string().optional(),
  instructions: z.string().nullable().optional(),
  tools: z.array(z.unknown()).optional(),
  completion_args: z.record(z.string(), z.unknown()).optional(),
  guardrails: z.array(z.unknown()).nullable().optional(),
  agent_id: z.string().optional(),
  agent_version: z.union([z.string(), z.number().int()]).nullable().optional(),
});
export type ConversationOut = z.infer<typeof ConversationOut>;

export const ConversationListOut = z.array(ConversationOut);

export const ConversationHistoryOut = z.object({ object: z.literal("conversation.history"), conversation_id: z.string(), entries: z.array(EntryOut) });
export const ConversationMessagesOut = z.object({ object: z.literal("conversation.messages"), conversation_id: z.string(), messages: z.array(EntryOut) });

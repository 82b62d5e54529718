import type { AgentsCompletionRequest } from "../../schemas/agent.js";
import type { ChatCompletionRequest, CompletionOut, Message, Tool } from "../../schemas/inference.js";
import type { AgentConfig } from "../../domain/agents.js";
import { head } from "./agents.js";
import * as completions from "../inference/completions.js";
import type { CallContext } from "../inference/usage.js";

type FunctionToolOf<T> = Extract<T, { type: "function" }>;
const isFunction = <T extends { type: string }>(tool: T): tool is FunctionToolOf<T> & T => tool.type === "function";

/**
 * The tools the model sees: the agent's function tools, then the request's (a request tool replaces the
 * agent's of the same name). Built-in tools (web search, code interpreter, libraries, connectors) are run
 * by Mistral's conversations, not by a completion call; they are not sent to the model.
 */
function toolsFor(agent: AgentConfig, request: AgentsCompletionRequest): Tool[] {
  const fromRequest = (request.tools ?? []).filter(isFunction) as Tool[];
  const names = new Set(fromRequest.map((t) => t.function.name));
  const fromAgent = agent.tools.filter(isFunction).filter((t) => !names.has(t.function.name)) as Tool[];
  return [...fromAgent, ...fromRequest];
}

/**
 * The chat request an agent completion stands for: the agent's model, its instructions as the first
 * (system) message, its completion_args under the request's own values (a value the request sets wins),
 * and everything else of the request as the chat route takes it.
 */
export function toChatRequest(agent: AgentConfig, request: AgentsCompletionRequest): ChatCompletionRequest {
  const args = agent.completion_args;
  const instructions: Message[] = agent.instructions ? [{ role: "system", content: agent.instructions }] : [];
  const tools = toolsFor(agent, request);
  return {
    model: agent.model,
    messages: [...instructions, ...request.messages],
    stream: request.stream,
    temperature: args.temperature,
    top_p: args.top_p,
    max_tokens: request.max_tokens ?? args.max_tokens,
    stop: request.stop ?? args.stop,
    random_seed: request.random_seed ?? args.random_seed,
    presence_penalty: request.presence_penalty ?? args.presence_penalty,
    frequency_penalty: request.frequency_penalty ?? args.frequency_penalty,
    response_format: request.response_format ?? args.response_format ?? undefined,
    prediction: request.prediction ?? args.prediction,
    tool_choice: request.tool_choice ?? args.tool_choice,
    reasoning_effort: request.reasoning_effort ?? args.reasoning_effort,
    tools: tools.length ? tools : undefined,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    n: request.n,
    metadata: request.metadata,
    prompt_cache_key: request.prompt_cache_key,
    prompt_mode: request.prompt_mode,
    guardrails: request.guardrails ?? agent.guardrails,
    service_tier: request.service_tier,
    safe_prompt: false,
  };
}

/** POST /v1/agents/completions: the agent's current version, called through the chat path. */
export async function complete(ctx: CallContext, request: AgentsCompletionRequest): Promise<completions.ModelAnswer<CompletionOut> | completions.ModelStream> {
  const agent = await head(ctx.caller, request.agent_id);
  // The model call's span names the agent (gen_ai.agent.*), so traces group and search by it.
  const spanFields = { agent_id: agent.id, agent_name: agent.name, agent_version: String(agent.version), agent_description: agent.description ?? "" };
  return completions.chat({ ...ctx, spanFields: { ...ctx.spanFields, ...spanFields } }, toChatRequest(agent, request));
}

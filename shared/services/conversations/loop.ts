/**
 * The agent loop of a conversation turn (docs/conversations.md, decision 0070): call the model through the chat path
 * (catalog, routing, spend limit, usage and its span, as every chat call), run the tools the platform can run and
 * record each as an entry, call the model again with the results, and stop when the model answers, calls a function
 * tool (returned to the client) or hands off to the client. Bounded by steps and time.
 */
import type { AgentConfig } from "../../domain/agents.js";
import { entryOf, handoffToolName, messagesOf, newToolCallId, type Entry, type ModelSetup } from "../../domain/conversations.js";
import { ApiError, UpstreamError } from "../../domain/errors.js";
import type { CompletionArgs } from "../../schemas/agent.js";
import type { ConversationUsageOut } from "../../schemas/conversation.js";
import type { GuardrailConfig } from "../../schemas/guardrails.js";
import type { ChatCompletionRequest, CompletionChunk, CompletionOut, Message, Tool, ToolCall } from "../../schemas/inference.js";
import { startSpan, type ModelSpan } from "../observability/span-writer.js";
import * as completions from "../inference/completions.js";
import type { CallContext } from "../inference/usage.js";
import { functionsOf, type ModelFunction } from "./tools/index.js";

/**
 * Settings (docs/conversations.md, "Bounds"): model calls per turn, and the turn's time. A plain answer leaves only
 * when the loop is done, so its bound stays under CloudFront's 60 s origin read timeout; a streamed turn sends bytes
 * as it goes and may run longer, up to its function's 15 minutes.
 */
export const MAX_STEPS = () => Number(process.env.CONVERSATION_MAX_STEPS ?? 8);
export const MAX_SECONDS = (stream = false) =>
  stream ? Number(process.env.CONVERSATION_STREAM_MAX_SECONDS ?? 600) : Number(process.env.CONVERSATION_MAX_SECONDS ?? 50);

/** An agent as a turn uses it: one version's fields. */
export interface AgentAt {
  id: string;
  name: string;
  version: number;
  config: AgentConfig;
}

export type Target = { kind: "model"; setup: ModelSetup } | { kind: "agent"; agent: AgentAt };

export interface Turn {
  ctx: CallContext;
  conversationId: string;
  /** Entries before this turn. */
  history: readonly Entry[];
  /** The turn's inputs, already checked. */
  inputs: readonly Entry[];
  target: Target;
  /** The request's completion_args: over the conversation's or the agent's. */
  completionArgs?: CompletionArgs | null;
  guardrails?: GuardrailConfig[] | null;
  handoffExecution: "client" | "server";
  /** Streams the model's text as it comes (message.output.delta events). */
  stream: boolean;
  /** Loads the agents an agent may hand over to (the conversation's workspace only). */
  agentsFor: (ids: readonly string[]) => Promise<AgentAt[]>;
}

export interface TurnResult {
  outputs: Entry[];
  usage: ConversationUsageOut;
  /** The agent answering after the turn (a handoff moves it). */
  activeAgentId?: string;
}

/** A stream event's data, as Mistral's ConversationEvents carry it (`type` is the SSE event name too). */
export type TurnEvent = { type: string; created_at: string; [field: string]: unknown };

/** The tools a target offers, checked: an unserved built-in refuses the turn before any model call. */
export interface Offered {
  functions: Map<string, ModelFunction>;
  /** Handoff functions by name: the agent each one moves the conversation to. */
  handoffs: Map<string, AgentAt>;
}

export async function toolsOf(turn: Pick<Turn, "ctx" | "agentsFor">, target: Target): Promise<Offered> {
  const tools = target.kind === "model" ? target.setup.tools : target.agent.config.tools;
  const functions = await functionsOf(tools, turn.ctx.caller, turn.ctx.signal);
  const handoffs = new Map<string, AgentAt>();
  if (target.kind === "agent" && target.agent.config.handoffs?.length) {
    for (const next of await turn.agentsFor(target.agent.config.handoffs)) handoffs.set(handoffToolName(next.name, next.id), next);
  }
  return { functions, handoffs };
}

/** The sampling arguments of a call: the request's over the conversation's (or the agent's). */
function argsOf(base: CompletionArgs, request: CompletionArgs | null | undefined): CompletionArgs {
  const merged: CompletionArgs = { ...base };
  for (const [key, value] of Object.entries(request ?? {})) if (value !== undefined && value !== null) (merged as Record<string, unknown>)[key] = value;
  return merged;
}

function chatRequest(turn: Turn, target: Target, offered: Offered, messages: Message[]): ChatCompletionRequest {
  const config = target.kind === "model" ? target.setup : target.agent.config;
  const args = argsOf(config.completion_args, turn.completionArgs);
  const handoffTools: Tool[] = [...offered.handoffs].map(([name, agent]) => ({
    type: "function",
    function: { name, description: `Hand the conversation over to the agent '${agent.name}'${agent.config.description ? `: ${agent.config.description}` : ""}`, strict: false, parameters: { type: "object", properties: {} } },
  }));
  const tools = [...[...offered.functions.values()].map((f) => f.definition), ...handoffTools];
  return {
    model: config.model,
    messages: [...(config.instructions ? [{ role: "system" as const, content: config.instructions }] : []), ...messages],
    stream: turn.stream,
    temperature: args.temperature,
    top_p: args.top_p,
    max_tokens: args.max_tokens,
    stop: args.stop,
    random_seed: args.random_seed,
    presence_penalty: args.presence_penalty,
    frequency_penalty: args.frequency_penalty,
    response_format: args.response_format ?? undefined,
    prediction: args.prediction ?? undefined,
    tool_choice: args.tool_choice,
    reasoning_effort: args.reasoning_effort,
    tools: tools.length ? tools : undefined,
    parallel_tool_calls: true,
    guardrails: turn.guardrails ?? config.guardrails,
    safe_prompt: false,
  };
}

interface StepAnswer {
  model: string;
  content: string | Record<string, unknown>[];
  toolCalls: ToolCall[];
  promptTokens: number;
  completionTokens: number;
}

const nowIso = () => new Date().toISOString();

function answerOf(body: CompletionOut): StepAnswer {
  const message = body.choices[0]?.message;
  return {
    model: body.model,
    content: (message?.content ?? "") as StepAnswer["content"],
    toolCalls: message?.tool_calls ?? [],
    promptTokens: body.usage.prompt_tokens,
    completionTokens: body.usage.completion_tokens,
  };
}

/** One model call; streamed, its text comes out as deltas of the output entry `outputId`. */
async function* modelCall(ctx: CallContext, request: ChatCompletionRequest, delta: (content: unknown) => TurnEvent): AsyncGenerator<TurnEvent, StepAnswer> {
  const answer = await completions.chat(ctx, request);
  if (answer.kind === "answer") return answerOf(answer.body);
  let text = "";
  const thinking: Record<string, unknown>[] = [];
  const toolCalls: ToolCall[] = [];
  let model = request.model;
  let usage = { prompt_tokens: 0, completion_tokens: 0 };
  for await (const frame of answer.frames) {
    const data = frame.startsWith("data: ") ? frame.slice(6).trim() : "";
    if (!data || data === "[DONE]") continue;
    const chunk = JSON.parse(data) as CompletionChunk;
    model = chunk.model;
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.finish_reason === "error") throw new UpstreamError(502, "The model's stream failed after its first byte");
      const content = choice.delta.content;
      if (typeof content === "string" && content) {
        text += content;
        yield delta(content);
      } else if (Array.isArray(content) && content.length) {
        thinking.push(...(content as Record<string, unknown>[]));
        yield delta(content);
      }
      toolCalls.push(...((choice.delta.tool_calls ?? []) as ToolCall[]));
    }
  }
  const content = thinking.length ? [...thinking, { type: "text", text }] : text;
  return { model, content, toolCalls, promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
}

const parsedArguments = (args: unknown): Record<string, unknown> => {
  if (args && typeof args === "object") return args as Record<string, unknown>;
  try {
    const value: unknown = JSON.parse(String(args || "{}"));
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

const argumentsText = (args: unknown): string => (typeof args === "string" ? args : JSON.stringify(args ?? {}));

export class LoopBound extends ApiError {
  constructor(what: "steps" | "time", stream = false) {
    super(
      504,
      "server_error",
      what === "steps"
        ? `The agent loop made ${MAX_STEPS()} model calls without an answer (CONVERSATION_MAX_STEPS); nothing of this turn was kept`
        : `The agent loop ran out of its ${MAX_SECONDS(stream)} s (${stream ? "CONVERSATION_STREAM_MAX_SECONDS" : "CONVERSATION_MAX_SECONDS"}); nothing of this turn was kept`,
      what === "steps" ? "conversation_step_limit" : "conversation_time_limit",
    );
  }
}

/** A step's events, its failure after the turn's deadline reported as the deadline it is. */
async function* pastDeadline<T>(deadline: number, stream: boolean, step: AsyncGenerator<TurnEvent, T>): AsyncGenerator<TurnEvent, T> {
  try {
    return yield* step;
  } catch (error) {
    if (Date.now() >= deadline) throw new LoopBound("time", stream);
    throw error;
  }
}

/**
 * Runs one turn, yielding Mistral's stream events as it goes and returning the turn's output entries and usage. A
 * failure is thrown (the caller writes nothing of the turn); the events before it were already sent.
 */
export async function* runTurn(turn: Turn, first: Offered): AsyncGenerator<TurnEvent, TurnResult> {
  const deadline = Date.now() + MAX_SECONDS(turn.stream) * 1000;
  const outputs: Entry[] = [];
  const usage = { prompt_tokens: 0, completion_tokens: 0 };
  const connectorCalls: Record<string, number> = {};
  // The turn's model calls, the loop's and its tools' (a document library's query embedding): each usage record's `call`.
  let modelCalls = 0;
  let target = turn.target;
  let offered = first;
  const agentFields = () => (target.kind === "agent" ? { agent_id: target.agent.id, agent_name: target.agent.name, agent_version: String(target.agent.version) } : {});
  const runSpan: ModelSpan = startSpan({
    caller: turn.ctx.caller,
    ...(turn.ctx.trace ? { parent: turn.ctx.trace } : {}),
    operation: "invoke_agent",
    requestModel: target.kind === "model" ? target.setup.model : target.agent.config.model,
    fields: { conversation_id: turn.conversationId, ...agentFields() },
    attributes: { "platform.route": turn.ctx.route },
  });
  const under = { traceId: runSpan.traceId, parentSpanId: runSpan.spanId, traceState: turn.ctx.trace?.traceState ?? "" };
  yield { type: "conversation.response.started", created_at: nowIso(), conversation_id: turn.conversationId };
  try {
    for (let step = 0; ; step += 1) {
      if (step >= MAX_STEPS()) throw new LoopBound("steps");
      if (Date.now() > deadline) throw new LoopBound("time", turn.stream);
      const messages = messagesOf([...turn.history, ...turn.inputs, ...outputs]);
      const request = chatRequest(turn, target, offered, messages);
      // The turn's deadline bounds each call too: a model or a tool that is still working when it passes is cut off.
      const signal = AbortSignal.any([...(turn.ctx.signal ? [turn.ctx.signal] : []), AbortSignal.timeout(Math.max(1, deadline - Date.now()))]);
      const ctx: CallContext = { ...turn.ctx, signal, callIndex: (modelCalls += 1), trace: under, spanFields: { ...turn.ctx.spanFields, conversation_id: turn.conversationId, ...agentFields() } };
      const who = { model: request.model, agent_id: target.kind === "agent" ? target.agent.id : null };
      const messageEntry = entryOf("message.output", { ...who, role: "assistant", content: "" });
      const outputIndex = outputs.length;
      const answer = yield* pastDeadline(deadline, turn.stream, modelCall(ctx, request, (content) => ({ type: "message.output.delta", created_at: nowIso(), output_index: outputIndex, id: messageEntry.id, content_index: 0, ...who, role: "assistant", content })));
      usage.prompt_tokens += answer.promptTokens;
      usage.completion_tokens += answer.completionTokens;
      who.model = answer.model;
      const text = typeof answer.content === "string" ? answer.content : answer.content.length;
      if (text || !answer.toolCalls.length) outputs.push({ ...messageEntry, model: answer.model, content: answer.content, completed_at: nowIso() });

      let handedOver: AgentAt | undefined;
      let clientCalls = 0;
      for (const call of answer.toolCalls) {
        const name = call.function.name;
        const callId = call.id ?? newToolCallId();
        const handoff = offered.handoffs.get(name);
        const fn = offered.functions.get(name);
        if (handoff && target.kind === "agent" && !handedOver) {
          const entry = entryOf("agent.handoff", { previous_agent_id: target.agent.id, previous_agent_name: target.agent.name, next_agent_id: handoff.id, next_agent_name: handoff.name });
          entry.callId = callId;
          yield { type: "agent.handoff.started", created_at: nowIso(), output_index: outputs.length, id: entry.id, previous_agent_id: target.agent.id, previous_agent_name: target.agent.name };
          outputs.push(entry);
          yield { type: "agent.handoff.done", created_at: nowIso(), output_index: outputs.length - 1, id: entry.id, next_agent_id: handoff.id, next_agent_name: handoff.name };
          handedOver = handoff;
        } else if (fn?.execute) {
          const args = argumentsText(call.function.arguments);
          const entry = entryOf("tool.execution", { ...who, name, arguments: args });
          entry.callId = callId;
          yield { type: "tool.execution.started", created_at: nowIso(), output_index: outputs.length, id: entry.id, ...who, name, arguments: args };
          const toolSpan = startSpan({ caller: turn.ctx.caller, parent: under, operation: "execute_tool", requestModel: "", fields: { conversation_id: turn.conversationId, tool_name: name, tool_type: fn.source, tool_call_id: callId, ...agentFields() } });
          const toolTrace = { traceId: toolSpan.traceId || under.traceId, parentSpanId: toolSpan.spanId || under.parentSpanId, traceState: under.traceState };
          const done = await fn.execute(parsedArguments(call.function.arguments), signal, () => ({ ...ctx, callIndex: (modelCalls += 1), trace: toolTrace }));
          if (Date.now() >= deadline) throw new LoopBound("time", turn.stream);
          await toolSpan.end(done.info.is_error ? { error: new Error(done.result) } : {});
          // Mistral counts built-in connectors' calls (document_library) with the connectors' tools.
          if (fn.source === "connector" || fn.source === "document_library") connectorCalls[name] = (connectorCalls[name] ?? 0) + 1;
          Object.assign(entry, { info: done.info, completed_at: nowIso() });
          outputs.push(entry);
          yield { type: "tool.execution.done", created_at: nowIso(), output_index: outputs.length - 1, id: entry.id, name, info: done.info };
        } else {
          // A function tool (or a name the model made up): the client runs it and answers with function.result.
          const args = argumentsText(call.function.arguments);
          const entry = entryOf("function.call", { ...who, tool_call_id: callId, name, arguments: args });
          yield { type: "function.call.delta", created_at: nowIso(), output_index: outputs.length, id: entry.id, ...who, name, tool_call_id: callId, arguments: args };
          outputs.push(entry);
          clientCalls += 1;
        }
      }
      if (!answer.toolCalls.length || clientCalls) break;
      if (handedOver) {
        target = { kind: "agent", agent: handedOver };
        if (turn.handoffExecution === "client") break;
        offered = await toolsOf(turn, target);
      }
    }
    const result: TurnResult = {
      outputs,
      usage: {
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        total_tokens: usage.prompt_tokens + usage.completion_tokens,
        connector_tokens: null,
        connectors: Object.keys(connectorCalls).length ? connectorCalls : null,
      },
      ...(target.kind === "agent" ? { activeAgentId: target.agent.id } : {}),
    };
    await runSpan.end({ usage: { input: usage.prompt_tokens, output: usage.completion_tokens } });
    return result;
  } catch (error) {
    await runSpan.end({ error, usage: { input: usage.prompt_tokens, output: usage.completion_tokens } });
    throw error;
  } finally {
    // A client that left a stream mid-turn: the turn's span still ends (a span ends once; this is a no-op otherwise).
    await runSpan.end({ usage: { input: usage.prompt_tokens, output: usage.completion_tokens }, attributes: { "platform.stream.abandoned": "true" } });
  }
}

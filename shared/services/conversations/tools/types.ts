import type { Caller } from "../../../domain/caller.js";
import type { AgentTool } from "../../../schemas/agent.js";
import type { Tool } from "../../../schemas/inference.js";
import type { CallContext } from "../../inference/usage.js";

/** What one execution of a server-side tool gives: the text the model reads, and the entry's `info`. */
export interface Execution {
  result: string;
  info: Record<string, unknown>;
}

/**
 * A function the model may call. Without `execute` it is the client's (a function tool: the call is returned as a
 * `function.call` entry); with it the platform runs it in the loop and records a `tool.execution` entry.
 */
export interface ModelFunction {
  definition: Tool;
  /** The kind of tool it came from, for spans (`tool_type`). */
  source: AgentTool["type"];
  /**
   * `modelCall` gives the context of each model call the tool makes (the document library's query embedding): the
   * turn's caller and request id, the next call index of the turn, the tool's span as parent; usage and spend as
   * every model call of the loop.
   */
  execute?: (args: Record<string, unknown>, signal?: AbortSignal, modelCall?: () => CallContext) => Promise<Execution>;
}

export interface ToolSetup {
  caller: Caller;
  signal?: AbortSignal;
}

/** One executor per tool type (shared/services/conversations/tools/*.ts): the functions a tool offers the model. */
export type ToolExecutor<T extends AgentTool = AgentTool> = (tool: T, setup: ToolSetup) => Promise<ModelFunction[]>;

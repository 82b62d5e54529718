import type { Caller } from "../../../domain/caller.js";
import type { AgentTool } from "../../../schemas/agent.js";
import { connectorTool } from "./connector.js";
import { functionTool } from "./function.js";
import { documentLibraryTool, unservedTool } from "./refused.js";
import type { ModelFunction, ToolExecutor } from "./types.js";

export type { Execution, ModelFunction } from "./types.js";
export { ToolNotServed } from "./refused.js";

/** One executor per tool type: what a tool offers the model, and how the platform runs it when it does. */
const executors: { [K in AgentTool["type"]]: ToolExecutor<Extract<AgentTool, { type: K }>> } = {
  function: functionTool,
  connector: connectorTool,
  document_library: documentLibraryTool,
  web_search: unservedTool,
  web_search_premium: unservedTool,
  code_interpreter: unservedTool,
  image_generation: unservedTool,
};

/**
 * The functions a set of tools offers the model, by name (the first tool offering a name keeps it). Every tool is
 * checked before the model is called: one this deployment cannot run refuses the request.
 */
export async function functionsOf(tools: readonly AgentTool[], caller: Caller, signal?: AbortSignal): Promise<Map<string, ModelFunction>> {
  // Refusals first, so a request naming an unserved tool fails before any connector is reached.
  for (const tool of tools) if (tool.type !== "function" && tool.type !== "connector") await (executors[tool.type] as ToolExecutor)(tool, { caller, signal });
  const offered = await Promise.all(tools.map((tool) => (executors[tool.type] as ToolExecutor)(tool, { caller, signal })));
  const byName = new Map<string, ModelFunction>();
  for (const fn of offered.flat()) if (!byName.has(fn.definition.function.name)) byName.set(fn.definition.function.name, fn);
  return byName;
}

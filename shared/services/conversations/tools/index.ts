import type { Caller } from "../../../domain/caller.js";
import type { AgentTool } from "../../../schemas/agent.js";
import { connectorTool } from "./connector.js";
import { documentLibraryTool } from "./document-library.js";
import { functionTool } from "./function.js";
import { unservedTool } from "./refused.js";
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
export async function functionsOf(given: readonly AgentTool[], caller: Caller, signal?: AbortSignal): Promise<Map<string, ModelFunction>> {
  const tools = librariesJoined(given);
  const setUp = (tool: AgentTool) => (executors[tool.type] as ToolExecutor)(tool, { caller, signal });
  // Built-ins first, so a request naming an unserved tool or a library the caller may not read fails before any
  // connector is reached.
  const builtIns = new Map<AgentTool, ModelFunction[]>();
  for (const tool of tools) if (tool.type !== "function" && tool.type !== "connector") builtIns.set(tool, await setUp(tool));
  const offered = await Promise.all(tools.map((tool) => builtIns.get(tool) ?? setUp(tool)));
  const byName = new Map<string, ModelFunction>();
  for (const fn of offered.flat()) if (!byName.has(fn.definition.function.name)) byName.set(fn.definition.function.name, fn);
  return byName;
}

/**
 * Several document_library tools are one: their libraries searched together by the one `document_library` function
 * (the first tool offering a name keeps it, so a second tool's libraries would otherwise be dropped unseen).
 */
function librariesJoined(tools: readonly AgentTool[]): AgentTool[] {
  const libraries = tools.filter((t): t is Extract<AgentTool, { type: "document_library" }> => t.type === "document_library");
  if (libraries.length < 2) return [...tools];
  const joined = { ...libraries[0]!, library_ids: [...new Set(libraries.flatMap((t) => t.library_ids))] };
  return tools.flatMap((t): AgentTool[] => (t === libraries[0] ? [joined] : t.type === "document_library" ? [] : [t]));
}

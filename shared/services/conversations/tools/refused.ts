import { BadRequest } from "../../../domain/errors.js";
import type { AgentTool } from "../../../schemas/agent.js";
import type { ToolExecutor } from "./types.js";

/** Built-in tools of Mistral's platform that this deployment has no provider for. */
export const UNSERVED_BUILT_INS = ["web_search", "web_search_premium", "code_interpreter", "image_generation"] as const;

export class ToolNotServed extends BadRequest {
  constructor(tool: string, why: string) {
    super(`The tool '${tool}' cannot run on this deployment: ${why}. Remove it from the conversation's or the agent's tools.`, "unsupported_tool", "tools");
  }
}

/** web_search, web_search_premium, code_interpreter, image_generation: refused by name, never ignored. */
export const unservedTool: ToolExecutor<AgentTool> = async (tool) => {
  throw new ToolNotServed(tool.type, "no provider for it is configured");
};

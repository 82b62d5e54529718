import type { AgentTool } from "../../../schemas/agent.js";
import type { ToolExecutor } from "./types.js";

/** A function tool is the client's: the model sees it, and its calls are returned to the client. */
export const functionTool: ToolExecutor<Extract<AgentTool, { type: "function" }>> = async (tool) => [{ definition: { type: "function", function: tool.function }, source: "function" }];

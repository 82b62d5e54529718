import type { AgentTool } from "../../../schemas/agent.js";
import { callTool, listTools, type ToolServer } from "../../../net/tools.js";
import { found } from "../../connectors/connectors.js";
import { serverFor } from "../../connectors/tools.js";
import type { Execution, ToolExecutor } from "./types.js";

type ConnectorTool = Extract<AgentTool, { type: "connector" }>;

/** The text a model reads of a tool's result: its text parts, else the whole result as JSON. */
function resultText(content: { type: string; [key: string]: unknown }[], structured: unknown): string {
  const texts = content.filter((c) => c.type === "text" && typeof c.text === "string").map((c) => c.text as string);
  return texts.length ? texts.join("\n") : JSON.stringify(structured ?? content);
}

/**
 * A connector (docs/connectors.md): its server's tools, listed with the caller's credentials (or the tool's own
 * `authorization`) through the outbound guard, filtered by `tool_configuration`, are offered to the model; a call
 * runs on the server and its result goes back to the model. A server's refusal is the tool's result, not the turn's failure.
 */
export const connectorTool: ToolExecutor<ConnectorTool> = async (tool, { caller, signal }) => {
  const connector = await found(caller, tool.connector_id);
  const reached = await serverFor(connector, caller);
  const server: ToolServer = tool.authorization ? { ...reached, headers: { ...reached.headers, authorization: `Bearer ${tool.authorization.value}` } } : reached;
  const include = tool.tool_configuration?.include;
  const exclude = new Set(tool.tool_configuration?.exclude ?? []);
  const offered = (await listTools(server, { signal })).filter((t) => (!include || include.includes(t.name)) && !exclude.has(t.name));
  return offered.map((description) => ({
    source: "connector" as const,
    definition: { type: "function", function: { name: description.name, description: description.description ?? "", strict: false, parameters: description.inputSchema } },
    async execute(args, callSignal): Promise<Execution> {
      const info = { connector_id: connector.id, connector_name: connector.name, tool: description.name };
      try {
        const result = await callTool(server, description.name, args, { signal: callSignal });
        const text = resultText(result.content, result.structuredContent);
        return { result: text, info: { ...info, result: text, content: result.content, is_error: result.isError } };
      } catch (error) {
        const message = `The tool failed: ${(error as Error).message}`;
        return { result: message, info: { ...info, result: message, is_error: true } };
      }
    },
  }));
};

import { CallToolBody, CallToolQuery, ToolCallOut, ToolCallParams } from "../../shared/schemas/connector.js";
import * as tools from "../../shared/services/connectors/tools.js";
import { route } from "../route.js";

export const handler = route({ params: ToolCallParams, query: CallToolQuery, body: CallToolBody, response: ToolCallOut }, ({ params, query, body, caller, signal }) =>
  tools.callTool(caller, params.connector_id_or_name, params.tool_name, body.arguments, { credentialsName: query.credentials_name, signal }),
);

import { ConnectorRefParams, ListToolsQuery, ToolsOut } from "../../shared/schemas/connector.js";
import * as tools from "../../shared/services/connectors/tools.js";
import { route } from "../route.js";

export const handler = route({ params: ConnectorRefParams, query: ListToolsQuery, response: ToolsOut }, ({ params, query, caller, signal }) => tools.listTools(caller, params.connector_id_or_name, query, signal));

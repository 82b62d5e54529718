import { ConnectorOut, ConnectorRefParams, GetConnectorQuery } from "../../shared/schemas/connector.js";
import * as connectors from "../../shared/services/connectors/connectors.js";
import { route } from "../route.js";

export const handler = route({ params: ConnectorRefParams, query: GetConnectorQuery, response: ConnectorOut }, ({ params, caller }) => connectors.get(caller, params.connector_id_or_name));

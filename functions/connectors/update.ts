import { ConnectorIdParams, ConnectorOut, UpdateConnectorBody } from "../../shared/schemas/connector.js";
import * as connectors from "../../shared/services/connectors/connectors.js";
import { route } from "../route.js";

export const handler = route({ params: ConnectorIdParams, body: UpdateConnectorBody, response: ConnectorOut }, ({ params, body, caller }) => connectors.update(caller, params.connector_id, body));

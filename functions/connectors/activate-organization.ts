import { ConnectorIdParams, MessageOut } from "../../shared/schemas/connector.js";
import * as connectors from "../../shared/services/connectors/connectors.js";
import { route } from "../route.js";

// `POST …/{consumer_scope}/activate` with the scope `organization`, as API Gateway routes it (functions/connectors/routes.ts).
export const handler = route({ params: ConnectorIdParams, response: MessageOut }, ({ params, caller }) => connectors.activate(caller, params.connector_id, "organization", true));

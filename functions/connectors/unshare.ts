import { ConnectorIdParams, MessageOut } from "../../shared/schemas/connector.js";
import * as connectors from "../../shared/services/connectors/connectors.js";
import { route } from "../route.js";

export const handler = route({ params: ConnectorIdParams, response: MessageOut }, ({ params, caller }) => connectors.share(caller, params.connector_id, "unshare-workspace"));

import { ActivateParams, MessageOut } from "../../shared/schemas/connector.js";
import * as connectors from "../../shared/services/connectors/connectors.js";
import { route } from "../route.js";

export const handler = route({ params: ActivateParams, response: MessageOut }, ({ params, caller }) => connectors.activate(caller, params.connector_id, params.consumer_scope, false));

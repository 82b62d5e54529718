import { AuthMethodsOut, ConnectorRefParams } from "../../shared/schemas/connector.js";
import * as connectors from "../../shared/services/connectors/connectors.js";
import { route } from "../route.js";

export const handler = route({ params: ConnectorRefParams, response: AuthMethodsOut }, ({ params, caller }) => connectors.authenticationMethods(caller, params.connector_id_or_name));

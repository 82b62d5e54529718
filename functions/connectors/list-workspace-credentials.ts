import { ConnectorRefParams, CredentialsListOut, CredentialsQuery } from "../../shared/schemas/connector.js";
import * as credentials from "../../shared/services/connectors/credentials.js";
import { route } from "../route.js";

export const handler = route({ params: ConnectorRefParams, query: CredentialsQuery, response: CredentialsListOut }, ({ params, query, caller }) => credentials.list(caller, params.connector_id_or_name, "workspace", query));

import { AuthUrlOut, AuthUrlQuery, ConnectorRefParams } from "../../shared/schemas/connector.js";
import * as oauth from "../../shared/services/connectors/oauth.js";
import { route } from "../route.js";

// The auth_url is the platform's consent page; it and the redirect URI come from configuration (PUBLIC_URL), never from the request's headers.
export const handler = route({ params: ConnectorRefParams, query: AuthUrlQuery, response: AuthUrlOut }, ({ params, query, caller }) => oauth.authUrl(caller, params.connector_id_or_name, query));

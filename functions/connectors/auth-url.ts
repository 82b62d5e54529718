import { publicUrl } from "../../shared/http/public-url.js";
import { AuthUrlOut, AuthUrlQuery, ConnectorRefParams } from "../../shared/schemas/connector.js";
import * as oauth from "../../shared/services/connectors/oauth.js";
import { route } from "../route.js";

// The redirect URI is this API's callback route as the client reaches it (CONNECTOR_OAUTH_CALLBACK_URL overrides, e.g. behind a proxy).
export const handler = route({ params: ConnectorRefParams, query: AuthUrlQuery, response: AuthUrlOut }, ({ params, query, caller, event }) =>
  oauth.authUrl(caller, params.connector_id_or_name, query, process.env.CONNECTOR_OAUTH_CALLBACK_URL ?? publicUrl(event, oauth.CALLBACK_PATH)),
);

import { CredentialsListOut, CredentialsQuery, CredentialsScopeParams } from "../../shared/schemas/connector.js";
import * as credentials from "../../shared/services/connectors/credentials.js";
import { route } from "../route.js";

export const handler = route({ params: CredentialsScopeParams, query: CredentialsQuery, response: CredentialsListOut }, ({ params, query, caller }) =>
  credentials.list(caller, params.connector_id_or_name, params.consumer_scope, query),
);

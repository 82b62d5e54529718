import { CredentialsBody, CredentialsScopeParams, MessageOut } from "../../shared/schemas/connector.js";
import * as credentials from "../../shared/services/connectors/credentials.js";
import { route } from "../route.js";

export const handler = route({ params: CredentialsScopeParams, body: CredentialsBody, response: MessageOut }, ({ params, body, caller }) =>
  credentials.put(caller, params.connector_id_or_name, params.consumer_scope, body, "create"),
);

import { CredentialsNameParams, MessageOut } from "../../shared/schemas/connector.js";
import * as credentials from "../../shared/services/connectors/credentials.js";
import { route } from "../route.js";

export const handler = route({ params: CredentialsNameParams, response: MessageOut }, ({ params, caller }) =>
  credentials.remove(caller, params.connector_id_or_name, params.consumer_scope, params.credentials_name),
);

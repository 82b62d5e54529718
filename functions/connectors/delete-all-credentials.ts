import { CredentialsScopeParams, MessageOut } from "../../shared/schemas/connector.js";
import * as credentials from "../../shared/services/connectors/credentials.js";
import { route } from "../route.js";

// The SDK calls it for the user's own credentials; the workspace's and organization's need their scope's share permission.
export const handler = route({ params: CredentialsScopeParams, response: MessageOut }, ({ params, caller }) => credentials.remove(caller, params.connector_id_or_name, params.consumer_scope, undefined));

import { ConnectorListOut, ListConnectorsQuery } from "../../shared/schemas/connector.js";
import * as connectors from "../../shared/services/connectors/connectors.js";
import { route } from "../route.js";

export const handler = route({ query: ListConnectorsQuery, response: ConnectorListOut }, ({ query, caller }) => connectors.list(caller, query));

import { Reply } from "../../shared/http/reply.js";
import { ConnectorOut, CreateConnectorBody } from "../../shared/schemas/connector.js";
import * as connectors from "../../shared/services/connectors/connectors.js";
import { route } from "../route.js";

// 201: the SDK rejects a 200 here.
export const handler = route({ body: CreateConnectorBody, response: ConnectorOut }, async ({ body, caller }) => Reply.json(201, ConnectorOut.parse(await connectors.create(caller, body))));

import { Reply } from "../../shared/http/reply.js";
import { ClientSessionOut, CreateClientSessionBody } from "../../shared/schemas/realtime.js";
import { createClientSession } from "../../shared/services/realtime/client-sessions.js";
import { route } from "../route.js";

// 201, as Mistral answers it.
export const handler = route({ body: CreateClientSessionBody, response: ClientSessionOut }, async ({ body, caller }) =>
  Reply.json(201, ClientSessionOut.parse(await createClientSession(caller, body))),
);
